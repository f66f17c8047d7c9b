"""Expert variants for the ladder and its sequential test (``file.py:callable`` agent specs).

Each callable takes a seed and returns an agent; e.g.::

    ttr-nordic ladder sprt --a turns=benchmarks/expert_variants.py:turns_value \\
        --b expert=rollout_search --workers 2

- ``registered``: the registered expert (``EXPERT_SETTINGS``);
- ``turns_full``: plus a search of every turn and second card (card draws included), full
  Route Focus rollouts, 0.8 s a turn;
- ``turns_value``: the same with rollouts cut after 24 actions and scored by the value model;
- ``turns_value_block``: plus blocking claims (two players) and ticket inference;
- ``turn_search_x1`` and ``turn_search_x10``: the *expert* level as it was before 2026-11-29
  (``TURN_SEARCH_SETTINGS`` with six actions a turn, ``BEFORE_WIDE``) with ``core_rollout_scale``
  1 and 10 (its rollout caps as in Python, or ten times them where the rollouts run in the
  compiled core), clocks off so that the load on the machine changes nothing
  (on a quiet core both stay within the level's 0.8 s a turn: ``expert_rollouts.py --presets``);
- ``turn_search_full_x10``: the same level with every rollout played to the end (``horizon``
  0, no value model) and ten times its rollout caps in the core: 1,200 full rollouts a turn,
  about what the core plays in 0.8 s (``expert_rollouts.py --horizon 0``), clocks off;
- ``turn_search_wide_x10``: ``turn_search_x10`` searching twelve actions a turn instead of six
  (five of the best claims instead of two, more draws), clocks off: the *expert* level's
  two-player settings since 2026-11-29.
"""

from __future__ import annotations

from ttr_nordic.ai.expert import RolloutSearchAgent
from ttr_nordic.ai.registry import EXPERT_SETTINGS, TURN_SEARCH_SETTINGS


def registered(seed: int | None) -> RolloutSearchAgent:
    return RolloutSearchAgent(seed=seed, name="expert", **EXPERT_SETTINGS)


def turns_full(seed: int | None) -> RolloutSearchAgent:
    return RolloutSearchAgent(seed=seed, name="turns_full", search_turns=True, **EXPERT_SETTINGS)


def turns_value(seed: int | None) -> RolloutSearchAgent:
    return RolloutSearchAgent(seed=seed, name="turns_value", search_turns=True, horizon=24, **EXPERT_SETTINGS)


def turns_value_block(seed: int | None) -> RolloutSearchAgent:
    settings = dict(EXPERT_SETTINGS)
    return RolloutSearchAgent(
        seed=seed,
        name="turns_value_block",
        search_turns=True,
        horizon=24,
        block=True,
        ticket_inference=True,
        **settings,  # type: ignore[arg-type]
    )


#: The *expert* level as it was before 2026-11-29 (the Python caps, six actions a turn).
BEFORE_WIDE = {"core_rollout_scale": 1.0, "turn_candidates": 6, "core_turn_candidates": 6}


def _turn_search(seed: int | None, scale: float) -> RolloutSearchAgent:
    settings = {
        **TURN_SEARCH_SETTINGS,
        **BEFORE_WIDE,
        "core_rollout_scale": scale,
        "time_limit": None,
        "turn_time": None,
    }
    return RolloutSearchAgent(seed=seed, name=f"turn_search_x{scale:g}", **settings)  # type: ignore[arg-type]


def turn_search_x1(seed: int | None) -> RolloutSearchAgent:
    return _turn_search(seed, 1.0)


def turn_search_x10(seed: int | None) -> RolloutSearchAgent:
    return _turn_search(seed, 10.0)


def turn_search_full_x10(seed: int | None) -> RolloutSearchAgent:
    settings = {**TURN_SEARCH_SETTINGS, **BEFORE_WIDE, "horizon": 0, "core_full_rollout_scale": 10.0}
    settings.update(time_limit=None, turn_time=None)
    return RolloutSearchAgent(seed=seed, name="turn_search_full_x10", **settings)  # type: ignore[arg-type]


def turn_search_wide_x10(seed: int | None) -> RolloutSearchAgent:
    settings = {**TURN_SEARCH_SETTINGS, **BEFORE_WIDE, "core_rollout_scale": 10.0, "core_turn_candidates": 12}
    settings.update(time_limit=None, turn_time=None)
    return RolloutSearchAgent(seed=seed, name="turn_search_wide_x10", **settings)  # type: ignore[arg-type]

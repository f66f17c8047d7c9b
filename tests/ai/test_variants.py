"""Every registered agent plays a custom board and a variant with changed numbers to the end.

The search agents play with their cheapest settings (a few rollouts or iterations, no time
limit), which keeps the games fast and the same from run to run; the rules they search are
the game's own, read from the view.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ttr_nordic.ai.base import Agent, play_game
from ttr_nordic.ai.expert import RolloutSearchAgent
from ttr_nordic.ai.mcts import HeuristicAgent, MCTSAgent, PairedSearchAgent
from ttr_nordic.ai.registry import AGENTS, TURN_SEARCH_SETTINGS
from ttr_nordic.engine.variant import Variant, load_variant, variant_from_toml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"

# The search agents with their cheapest settings; the other registered agents are cheap as they are.
CHEAP: dict[str, object] = {
    "heuristic": lambda seed: HeuristicAgent(seed=seed),
    "ismcts": lambda seed: MCTSAgent(iterations=8, seed=seed, name="ismcts"),
    "paired": lambda seed: PairedSearchAgent(rollouts=8, max_candidates=3, seed=seed, name="paired"),
    "rollout_search": lambda seed: RolloutSearchAgent(
        ticket_rollouts=4, action_rollouts=2, keep_candidates=2, light_rollouts=True, seed=seed
    ),
    "turn_search": lambda seed: RolloutSearchAgent(
        **{
            **TURN_SEARCH_SETTINGS,
            "ticket_rollouts": 4,
            "action_rollouts": 2,
            "keep_candidates": 2,
            "turn_rollouts": 4,
            "time_limit": None,  # type: ignore[typeddict-item]
            "turn_time": None,  # type: ignore[typeddict-item]
        },
        seed=seed,
        name="turn_search",
    ),
}


def _agent(name: str, seed: int) -> Agent:
    factory = CHEAP.get(name, AGENTS[name])
    return factory(seed)  # type: ignore[operator,no-any-return]


def _variants() -> dict[str, Variant]:
    return {
        "small-board": load_variant(EXAMPLES / "small-board.toml"),
        "short-game": load_variant(EXAMPLES / "short-game.toml"),
        # More face-up slots than the official five, bigger ticket draws, a longer tunnel reveal.
        "wide-display": variant_from_toml(
            'name = "wide-display"\n[trains]\nper_player = 20\n[cards]\nface_up = 7\nlocomotive_flush = true\n'
            "[tickets]\ndrawn = 4\nkept = 2\n[claims]\ntunnel_reveal = 4\nferry_substitution = 4\n"
        ),
    }


VARIANTS = _variants()


def _check_finished(variant: Variant, players: int, names: list[str], seed: int) -> None:
    agents = [_agent(name, seed + i) for i, name in enumerate(names)]
    game = play_game(agents, seed=seed, variant=variant)
    assert game.is_over, names
    assert game.variant is variant
    # The game ran under the variant's numbers, and its record replays under them.
    assert len(game.display) == variant.face_up_cards
    assert all(0 <= t <= variant.trains_per_player for t in game.trains)
    replayed = game.record().replay()
    assert replayed.result() == game.result()


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.parametrize("players", [2, 3])
def test_every_agent_plays_a_custom_board_to_the_end(name: str, players: int) -> None:
    # The agent in every seat but one, the baseline Route Focus beside it.
    names = [name] + ["route_focus"] * (players - 1)
    _check_finished(VARIANTS["small-board"], players, names, seed=11 + players)


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_agent_plays_seven_face_up_cards_and_bigger_ticket_draws(name: str) -> None:
    _check_finished(VARIANTS["wide-display"], 2, [name, "route_focus"], seed=5)


@pytest.mark.parametrize("players", [2, 3])
def test_the_cheap_agents_play_changed_numbers_on_the_nordic_board(players: int) -> None:
    cheap = [name for name in sorted(AGENTS) if name not in CHEAP]
    for start in range(0, len(cheap), players):
        names = (cheap[start:] + cheap)[:players]
        _check_finished(VARIANTS["short-game"], players, names, seed=start)


def test_every_search_agent_has_cheap_settings_here() -> None:
    # A new search agent belongs in CHEAP (a registered agent absent from it must be fast as it is).
    assert set(CHEAP) <= set(AGENTS)
    assert {"ismcts", "paired", "rollout_search", "turn_search"} <= set(CHEAP)

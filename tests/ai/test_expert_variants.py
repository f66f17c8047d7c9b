"""benchmarks/expert_variants.py, small: every variant the documented ladder commands name builds
an agent that makes a legal decision where it searches, with the settings it says it has."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

from ttr_nordic import fast
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.engine import GameState

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
try:
    import expert_variants
finally:
    sys.path.pop(0)

VARIANTS = sorted(
    name
    for name, value in vars(expert_variants).items()
    if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == expert_variants.__name__
)


def position(seed: int, turns: int) -> GameState:
    state = GameState.new(players=2, seed=seed)
    agents = [RouteFocusAgent(seed=10 * seed + q) for q in range(2)]
    while state.turn < turns:
        player = state.current
        state.apply_unchecked(agents[player].choose(state.view(player), state.legal_action_list()))
    return state


def test_the_module_names_its_variants() -> None:
    assert {"registered", "turn_search_x1", "turn_search_x10", "turn_search_full_x10"} <= set(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_each_variant_decides_legally(name: str) -> None:
    state = position(3, 24)
    agent = getattr(expert_variants, name)(1)
    legal = state.legal_action_list()
    assert agent.choose(state.view(state.current), legal) in legal


def test_the_full_rollout_variant_plays_to_the_end_with_ten_times_the_caps_in_the_core() -> None:
    full = expert_variants.turn_search_full_x10(1)
    assert full.horizon == 0 and full.core_full_rollout_scale == 10.0
    assert full.turn_time is None and full.time_limit is None  # clocks off: the load changes nothing
    if not fast.AVAILABLE:
        pytest.skip("the compiled core is not built: the scale applies only to rollouts in the core")
    state = position(3, 30)
    full.choose(state.view(state.current), state.legal_action_list())
    # The cap is spread over the candidates as they are halved: a few may be left unused.
    assert full.searches and 9 * full.turn_rollouts < full.last_rollouts <= 10 * full.turn_rollouts

"""Route Focus in the core chooses, decision by decision, what the Python agents choose
(``RouteFocusAgent`` and the expert's rollout policy ``LightRouteFocus``), with the same seeds."""

from __future__ import annotations

import pytest

from ttr_nordic import fast
from ttr_nordic.ai.base import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

GAMES = 25


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("light", [False, True])
def test_core_route_focus_chooses_as_the_python_agent(players: int, light: bool) -> None:
    from ttr_nordic.fast.differential import compare_route_focus_game

    decisions = sum(compare_route_focus_game(players, seed, light=light) for seed in range(GAMES))
    assert decisions > 100 * GAMES


def test_play_route_focus_games_are_the_engine_benchmark_games() -> None:
    totals: list[int] = []
    actions = 0
    for seed in range(3, 9):
        game = play_game([RouteFocusAgent(seed=seed * 2 + seat) for seat in range(2)], seed=seed)
        totals += game.result().totals
        actions += len(game.history)
    assert fast.play_route_focus_games(2, 3, 6) == (actions, totals)

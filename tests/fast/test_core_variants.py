"""The core plays the official rules only: a game under any other variant stays on the engine
(the expert's rollouts, tournaments), while the official rules written out as a file still go
to the core."""

from __future__ import annotations

from pathlib import Path

import pytest

from ttr_nordic import fast
from ttr_nordic.engine import GameState
from ttr_nordic.engine.variant import load_variant
from ttr_nordic.sim.core_play import play_in_core
from ttr_nordic.sim.schedule import schedule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")


@pytest.mark.parametrize("name", ["short-game.toml", "small-board.toml"])
def test_a_variant_game_is_not_played_in_the_core(name: str) -> None:
    variant = load_variant(EXAMPLES / name)
    assert not fast.supports(GameState.new(players=2, seed=1, variant=variant))
    spec = schedule(["route_focus", "random"], players=2, games=1, seed=3, variant=variant)[0]
    assert spec.variant  # the rules travel with the spec, and the tournament plays them on the engine


def test_the_official_rules_from_a_file_are_played_in_the_core() -> None:
    official = load_variant(EXAMPLES / "official.toml")
    assert fast.supports(GameState.new(players=3, seed=1, variant=official))
    spec = schedule(["route_focus", "random"], players=2, games=1, seed=3)[0]
    played = play_in_core(spec)
    assert played is not None and played[0].is_over

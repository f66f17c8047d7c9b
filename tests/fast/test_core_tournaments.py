"""Tournament games whose seats the core plays (Route Focus, random) give the same rows as the
engine's agents: scores, records, route owners, everything but the clock."""

from __future__ import annotations

import dataclasses

import pytest

from ttr_nordic import fast
from ttr_nordic.sim.play import play_spec
from ttr_nordic.sim.schedule import schedule

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

CLOCK_FIELDS = ("time_total", "time_mean", "time_median", "time_max", "wall_s", "decision_times")


def rows(agents: list[str], players: int, monkeypatch: pytest.MonkeyPatch, core: bool) -> list[dict[str, object]]:
    with monkeypatch.context() as patch:
        if not core:
            patch.setattr(fast, "AVAILABLE", False)
        played = [play_spec(spec) for spec in schedule(agents, players=players, games=4, seed=21)]
    return [{k: v for k, v in dataclasses.asdict(row).items() if k not in CLOCK_FIELDS} for row in played]


@pytest.mark.parametrize(
    ("agents", "players"), [(["route_focus", "random"], 2), (["route_focus", "route_focus", "random"], 3)]
)
def test_core_tournament_games_are_the_engine_games(
    agents: list[str], players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ttr_nordic.sim import core_play

    calls = []
    real = core_play.play_in_core

    def counting(spec: object) -> object:
        result = real(spec)  # type: ignore[arg-type]
        calls.append(result is not None)
        return result

    monkeypatch.setattr("ttr_nordic.sim.play.play_in_core", counting)
    in_core = rows(agents, players, monkeypatch, core=True)
    assert calls and all(calls)  # these games were played in the core
    calls.clear()
    assert rows(agents, players, monkeypatch, core=False) == in_core
    assert not any(calls)


def test_other_agents_stay_on_the_engine() -> None:
    from ttr_nordic.sim.core_play import play_in_core

    spec = schedule(["route_focus", "long_route"], players=2, games=1, seed=2)[0]
    assert play_in_core(spec) is None

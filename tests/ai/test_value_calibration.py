"""Calibrated win chances: the seats' chances add up to 1, a rout reads as lost long before the end,
key moments credit the mover and judge ticket keeps by later moves, and the calibration file is
checked against the weights it was fitted for."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from ttr_nordic.ai.registry import make_agent
from ttr_nordic.ai.value.calibration import CALIBRATION_FILE, calibrated_chances, load_calibration, parse_calibration
from ttr_nordic.ai.value.curve import Curve, key_moments, replay_curve
from ttr_nordic.ai.value.data import DataConfig, generate
from ttr_nordic.ai.value.model import ValueModelError, load_model
from ttr_nordic.engine import Action, GameConfig, GameState

SHIPPED = Path(__file__).parents[2] / "src/ttr_nordic/ai/value" / CALIBRATION_FILE
SCRIPTS = Path(__file__).parents[2] / "scripts"


def play(config: GameConfig, agents: list[str]) -> tuple[GameState, list[Action]]:
    state = GameState.from_config(config)
    players = [make_agent(name, config.seed + seat) for seat, name in enumerate(agents)]
    actions: list[Action] = []
    while not state.is_over:
        seat = state.decision.player
        action = players[seat].choose(state.view(seat), state.legal_action_list())
        actions.append(action)
        state.apply(action, seat)
    return state, actions


@cache
def rout() -> tuple[GameState, list[Action], Curve]:
    """Route Focus (seat 0) against a player who moves at random (seat 1): a lopsided game."""
    config = GameConfig(2, seed=3, first_player=0)
    state, actions = play(config, ["route_focus", "random"])
    return state, actions, replay_curve(config, actions)


@pytest.mark.parametrize("players", [2, 3])
def test_the_seats_chances_add_up_to_one_at_every_step(players: int) -> None:
    config = GameConfig(players, seed=11)
    _, actions = play(config, ["route_focus", "one_step", "long_route"][:players])
    curve = replay_curve(config, actions)
    assert len(curve.chances) == len(actions) + 1 and len(curve.movers) == len(actions)
    for step in curve.chances:
        assert len(step) == players and abs(sum(step) - 1) < 1e-9 and all(0 <= p <= 1 for p in step)
    assert curve.chances[0] == pytest.approx([1 / players] * players)  # the deal: nothing known yet


def test_a_rout_reads_as_lost_long_before_the_end() -> None:
    state, _, curve = rout()
    totals = [p.total for p in state.result().players]
    assert totals[0] - totals[1] > 100  # a rout indeed
    last = len(curve.chances) - 1
    # From 60% of the game on, the loser's chance stays under 10%.
    assert all(step[1] < 0.10 for step in curve.chances[int(0.6 * last) : last])
    assert max(step[1] for step in curve.chances[int(0.6 * last) : last]) < 0.10


def test_key_moments_of_the_rout_credit_the_mover_and_judge_keeps_later() -> None:
    _, _, curve = rout()
    moments = key_moments(curve.chances, movers=curve.movers, keeps=curve.keeps)
    assert 1 <= len(moments) <= 5
    assert [abs(m.swing) for m in moments] == sorted((abs(m.swing) for m in moments), reverse=True)
    last = len(curve.chances) - 1
    for m in moments:
        assert curve.movers[m.step - 1] == m.player and 1 <= m.step < last
        assert m.before == curve.chances[m.step - 1][m.player] and m.after == curve.chances[m.until][m.player]
        if m.step in curve.keeps:
            # Judged after the keeper's next moves, never by the keep's own jump.
            later = [s for s in range(m.step + 1, m.until + 1) if curve.movers[s - 1] == m.player]
            assert m.until > m.step and len(later) >= 1
        else:
            assert m.until == m.step
    # The loser's keeps are not credited as gains: the tickets kept at random go badly.
    assert not any(m.player == 1 and m.step in curve.keeps and m.swing > 0.02 for m in moments)


def test_calibration_is_refused_for_other_weights_or_a_broken_file(tmp_path: Path) -> None:
    model = load_model()
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert set(data["maps"]) == {"2", "3"}
    parse_calibration(data, model)
    for change, message in [
        ({"weights": "0" * 16}, "other value weights"),
        ({"format": 99}, "format"),
        ({"inputs": ["margin"]}, "inputs"),
        ({"maps": {"2": {"bounds": [0.5], "coef": [[0.0]]}}}, "coef"),
        ({"maps": {"4": {}}}, "player counts"),
    ]:
        with pytest.raises(ValueModelError, match=message):
            parse_calibration({**data, **change}, model)
    broken = tmp_path / "calibration.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(ValueModelError, match="cannot read"):
        load_calibration(model, broken)


def test_chances_come_from_each_seats_own_view() -> None:
    state, _, curve = rout()
    replay = GameState.from_config(state.config)
    for action in state.history[:40]:
        replay.apply(action)
    views = [replay.view(p, log=False) for p in range(2)]
    assert calibrated_chances(views) == pytest.approx(curve.chances[40])


def test_the_calibration_script_fits_measures_and_writes_a_loadable_file(tmp_path: Path) -> None:
    """``scripts/value_calibration.py`` as a user runs it, on a few games of the site mix."""
    for players in (2, 3):
        list(generate(DataConfig(players=players, seed=3, shard_games=10, mix="site"), tmp_path / f"p{players}", 2))
    out, plot = tmp_path / "calibration.json", tmp_path / "plot.png"
    data = ["--data", f"2={tmp_path / 'p2'}", "--data", f"3={tmp_path / 'p3'}"]
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "value_calibration.py"), *data, "--out", str(out), "--plot", str(plot)],
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "2 players: fitted on 16 games, held out 4" in done.stdout
    assert "3 players: fitted on 16 games, held out 4" in done.stdout
    calibration = load_calibration(load_model(), out)
    assert set(calibration.coef) == {2, 3} and plot.stat().st_size > 10_000

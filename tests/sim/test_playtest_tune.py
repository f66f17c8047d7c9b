"""``ttr-nordic tune``: the search's outputs agree with each other and with the variant API, and bad flags."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from test_playtest import run_cli

from ttr_nordic.engine import load_board
from ttr_nordic.engine.variant import load_variant
from ttr_nordic.sim.playtest_tune import judge, scaled_points


def test_tune_writes_a_variant_the_engine_loads(tmp_path: Path) -> None:
    argv = ["tune", "--agents", "random,route_focus", "--players", "2", "--games", "4", "--scales", "0.5,1"]
    code, stdout, stderr = run_cli([*argv, "--rounds", "1", "--seed", "3", "--out", str(tmp_path)])
    assert code == 0, stderr
    assert stdout.strip() == str(tmp_path / "tuned-variant.json")
    with (tmp_path / "tune.csv").open(newline="") as handle:
        candidates = list(csv.DictReader(handle))
    # Two common scales, then (one round) each group's scale down and up: at most 6 distinct candidates.
    assert 2 <= len(candidates) <= 6
    official = [t.points for t in load_board().tickets]
    by_scale = {c["short_scale"]: c for c in candidates if c["stage"] == "common scale"}
    assert [int(p) for p in by_scale["1.0"]["points"].split()] == official
    assert [int(p) for p in by_scale["0.5"]["points"].split()] == [max(1, round(p * 0.5)) for p in official]
    best = min(candidates, key=lambda c: (float(c["miss"]), float(c["change"]), float(c["spread"])))
    assert float(by_scale["1.0"]["change"]) == 0 < float(by_scale["0.5"]["change"])
    variant = load_variant(tmp_path / "tuned-variant.json")
    assert [t.points for t in variant.board.tickets] == [int(p) for p in best["points"].split()]
    assert [c.name for c in variant.board.cities] == [c.name for c in load_board().cities]
    assert json.loads((tmp_path / "tune.json").read_text())["tolerance"] == 0.1
    page = (tmp_path / "tune.html").read_text()
    assert "Goal and result" in page and "validation/report.html" in page and "<script" not in page
    assert (tmp_path / "validation" / "report.html").exists()
    assert json.loads((tmp_path / "validation" / "playtest.json").read_text())["seed"] == 4  # fresh seeds


def test_scaling_and_judging() -> None:
    assert scaled_points((4, 8, 21), 0.5, 1.5, median=8) == (2, 4, 32)
    assert scaled_points((1, 2), 0.1, 0.1, median=1) == (1, 1)  # a ticket is worth at least 1
    rates = [{"win_rate": rate, "even_share": 1 / 3} for rate in (0.5, 0.3, 0.2)]
    miss, spread = judge(rates, 0.1)
    # 0.5 lies 0.067 above the band (1/3 ± 0.1), 0.3 inside it, 0.2 lies 0.033 below it.
    assert miss == pytest.approx((0.5 - 1 / 3 - 0.1) + (1 / 3 - 0.1 - 0.2)) and spread == pytest.approx(0.5 - 1 / 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random", "--tolerance", "0.7"], "must lie between 0 and 0.5"),
        (["--agents", "random", "--scales", "1,x"], "expected numbers separated by commas"),
        (["--agents", "random", "--scales", "0"], "each scale must lie between 0.05 and 20"),
        (["--agents", "random", "--step", "1"], "--step: must lie above 1"),
        (["--agents", "random", "--rounds", "-1"], "--rounds: must lie from 0 to 20"),
        (["--agents", "random", "--variant", "none.toml"], "--variant: none.toml: cannot read the file"),
        (["--players", "2"], "--agents"),
    ],
)
def test_bad_flags(argv: list[str], message: str, tmp_path: Path) -> None:
    code, _, stderr = run_cli(["tune", *argv, "--out", str(tmp_path / "out")])
    assert code == 2
    assert message in stderr.strip().splitlines()[-1]
    assert not (tmp_path / "out").exists()

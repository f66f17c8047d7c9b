"""benchmarks/decision_headroom.py, small: reads stored games and reports each decision kind."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from benchmark_script import run_benchmark
from ttr_nordic.ai import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent


def stored_game(tmp_path: Path) -> Path:
    """A records directory with one Route Focus game whose second seat is named ``rollout_search``
    (the benchmark measures that seat's decisions)."""
    records = tmp_path / "records"
    records.mkdir()
    game = play_game([RouteFocusAgent(seed=1), RouteFocusAgent(seed=2)], seed=5)
    record = dataclasses.replace(game.record(), meta={"names": ["route_focus", "rollout_search"]})
    record.save(records / "game-0.json")
    return records


def test_headroom_benchmark_reports_each_kind(tmp_path: Path) -> None:
    records = stored_game(tmp_path)
    done = run_benchmark(
        "decision_headroom.py", str(records), "--positions", "1", "--samples", "3", "--kinds", "setup,turn"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("setup bonus 20 positions   1  candidates ")
    assert "search " in lines[0]
    assert lines[1].startswith("turn  bonus 20 positions   1 ")
    assert "ceiling " in lines[1] and "search " in lines[1]


def test_headroom_benchmark_rejects_an_empty_directory(tmp_path: Path) -> None:
    done = run_benchmark("decision_headroom.py", str(tmp_path), timeout=60)
    assert done.returncode == 2
    assert "no game records" in done.stderr


def test_headroom_benchmark_filters_by_stage(tmp_path: Path) -> None:
    records = stored_game(tmp_path)
    command = ("decision_headroom.py", str(records), "--positions", "1", "--samples", "2", "--kinds", "turn")
    late = run_benchmark(*command, "--trains", "0-12")
    assert late.returncode == 0, late.stdout + late.stderr
    assert late.stdout.startswith("turn  bonus 20 positions   1 ")
    none = run_benchmark(*command, "--trains", "41-99", timeout=60)
    assert none.returncode == 0, none.stdout + none.stderr
    assert none.stdout.startswith("turn  no positions found")
    bad = run_benchmark(*command, "--trains", "14", timeout=60)
    assert bad.returncode == 2
    assert "expected LO-HI" in bad.stderr


def test_headroom_benchmark_takes_the_named_agents_decisions(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    game = play_game([RouteFocusAgent(seed=3), RouteFocusAgent(seed=4), RouteFocusAgent(seed=5)], seed=6)
    names = ["route_focus#1", "turn_search", "route_focus#2"]
    dataclasses.replace(game.record(), meta={"names": names}).save(records / "game-0.json")
    command = ("decision_headroom.py", str(records), "--positions", "1", "--samples", "2", "--kinds", "setup")
    named = run_benchmark(*command, "--agent", "turn_search")
    assert named.returncode == 0, named.stdout + named.stderr
    assert named.stdout.startswith("setup bonus 20 positions   1 ")
    default = run_benchmark(*command, timeout=60)  # no seat is named rollout_search
    assert default.returncode == 0, default.stdout + default.stderr
    assert default.stdout.startswith("setup no positions found")


def test_headroom_benchmark_ranks_by_each_bonus_and_saves_the_outcomes(tmp_path: Path) -> None:
    """A line per win bonus from the same samples; more ticket candidates extend the same
    samples (the first candidates' outcomes are unchanged); --save writes every outcome."""
    records = stored_game(tmp_path)
    command = ("decision_headroom.py", str(records), "--positions", "1", "--samples", "2", "--kinds", "setup")
    saved = {}
    for count in (3, 5):
        out = tmp_path / f"saved-{count}.json"
        done = run_benchmark(*command, "--bonus", "0,60", "--keep-candidates", str(count), "--save", str(out))
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("setup bonus 0 positions   1 ")
        assert lines[1].startswith("setup bonus 60 positions   1 ")
        assert f"candidates {count}.0 " in lines[0]
        saved[count] = json.loads(out.read_text())["setup"][0]
    assert [row[:3] for row in saved[5]["truth"]] == saved[3]["truth"]
    assert [row[:3] for row in saved[5]["view"]] == saved[3]["view"]
    bad = run_benchmark(*command, "--bonus", "lots", timeout=60)
    assert bad.returncode == 2
    assert "--bonus takes numbers" in bad.stderr


def test_headroom_benchmark_values_the_registered_experts_own_pick(tmp_path: Path) -> None:
    records = stored_game(tmp_path)
    command = ("decision_headroom.py", str(records), "--positions", "1", "--samples", "2", "--kinds", "setup")
    done = run_benchmark(*command, "--expert-horizons", "24")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " expert_h24 " in done.stdout and "(1)" in done.stdout
    bad = run_benchmark(*command, "--expert-horizons", "1.5", timeout=60)
    assert bad.returncode == 2
    assert "--expert-horizons takes H or H:N" in bad.stderr

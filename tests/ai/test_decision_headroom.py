"""benchmarks/decision_headroom.py, small: reads stored games and reports each decision kind."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from ttr_nordic.ai import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "decision_headroom.py"


def test_headroom_benchmark_reports_each_kind(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    game = play_game([RouteFocusAgent(seed=1), RouteFocusAgent(seed=2)], seed=5)
    record = dataclasses.replace(game.record(), meta={"names": ["route_focus", "rollout_search"]})
    record.save(records / "game-0.json")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(records), "--positions", "1", "--samples", "3", "--kinds", "setup,turn"],
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("setup positions   1 candidates ")
    assert "search " in lines[0]
    assert lines[1].startswith("turn  positions   1 ")
    assert "ceiling " in lines[1] and "search " in lines[1]


def test_headroom_benchmark_rejects_an_empty_directory(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "no game records" in done.stderr


def test_headroom_benchmark_filters_by_stage(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    game = play_game([RouteFocusAgent(seed=1), RouteFocusAgent(seed=2)], seed=5)
    record = dataclasses.replace(game.record(), meta={"names": ["route_focus", "rollout_search"]})
    record.save(records / "game-0.json")
    command = [sys.executable, str(SCRIPT), str(records), "--positions", "1", "--samples", "2", "--kinds", "turn"]
    late = subprocess.run([*command, "--trains", "0-12"], capture_output=True, text=True, timeout=240)
    assert late.returncode == 0, late.stdout + late.stderr
    assert late.stdout.startswith("turn  positions   1 ")
    none = subprocess.run([*command, "--trains", "41-99"], capture_output=True, text=True, timeout=60)
    assert none.returncode == 0, none.stdout + none.stderr
    assert none.stdout.startswith("turn  no positions found")
    bad = subprocess.run([*command, "--trains", "14"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "expected LO-HI" in bad.stderr

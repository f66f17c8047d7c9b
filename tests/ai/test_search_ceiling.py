"""benchmarks/search_ceiling.py, small: plays its modes and logs each game's row."""

from __future__ import annotations

import json
from pathlib import Path

from benchmark_script import run_benchmark


def test_search_ceiling_plays_each_mode_and_logs_rows(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    done = run_benchmark(
        "search_ceiling.py", "--games", "1", "--modes", "view,revealed", "--rollouts", "2", "--workers", "1",
        "--rows", str(rows), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["view", "revealed"]
    assert all(" games 1 wins " in line for line in lines)
    logged = [json.loads(line) for line in rows.read_text().splitlines()]
    assert sorted(row["mode"] for row in logged) == ["revealed", "view"]
    assert all(row["score"] >= -200 and isinstance(row["won"], bool) for row in logged)


def test_search_ceiling_rejects_an_unknown_mode() -> None:
    done = run_benchmark("search_ceiling.py", "--modes", "oracle", timeout=60)
    assert done.returncode == 2
    assert "unknown mode" in done.stderr


def test_search_ceiling_plays_three_player_games(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    command = ["--games", "1", "--players", "3", "--modes", "revealed", "--rollouts", "2", "--workers", "1"]
    done = run_benchmark("search_ceiling.py", *command, "--rows", str(rows), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("revealed  games 1 wins ")
    (row,) = [json.loads(line) for line in rows.read_text().splitlines()]
    assert row["seat"] == 0 and row["mode"] == "revealed"

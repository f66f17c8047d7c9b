"""benchmarks/search_ceiling.py, small: plays its modes and logs each game's row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "search_ceiling.py"


def test_search_ceiling_plays_each_mode_and_logs_rows(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    command = [sys.executable, str(SCRIPT), "--games", "1", "--modes", "view,revealed", "--rollouts", "2"]
    done = subprocess.run(
        [*command, "--workers", "1", "--rows", str(rows)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["view", "revealed"]
    assert all(" games 1 wins " in line for line in lines)
    logged = [json.loads(line) for line in rows.read_text().splitlines()]
    assert sorted(row["mode"] for row in logged) == ["revealed", "view"]
    assert all(row["score"] >= -200 and isinstance(row["won"], bool) for row in logged)


def test_search_ceiling_rejects_an_unknown_mode() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--modes", "oracle"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "unknown mode" in done.stderr

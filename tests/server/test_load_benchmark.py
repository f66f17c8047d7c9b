"""benchmarks/server_load.py, small: a few games over real sockets, kill -9, nothing lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "server_load.py"


def test_load_benchmark_runs_and_loses_nothing() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "3", "--actions", "6", "--kill-after", "0.5"],
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "errors 0" in lines
    assert lines[-1] == "lost_actions 0"
    assert any(line.startswith("latency_ms p50 ") for line in lines)

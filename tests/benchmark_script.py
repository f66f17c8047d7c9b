"""Running a benchmark script the way a user does, for the benchmarks' small tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def run_benchmark(script: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Runs ``benchmarks/<script>`` with ``args`` in a fresh interpreter, no input, output
    captured as text."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )

"""The render benchmark runs as a user runs it: it plays a few turns in Chromium, times state
updates with the Performance API and finds no request outside the server."""

from __future__ import annotations

import re

from benchmark_script import run_benchmark

from .conftest import chromium_path


def test_render_speed_benchmark_prints_its_figures() -> None:
    chromium_path()  # skips (or fails under CI) without Chromium
    done = run_benchmark("render_speed.py", "--repeat", "60", "--turns", "2", timeout=180)
    assert done.returncode == 0, done.stderr
    assert "60 timed updates" in done.stdout
    figures = re.search(r"render ms: median ([\d.]+), p90 ([\d.]+), slowest ([\d.]+)", done.stdout)
    assert figures, done.stdout
    median, p90, slowest = (float(x) for x in figures.groups())
    assert 0 < median <= p90 <= slowest
    # The target is 16 ms (about 7 ms measured); the bound here is looser because the test
    # machine is shared with other test runs, yet a render gone slow still fails it.
    assert median < 40, done.stdout
    assert "requests outside the server: 0" in done.stdout

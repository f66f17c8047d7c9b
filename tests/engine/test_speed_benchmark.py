"""The engine speed benchmark runs as documented and prints its figures (not a timed test)."""

from __future__ import annotations

import re

from benchmark_script import run_benchmark


def test_engine_speed_prints_a_rate_per_run_and_the_median() -> None:
    done = run_benchmark("engine_speed.py", "--games", "4", "--runs", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "gc.freeze() before each run" in lines[0]
    runs = [line for line in lines if line.startswith("run ")]
    assert len(runs) == 3
    rates = [float(re.search(r"([\d.]+) games/s", line).group(1)) for line in runs]  # type: ignore[union-attr]
    assert all(rate > 0 for rate in rates)
    last = lines[-1].split()
    assert last[0] == "games_per_second"
    assert float(last[1]) == sorted(rates)[1]  # the median of the three runs, as printed (one decimal)


def test_engine_speed_without_freeze_and_bad_arguments() -> None:
    done = run_benchmark("engine_speed.py", "--games", "2", "--runs", "1", "--no-freeze", "--players", "3")
    assert done.returncode == 0, done.stderr
    assert "no gc.freeze" in done.stdout.splitlines()[0]
    refused = run_benchmark("engine_speed.py", "--games", "0")
    assert refused.returncode == 2
    assert "--games and --runs must be at least 1" in refused.stderr


def test_engine_speed_plays_route_focus_games() -> None:
    done = run_benchmark("engine_speed.py", "--policy", "route_focus", "--games", "2", "--runs", "1")
    assert done.returncode == 0, done.stderr
    assert "route focus 2-player games" in done.stdout.splitlines()[0]
    assert float(done.stdout.splitlines()[-1].split()[1]) > 0

"""The core is optional: without it (or with TTR_NORDIC_PURE_PYTHON set) everything runs on the
Python engine, and the benchmark says which one it measured."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from benchmark_script import run_benchmark
from ttr_nordic import fast


@pytest.mark.skipif(bool(os.environ.get("TTR_NORDIC_PURE_PYTHON")), reason="the core is turned off on purpose")
def test_the_core_is_built() -> None:
    # Where it is not, every comparison in tests/fast would be skipped: a silent pass.
    assert fast.AVAILABLE, "the compiled core is not built: python hatch_build.py"


def test_pure_python_turns_the_core_off_with_a_clear_error() -> None:
    code = (
        "from ttr_nordic import fast\n"
        "assert not fast.AVAILABLE\n"
        "try:\n"
        "    fast.FastGame.new(2, 1)\n"
        "except RuntimeError as err:\n"
        "    print(err)\n"
    )
    env = {**os.environ, "TTR_NORDIC_PURE_PYTHON": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "the compiled core is not available (TTR_NORDIC_PURE_PYTHON is set; build it with: python hatch_build.py)"
    )


@pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")
def test_engine_speed_measures_the_core_by_default_and_python_on_request() -> None:
    done = run_benchmark("engine_speed.py", "--games", "50", "--runs", "3", "--cpu-time")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "the compiled core; CPU time" in lines[0]
    assert lines[-1].startswith("games_per_second ") and float(lines[-1].split()[1]) > 0
    python = run_benchmark("engine_speed.py", "--games", "2", "--runs", "1", "--engine", "python")
    assert python.returncode == 0, python.stderr
    assert "the Python engine" in python.stdout.splitlines()[0]
    assert "us per legal_action_list" in python.stdout


def test_engine_speed_falls_back_to_python_without_the_core() -> None:
    env = {**os.environ, "TTR_NORDIC_PURE_PYTHON": "1"}
    script = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "engine_speed.py")
    done = subprocess.run(
        [sys.executable, script, "--games", "2", "--runs", "1"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "the Python engine" in done.stdout.splitlines()[0]
    refused = subprocess.run(
        [sys.executable, script, "--engine", "core"], capture_output=True, text=True, env=env, timeout=120
    )
    assert refused.returncode == 2
    assert "the compiled core is not available" in refused.stderr


def test_batched_speed_prints_the_median() -> None:
    done = run_benchmark("batched_speed.py", "--envs", "4", "--steps", "5", "--runs", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    runs = [float(line.split()[2]) for line in lines if line.startswith("run ")]
    assert len(runs) == 3
    assert lines[-1] == f"steps_per_second {sorted(runs)[1]:.0f}"
    refused = run_benchmark("batched_speed.py", "--envs", "0")
    assert refused.returncode == 2

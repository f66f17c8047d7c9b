"""Every environment's API checks also pass on the Python fallback of the C encoder
(``TTR_NORDIC_PURE_PYTHON=1``): run in a subprocess, since the choice is made at import."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API_TESTS = "api or seed or check_env or masked or random_sim or every_wrapper or fast_paths or round_trips"


def pure_env() -> dict[str, str]:
    return {**os.environ, "TTR_NORDIC_PURE_PYTHON": "1"}


def test_the_fallback_is_what_runs_when_asked_for() -> None:
    code = (
        "from ttr_nordic.rl import actions, observation\n"
        "assert not observation.ACCELERATED and actions._MARK is None\n"
        "print('pure')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=pure_env(), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pure"


def test_environment_api_checks_pass_on_the_python_encoder() -> None:
    files = [f"tests/rl/{name}" for name in ("test_envs.py", "test_gym_frameworks.py", "test_parallel.py")]
    files.append("tests/rl/test_openspiel.py")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *files, "-k", API_TESTS, "-n", "0", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=pure_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed is not None and int(passed.group(1)) >= 12, done.stdout[-500:]

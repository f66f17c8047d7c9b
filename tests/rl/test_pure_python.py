"""Every environment's API checks also pass on the Python fallback (``TTR_NORDIC_PURE_PYTHON=1``:
the Python engine instead of the compiled core, the Python encoder instead of the C one): run in
a subprocess, since the choice is made at import. In this process they run on the core."""

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
        "from ttr_nordic.rl import actions, aec_env, observation, parallel_env, TTRNordicGym\n"
        "assert not observation.ACCELERATED and actions._MARK is None\n"
        "assert not aec_env().compiled and not parallel_env().compiled and not TTRNordicGym(('random',)).compiled\n"
        "try:\n"
        "    aec_env(compiled=True)\n"
        "except RuntimeError as err:\n"
        "    print(err)\n"
        "print('pure')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=pure_env(), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "the compiled core is not available (build it: python hatch_build.py)",
        "pure",
    ]


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

"""The examples and the speed benchmark run (briefly) and print what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ttr_nordic import fast
from ttr_nordic.rl import openspiel_native

ROOT = Path(__file__).resolve().parents[2]
NATIVE_BUILT = openspiel_native.is_built()  # make test builds it: then rl_speed.py times it too


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / script), *args], capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_masked_random_rollout() -> None:
    out = run("examples/masked_random_rollout.py", "--players", "3", "--games", "1")
    assert "game 0:" in out and "final margins" in out


def test_openspiel_tournament_with_ismcts_and_random() -> None:
    out = run("examples/openspiel_tournament.py", "--bot", "random", "--games", "2")
    assert "random vs route_focus:" in out and "of 2" in out
    out = run("examples/openspiel_tournament.py", "--bot", "ismcts", "--games", "1", "--simulations", "2")
    assert "ismcts vs route_focus:" in out and "of 1" in out


def test_selfplay_linear() -> None:
    out = run("examples/selfplay_linear.py", "--minutes", "0.05", "--eval-games", "2")
    assert "before training: won" in out and "self-play games: won" in out


def test_rl_speed_benchmark_prints_env_steps_last() -> None:
    out = run("benchmarks/rl_speed.py", "--steps", "200", "--runs", "1")
    lines = out.strip().splitlines()
    assert lines[-1].startswith("env_steps_per_second ") and float(lines[-1].split()[1]) > 0
    assert any(line.startswith("ratio_pettingzoo ") for line in lines)
    assert any(line.startswith("mask_to_ids_us ") for line in lines)
    if fast.AVAILABLE:  # the wrappers step the core, and each is compared with it
        assert lines[0].startswith("wrappers step the compiled core")
        names = ["pettingzoo", "parallel", "parallel_floor", "gymnasium", "openspiel", "openspiel_engine"]
        names += ["openspiel_floor"] + (["openspiel_native", "openspiel_native_bots"] if NATIVE_BUILT else [])
        for name in names:
            assert any(line.startswith(f"ratio_{name}_core ") for line in lines), name


def test_mask_to_ids_benchmark_prints_every_way() -> None:
    out = run("benchmarks/mask_to_ids.py", "--calls", "16", "--runs", "1")
    names = [line.split()[0] for line in out.strip().splitlines()]
    assert sorted(names) == sorted(
        f"{way}_ns"
        for way in ("bool_view_nonzero", "int8_nonzero", "flatnonzero_bool", "compress", "index_bool", "info_ids")
    )
    assert bad_args_refused("benchmarks/mask_to_ids.py", "--runs", "0")


def bad_args_refused(script: str, *args: str) -> bool:
    done = subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True, text=True, check=False)
    return done.returncode == 2 and "must be positive" in done.stderr


def test_torch_examples_run_where_the_train_sb3_extra_is_installed() -> None:
    """The MaskablePPO and NFSP examples need the ``train-sb3`` extra (torch), which the test
    environment leaves out; where it is installed they run a tiny budget here."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("tree")
    out = run("examples/maskable_ppo.py", "--timesteps", "512", "--checkpoints", "1", "--eval-games", "2")
    assert out.splitlines()[0].split() == ["timesteps", "minutes", "train_margin", "eval_win_rate", "eval_margin"]
    out = run("examples/openspiel_nfsp.py", "--episodes", "2", "--eval-games", "2")
    assert "after training: average policy won" in out


def test_rl_speed_measures_the_engine_without_the_core() -> None:
    """With ``TTR_NORDIC_PURE_PYTHON=1`` the wrappers step the Python engine, the core runner is
    left out and asking for the core is refused."""
    import os

    env = {**os.environ, "TTR_NORDIC_PURE_PYTHON": "1"}
    script = str(ROOT / "benchmarks" / "rl_speed.py")
    done = subprocess.run(
        [sys.executable, script, "--steps", "100", "--runs", "1", "--only", "engine", "pettingzoo", "gymnasium"],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("wrappers step the Python engine")
    assert not any("_core " in line or line.startswith("core_") for line in lines)
    refused = subprocess.run(
        [sys.executable, script, "--engine", "core"], capture_output=True, text=True, env=env, timeout=240, check=False
    )
    assert refused.returncode == 2 and "the compiled core is not available" in refused.stderr

"""The batched environment: the compiled core and the Python engine give the same arrays, and
the arrays are the other environments' encoding (observation.py, actions.py) of the same games."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from ttr_nordic import fast
from ttr_nordic.engine import GameState
from ttr_nordic.rl.actions import action_space
from ttr_nordic.rl.batched import BatchedEnv
from ttr_nordic.rl.observation import encode_view

needs_core = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")


def trajectory(
    compiled: bool, players: int, reward: str, steps: int, opponent: str = "random"
) -> list[tuple[np.ndarray, ...]]:
    env = BatchedEnv(6, players=players, seat=1, seed=40, reward=reward, compiled=compiled, opponent=opponent)
    obs, masks = env.reset()
    out = [(obs.copy(), masks.copy())]
    for step in range(steps):
        obs, rewards, dones, masks = env.step(env.sample(step))
        out.append((obs.copy(), masks.copy(), rewards.copy(), dones.copy()))
    return out


@needs_core
@pytest.mark.parametrize(
    ("players", "reward", "opponent", "steps"),
    [(2, "margin", "random", 250), (3, "win", "random", 250), (2, "win", "route_focus", 200)],
)
def test_core_and_engine_give_the_same_arrays(players: int, reward: str, opponent: str, steps: int) -> None:
    core = trajectory(True, players, reward, steps, opponent)
    engine = trajectory(False, players, reward, steps, opponent)
    finished = 0
    for step, (ours, theirs) in enumerate(zip(core, engine, strict=True)):
        for a, b in zip(ours, theirs, strict=True):
            assert np.array_equal(a, b), f"step {step}"
        if len(ours) == 4:
            finished += int(ours[3].sum())
            assert (ours[2][ours[3] == 0] == 0).all()  # rewards only at the end
    assert finished >= 3  # episodes ended and restarted on the way


@needs_core
def test_rows_are_the_views_encoding_and_the_legal_ids() -> None:
    env = BatchedEnv(3, players=3, seat=2, seed=7, record=True)
    space = action_space()
    obs, masks = env.reset()
    for step in range(120):
        for index in range(env.num_envs):
            seed, actions = env.episode(index)
            game = GameState.new(players=3, seed=seed)
            for action in actions:
                game.apply(action)
            assert game.current == 2
            assert np.array_equal(obs[index], encode_view(game.view(2))), (step, index)
            ids, _ = space.legal_id_list(game)
            assert np.flatnonzero(masks[index]).tolist() == sorted(ids)
        obs, _, _, masks = env.step(env.sample(step))


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=needs_core), False])
def test_an_illegal_id_is_refused_and_changes_nothing(compiled: bool) -> None:
    env = BatchedEnv(2, seed=5, compiled=compiled)
    obs, masks = env.reset()
    before = obs.copy(), masks.copy()
    actions = env.sample(0)
    actions[1] = int(np.flatnonzero(masks[1] == 0)[0])
    with pytest.raises(ValueError, match=r"environment 1: action \d+ is not legal now"):
        env.step(actions)
    assert np.array_equal(obs, before[0]) and np.array_equal(masks, before[1])
    with pytest.raises(ValueError, match="one id per game"):
        env.step(actions[:1])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        BatchedEnv(0)
    with pytest.raises(ValueError, match="opponent"):
        BatchedEnv(1, opponent="expert")
    with pytest.raises(ValueError, match="seed"):
        BatchedEnv(1, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        BatchedEnv(1, seed=2**64)
    with pytest.raises(ValueError, match="seat"):
        BatchedEnv(1, players=2, seat=2)
    with pytest.raises(ValueError, match="reward"):
        BatchedEnv(1, reward="score")


def test_runs_on_the_python_engine_without_the_core() -> None:
    code = (
        "from ttr_nordic.rl.batched import BatchedEnv\n"
        "env = BatchedEnv(2, seed=3)\n"
        "assert not env.compiled\n"
        "obs, masks = env.reset()\n"
        "for step in range(40):\n"
        "    obs, rewards, dones, masks = env.step(env.sample(step))\n"
        "print(obs.shape, masks.shape)\n"
    )
    env = {**os.environ, "TTR_NORDIC_PURE_PYTHON": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"(2, {encode_view(GameState.new(2, 0).view(0)).size}) (2, {action_space().size})"

"""What frameworks need of the Gymnasium environment: a small ``info``, ``action_masks()``, a flat
observation, opponents given as policies, and a clear error when the ``rl`` extra is missing."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
import warnings
from collections.abc import Sequence

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ttr_nordic.rl  # noqa: F401  (registers TTRNordic-v0)
from ttr_nordic.engine import Action, PlayerView
from ttr_nordic.rl import IdPolicy, encode_view


def test_info_is_small_unless_the_view_is_asked_for() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["random"])
    obs, info = env.reset(seed=1)
    assert info == {"seat": 0}
    obs, _reward, _done, _truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert info == {"seat": 0}
    assert len(copy.deepcopy(info)) == 1  # what Stable-Baselines3 copies every step


def test_flat_observations_pass_check_env_and_masks_come_from_action_masks() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["route_focus"], flat=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    assert isinstance(env.observation_space, gymnasium.spaces.Box)
    obs, _info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done, steps = False, 0
    while not done:
        assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
        state = env.unwrapped.state
        assert np.array_equal(obs, encode_view(state.view(env.unwrapped.seat, log=False)))
        mask = env.unwrapped.action_masks()
        assert np.flatnonzero(mask).tolist() == sorted(env.unwrapped.space.legal_ids(state))
        obs, _reward, done, _truncated, _info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps > 20 and env.unwrapped.state.is_over


def test_dict_observations_mask_equals_action_masks() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["random", "random"], seat=None)
    obs, _info = env.reset(seed=8)
    for _ in range(30):
        assert np.array_equal(obs["action_mask"], env.unwrapped.action_masks())
        obs, _reward, done, _truncated, _info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        if done:
            break


class Counting:
    """A plain callable policy that records how often it was asked."""

    def __init__(self) -> None:
        self.calls = 0
        self.rng = random.Random(0)

    def __call__(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.calls += 1
        assert isinstance(view, PlayerView) and view.player != 0
        return legal[self.rng.randrange(len(legal))]


def test_opponents_as_callables_id_policies_and_registry_names() -> None:
    plain = Counting()
    seen: list[int] = []

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
        assert obs.dtype == np.float32 and mask.dtype == np.int8
        seen.append(int(mask.sum()))
        return int(np.flatnonzero(mask)[0])

    env = gymnasium.make("TTRNordic-v0", opponents=[plain, IdPolicy(first_legal)], seat=0, flat=True)
    _obs, _info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    done = False
    while not done:
        _obs, _reward, done, _truncated, _info = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
    assert plain.calls > 20 and len(seen) > 20 and min(seen) >= 1

    illegal = IdPolicy(lambda obs, mask: int(np.flatnonzero(mask == 0)[0]))
    bad = gymnasium.make("TTRNordic-v0", opponents=[illegal], seat=1)
    # The opponent moves at the reset or, at the latest, after the learner's first move.
    with pytest.raises(ValueError, match=r"chose \d+, which is not legal now"):
        obs, _info = bad.reset(seed=1)
        bad.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(TypeError, match="registry name, an agent or a callable"):
        gymnasium.make("TTRNordic-v0", opponents=[42])
    with pytest.raises(ValueError, match="route_fokus"):
        gymnasium.make("TTRNordic-v0", opponents=["route_fokus"])


def test_importing_rl_without_the_extra_names_the_extra() -> None:
    """With gymnasium hidden from the import system, the error is one line naming the extra."""
    code = (
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'gymnasium':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import ttr_nordic.rl\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "ModuleNotFoundError: ttr_nordic.rl needs the 'rl' extra (gymnasium is missing): pip install 'ttr-nordic[rl]'"
    )

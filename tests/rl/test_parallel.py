"""The parallel environment: PettingZoo's own checks, the turn-based rules of the wrapper."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test

from ttr_nordic.rl import aec_env, parallel
from ttr_nordic.rl.parallel import parallel_env


def test_max_cycles() -> None:
    max_cycles_test(parallel)


@pytest.mark.parametrize("max_cycles", [None, 50])
def test_the_aec_form_passes_the_aec_api_test(max_cycles: int | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(parallel.env(players=3, max_cycles=max_cycles), num_cycles=300)


@pytest.mark.parametrize("players", [2, 3])
def test_parallel_api(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(players=players), num_cycles=1000)


def test_a_masked_game_matches_the_aec_environment_move_for_move() -> None:
    """Same seed, same choices: the parallel game is the AEC game, one decision a step."""
    par = parallel_env(players=3)
    aec = aec_env(players=3)
    observations, infos = par.reset(seed=11)
    aec.reset(seed=11)
    rng = np.random.default_rng(2)
    steps = 0
    while par.agents:
        mover = infos["player_0"]["active_agent"]
        assert mover == aec.agent_selection
        for agent in par.agents:
            np.testing.assert_array_equal(observations[agent]["observation"], aec.observe(agent)["observation"])
            assert observations[agent]["action_mask"].any() == (agent == mover)
        choice = int(rng.choice(np.flatnonzero(observations[mover]["action_mask"])))
        # The others send ids that would be illegal for them: ignored.
        actions = {agent: choice if agent == mover else 0 for agent in par.agents}
        observations, rewards, terminations, truncations, infos = par.step(actions)
        aec.step(choice)
        steps += 1
        assert not any(truncations.values())
    assert steps > 100
    assert all(terminations.values())
    assert rewards == {agent: aec.rewards[agent] for agent in aec.possible_agents}
    assert par.state is not None and par.state.history == aec.unwrapped.state.history


def test_an_illegal_id_is_a_no_op_or_raises() -> None:
    par = parallel_env(players=2)
    observations, infos = par.reset(seed=3)
    mover = infos["player_0"]["active_agent"]
    assert par.state is not None
    before = par.state.clone()
    illegal = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
    observations, rewards, _term, _trunc, infos = par.step(dict.fromkeys(par.agents, illegal))
    assert infos[mover]["illegal_action"] and infos[mover]["active_agent"] == mover
    assert not any(info["illegal_action"] for agent, info in infos.items() if agent != mover)
    assert par.state.history == before.history and par.state.hands == before.hands
    assert rewards == dict.fromkeys(par.agents, 0.0)

    strict = parallel_env(players=2, illegal="raise")
    strict.reset(seed=3)
    with pytest.raises(ValueError, match="not legal now"):
        strict.step(dict.fromkeys(strict.agents, illegal))
    assert strict.state is not None and strict.state.history == []
    with pytest.raises(ValueError, match="the agent to decide"):
        strict.step({})


def test_max_cycles_truncates_every_agent() -> None:
    par = parallel_env(players=3, max_cycles=5)
    observations, infos = par.reset(seed=1)
    for step in range(5):
        assert par.agents
        mover = infos["player_0"]["active_agent"]
        choice = int(np.flatnonzero(observations[mover]["action_mask"])[0])
        observations, _rewards, terminations, truncations, infos = par.step({a: choice for a in par.agents})
        assert all(truncations.values()) == (step == 4)
        assert not any(terminations.values())
    assert par.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        par.step({})


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="2 or 3 players"):
        parallel_env(players=1)
    with pytest.raises(ValueError, match="max_cycles"):
        parallel_env(max_cycles=0)
    with pytest.raises(ValueError, match="illegal"):
        parallel_env(illegal="ignore")

"""PettingZoo and Gymnasium environments pass their libraries' own checks."""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence

import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from ttr_nordic.engine import Action, PlayerView
from ttr_nordic.engine.view import StepView
from ttr_nordic.rl import aec_env, encode_view, parallel_env  # the package registers TTRNordic-v0
from ttr_nordic.rl.openspiel import play_chance  # importing it registers ttr_nordic


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_api(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec_env(players=players), num_cycles=400)


def test_pettingzoo_seed() -> None:
    seed_test(lambda **kw: aec_env(players=3, **kw), num_cycles=300)


@pytest.mark.parametrize("reward", ["margin", "win"])
def test_masked_random_games_end_with_rewards(reward: str) -> None:
    env = aec_env(players=2, reward=reward, render_mode="ansi")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward_now, term, trunc, _ = env.last()
        totals[agent] += reward_now
        if term or trunc:
            env.step(None)
            continue
        assert reward_now == 0.0
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 50
    state = env.unwrapped.state
    assert state.is_over
    scores = [p.total for p in state.result().players]
    if reward == "margin":
        assert totals["player_0"] == scores[0] - scores[1] == -totals["player_1"]
    else:
        assert sorted(totals.values()) in ([-1.0, 1.0], [1.0, 1.0])
    assert "player 0: score" in env.render()


def test_pettingzoo_refuses_an_illegal_action_and_changes_nothing() -> None:
    env = aec_env(players=2)
    env.reset(seed=1)
    before = env.unwrapped.state.clone()
    with pytest.raises(ValueError, match="not legal now"):
        env.step(env.unwrapped.space.blind)
    assert env.unwrapped.state.log == before.log
    with pytest.raises(ValueError, match="2 or 3 players"):
        aec_env(players=4)


def test_gymnasium_check_env_and_a_masked_episode() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["route_focus"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, _info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    done, reward = False, 0.0
    while not done:
        obs, reward, done, _truncated, _info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.state
    scores = [p.total for p in state.result().players]
    assert reward == scores[0] - scores[1]


def test_gymnasium_make_gives_the_environment_itself_which_refuses_a_step_before_reset() -> None:
    """Registered without OrderEnforcing and PassiveEnvChecker (their forwarding costs a tenth of a
    step): the environment makes the order check itself; the checker comes back when asked for."""
    env = gymnasium.make("TTRNordic-v0", opponents=["random"])
    assert env is env.unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ResetNeeded):  # what OrderEnforcing raised
        env.step(0)
    assert env.render() is None
    checked = gymnasium.make("TTRNordic-v0", opponents=["random"], disable_env_checker=False)
    assert type(checked).__name__ == "PassiveEnvChecker"
    obs, _info = checked.reset(seed=2)
    checked.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_gymnasium_info_holds_the_step_view_and_the_full_view_comes_on_request() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["random", "random"], seat=2, info_view=True)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.view()
    obs, info = env.reset(seed=7)
    rng = random.Random(7)
    for _ in range(40):
        full = env.unwrapped.view()
        assert full == env.unwrapped.state.view(2)
        assert {name: getattr(info["view"], name) for name in StepView.__slots__} == {
            name: getattr(full, name) for name in StepView.__slots__
        }
        obs, _reward, done, _truncated, info = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if done:
            break
    assert len(env.unwrapped.view().log) > 40  # the learner's decisions and the opponents'


class RecordingAgent:
    """A uniform random opponent that records what the environment gave it."""

    name = "recording"

    def __init__(self, seed: int | None, reads_log: bool, lazy: bool) -> None:
        self.rng = random.Random(seed)
        self.reads_log = reads_log
        self.accepts_legal_sequence = lazy
        self.logs: list[int] = []
        self.listings: set[str] = set()

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.logs.append(len(view.log))
        self.listings.add(type(legal).__name__)
        return legal[self.rng.randrange(len(legal))]


def lazy_reader(seed: int | None) -> RecordingAgent:
    return RecordingAgent(seed, reads_log=False, lazy=True)


def log_reader(seed: int | None) -> RecordingAgent:
    return RecordingAgent(seed, reads_log=True, lazy=False)


def test_gymnasium_serves_opponents_as_play_game_does() -> None:
    """Views without the log and the lazy legal sequence go only to opponents that ask for them."""
    env = gymnasium.make("TTRNordic-v0", opponents=[f"{__file__}:lazy_reader", f"{__file__}:log_reader"], seat=0)
    obs, _info = env.reset(seed=3)
    rng = random.Random(3)
    done = False
    while not done:
        obs, _reward, done, _truncated, _info = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    lazy, reader = env.unwrapped._opponents[1], env.unwrapped._opponents[2]
    assert env.unwrapped.state.is_over and len(lazy.logs) > 30 and len(reader.logs) > 30
    assert set(lazy.logs) == {0} and "LegalSequence" in lazy.listings
    assert max(reader.logs) > 100 and reader.listings == {"list"}


def test_gymnasium_three_players_and_illegal_ids() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["random", "one_step"], seat=None, on_illegal="raise")
    obs, _info = env.reset(seed=5)
    with pytest.raises(ValueError, match="not legal now"):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(ValueError, match="action ids are 0 to"):
        env.step(10**6)
    with pytest.raises(ValueError):
        gymnasium.make("TTRNordic-v0", opponents=["no_such_agent"])


def test_pettingzoo_enforces_the_call_order() -> None:
    env = aec_env(players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    with pytest.raises(AttributeError):
        env.last()
    env.reset(seed=2)
    rng = np.random.default_rng(3)
    for _agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    with pytest.raises(RuntimeError, match="finished game"):
        env.step(None)


def test_every_wrapper_observes_what_a_fresh_encoding_gives() -> None:
    """The environments keep their vectors up to date incrementally: at every step they equal
    ``encode_view`` of the player's view (PettingZoo for every agent, observed or not that step;
    Gymnasium for the learner; OpenSpiel for the player to act, with states cloned on the way)."""
    env = aec_env(players=3)
    env.reset(seed=6)
    rng = random.Random(6)
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        state = env.unwrapped.state
        assert np.array_equal(obs["observation"], encode_view(state.view(env.unwrapped._seat[agent], log=False)))
        if rng.random() < 0.3:
            other = rng.choice(env.possible_agents)
            expected = encode_view(state.view(env.unwrapped._seat[other], log=False))
            assert np.array_equal(env.observe(other)["observation"], expected)
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        steps += 1
    assert steps > 100

    gym_env = gymnasium.make("TTRNordic-v0", opponents=["random", "random"], seat=1, info_view=True)
    obs, info = gym_env.reset(seed=2)
    done = False
    while not done:
        assert np.array_equal(obs["observation"], encode_view(info["view"]))
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, _reward, done, _truncated, info = gym_env.step(action)
    assert np.array_equal(obs["observation"], encode_view(info["view"]))

    game = pyspiel.load_game("ttr_nordic", {"players": 2})
    spiel_state = game.new_initial_state()
    while not spiel_state.is_terminal():
        if spiel_state.is_chance_node():
            play_chance(spiel_state, rng)
            continue
        player = spiel_state.current_player()
        expected = encode_view(spiel_state.engine.view(player, log=False))
        assert np.array_equal(np.asarray(spiel_state.observation_tensor(player), dtype=np.float32), expected)
        if rng.random() < 0.1:
            spiel_state = spiel_state.clone()
        spiel_state.apply_action(rng.choice(spiel_state.legal_actions()))


def test_masks_are_fresh_writable_int8_arrays_of_the_legal_ids() -> None:
    """Each observation's mask is its own writable int8 array of the space's size: a learner
    may change one (or keep it) without touching the next one or the environment."""
    env = aec_env(players=2)
    env.reset(seed=3)
    space = env.unwrapped.space
    rng = random.Random(3)
    kept: list[np.ndarray] = []
    for _ in range(40):
        obs, _reward, _term, _trunc, _info = env.last()
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (space.size,) and mask.flags.writeable
        legal = sorted(space.legal_ids(env.unwrapped.state))
        assert np.flatnonzero(mask).tolist() == legal
        again = env.observe(env.agent_selection)["action_mask"]
        mask[:] = 1  # the learner's copy only
        assert np.flatnonzero(again).tolist() == legal
        kept.append(again)
        env.step(rng.choice(legal))
    assert all(set(np.unique(k).tolist()) == {0, 1} for k in kept)  # untouched by the learner's writes

    gym_env = gymnasium.make("TTRNordic-v0", opponents=["random"])
    obs, _info = gym_env.reset(seed=4)
    first = obs["action_mask"]
    assert first.dtype == np.int8 and first.flags.writeable
    legal = np.flatnonzero(first).tolist()
    first[:] = 0
    obs, *_ = gym_env.step(rng.choice(legal))
    assert obs["action_mask"].any() and obs["action_mask"] is not first

    par = parallel_env(players=2)
    observations, _infos = par.reset(seed=5)
    masks = [o["action_mask"] for o in observations.values()]
    assert all(m.dtype == np.int8 and m.flags.writeable for m in masks)
    assert sorted(int(m.sum()) > 0 for m in masks) == [False, True]

"""The environments on the compiled core and on the Python engine play the same games: every
observation, mask, reward and info is identical, and the core's observations hide what the
engine's do. (The API checks run on the core here and on the fallback in test_pure_python.py.)"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

from ttr_nordic import fast
from ttr_nordic.ai.base import RandomAgent
from ttr_nordic.engine import GameState
from ttr_nordic.rl import IdPolicy, aec_env, encode_view, parallel_env
from ttr_nordic.rl.actions import action_space
from ttr_nordic.rl.core_game import CoreEnvGame, core_space

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")


def as_bytes(obs: Any) -> bytes:
    """An observation (a dict of arrays or one array) as bytes, dtype and shape included."""
    if isinstance(obs, dict):
        return b"|".join(as_bytes(obs[key]) for key in sorted(obs))
    return f"{obs.dtype}{obs.shape}".encode() + obs.tobytes()


def aec_game(compiled: bool, players: int, seed: int) -> list[object]:
    env = aec_env(players=players, reward="win" if seed % 2 else "margin", compiled=compiled)
    assert env.compiled is compiled
    env.reset(seed=seed)
    rng = random.Random(seed)
    record: list[object] = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        # Every agent's observation, not only the one to act.
        seen = [as_bytes(env.observe(other)) for other in env.possible_agents]
        record.append((agent, as_bytes(obs), reward, term, trunc, info, seen, as_bytes(env.action_mask(agent))))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        # The info's ids are the mask's, in the engine's order; every other agent's are none.
        assert sorted(info["legal_ids"]) == legal and len(set(info["legal_ids"])) == len(legal) > 0
        assert all(env.infos[other]["legal_ids"] == [] for other in env.agents if other != agent)
        if rng.random() < 0.02:
            with pytest.raises(ValueError, match="not legal now"):
                env.step(next(i for i in range(env.unwrapped.space.size) if i not in legal))
        env.step(rng.choice(legal))
    state = env.unwrapped.state
    assert state is not None and state.is_over
    record.append((state.history, env.render()))
    return record


@pytest.mark.parametrize("players", [2, 3])
def test_the_aec_environment_plays_the_same_game_on_both(players: int) -> None:
    for seed in (players, players + 1):
        core, python = aec_game(True, players, seed), aec_game(False, players, seed)
        assert len(core) > 100
        assert core == python


def parallel_game(compiled: bool, seed: int) -> list[object]:
    env = parallel_env(players=3, max_cycles=250, compiled=compiled)
    obs, infos = env.reset(seed=seed)
    rng = random.Random(seed)
    record: list[object] = [sorted((a, as_bytes(o)) for a, o in obs.items()), infos]
    while env.agents:
        mover = env.agent_to_move
        assert mover is not None
        legal = np.flatnonzero(obs[mover]["action_mask"]).tolist()
        assert sorted(infos[mover]["legal_ids"]) == legal and len(infos[mover]["legal_ids"]) == len(legal) > 0
        assert all(info["legal_ids"] == [] for agent, info in infos.items() if agent != mover)
        # Now and then an id the mask forbids (skipped: the same agent decides again), or one beyond every id.
        chosen = rng.choice([*legal, 6400 * len(legal), 10**30]) if rng.random() < 0.1 else rng.choice(legal)
        obs, rewards, terms, truncs, infos = env.step(dict.fromkeys(env.agents, chosen))
        record.append((sorted((a, as_bytes(o)) for a, o in obs.items()), rewards, terms, truncs, infos))
    assert env.state is not None
    record.append(env.state.history)
    return record


def test_the_parallel_environment_plays_the_same_game_on_both() -> None:
    core, python = parallel_game(True, 8), parallel_game(False, 8)
    assert len(core) > 200
    assert core == python


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


GYM_CASES: list[tuple[Callable[[], list[Any]], dict[str, Any]]] = [
    (lambda: ["random"], {"reward": "win"}),
    (lambda: ["route_focus"], {}),
    (lambda: ["random", "hard"], {"seat": None, "info_view": True}),
    (lambda: [IdPolicy(first_legal), RandomAgent(seed=3)], {"seat": 2, "flat": True}),
]


def gym_games(compiled: bool, opponents: Callable[[], list[Any]], options: dict[str, Any], seed: int) -> list[object]:
    env = gymnasium.make("TTRNordic-v0", opponents=opponents(), compiled=compiled, **options).unwrapped
    rng = random.Random(seed)
    record: list[object] = []
    for episode in range(2):
        obs, info = env.reset(seed=seed if episode == 0 else None)
        assert (env._core is not None) is compiled  # every opponent here is one the core plays
        record.append((as_bytes(obs), {k: v for k, v in info.items() if k != "view"}, env.actions_played))
        done = False
        while not done:
            if "view" in info:  # the engine's step view, replayed on the core
                assert np.array_equal(obs["observation"] if isinstance(obs, dict) else obs, encode_view(info["view"]))
            mask = env.action_masks()
            legal = np.flatnonzero(mask).tolist()
            obs, reward, done, truncated, info = env.step(rng.choice(legal))
            step_info = {k: v for k, v in info.items() if k != "view"}
            record.append((as_bytes(obs), reward, done, truncated, step_info, as_bytes(mask), env.actions_played))
        assert env.state is not None
        record.append((env.state.history, env.render()))
    return record


@pytest.mark.parametrize("case", range(len(GYM_CASES)))
def test_the_gymnasium_environment_plays_the_same_games_on_both(case: int) -> None:
    opponents, options = GYM_CASES[case]
    core, python = gym_games(True, opponents, options, case), gym_games(False, opponents, options, case)
    assert len(core) > 60
    assert core == python


def test_gymnasium_ends_an_episode_on_an_illegal_id_alike_on_both() -> None:
    results = []
    for compiled in (True, False):
        env = gymnasium.make("TTRNordic-v0", opponents=["random"], compiled=compiled).unwrapped
        obs, _info = env.reset(seed=12)
        forbidden = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        obs, reward, done, _truncated, info = env.step(forbidden)
        assert env.state is None and done and reward == -1.0
        with pytest.raises(RuntimeError, match="reset"):
            env.step(forbidden)
        results.append((as_bytes(obs), info))
    assert results[0] == results[1]


def test_opponents_that_read_views_keep_the_episode_on_the_engine() -> None:
    env = gymnasium.make("TTRNordic-v0", opponents=["one_step"]).unwrapped
    env.reset(seed=1)
    assert env.compiled and env._core is None and env.state is not None


def test_the_core_observation_hides_what_the_seat_may_not_see() -> None:
    """Re-deal what a seat cannot see (the others' hands, tickets and offers, the piles' order),
    move the re-dealt game into the core: the seat's observation there is unchanged."""
    rng = random.Random(5)
    space = core_space()
    checked = 0
    for seed in (1, 2):
        game = CoreEnvGame(players=2 + seed % 2, seed=seed, first_player=0)
        while not game.game.is_over:
            if rng.random() < 0.15:
                state = game.engine_state()
                for seat in range(state.num_players):
                    redealt = state.view(seat, log=False).determinize(rng)
                    moved = fast.FastGame.from_state(redealt).core
                    assert np.array_equal(moved.observation(space, seat, True), game.observe(seat))
                    checked += 1
            game.apply_id(rng.choice(game.legal_ids()))
    assert checked > 40


def test_games_interleaved_on_one_space_are_encoded_as_the_engine_encodes_them() -> None:
    """The space keeps each seat's route block while no route changes hands: games of 2 and 3
    players stepped in turn on one space (so the kept block is another game's, or another
    seat count's, nearly every call) still give every seat the engine's vector."""
    rng = random.Random(11)
    space = core_space()
    games = [CoreEnvGame(players=2 + i % 2, seed=20 + i, first_player=i % 2) for i in range(4)]
    compared = 0
    while any(not g.game.is_over for g in games):
        game = rng.choice([g for g in games if not g.game.is_over])
        game.apply_id(rng.choice(game.legal_ids()))
        state = game.engine_state()
        for seat in rng.sample(range(game.players), game.players):
            expected = encode_view(state.view(seat, log=False))
            assert np.array_equal(game.game.observation(space, seat, True), expected)
            assert np.array_equal(game.game.observation(space, seat)["observation"], expected)
            compared += 1
    assert compared > 1000


def test_the_engine_state_is_replayed_and_kept() -> None:
    game = CoreEnvGame(players=3, seed=4, first_player=2)
    rng = random.Random(4)
    for _ in range(30):
        game.apply_id(rng.choice(game.legal_ids()))
    state = game.engine_state()
    assert game.engine_state() is state
    expected = GameState.new(players=3, seed=4, first_player=2)
    for action in state.history:
        expected.apply(action)
    assert fast.state_fields(state) == fast.state_fields(expected) == game.game.state()
    game.apply_id(game.legal_ids()[0])
    assert game.engine_state() is state and len(state.history) == 31
    with pytest.raises(ValueError, match="not legal now"):
        game.apply_id(-1)
    assert game.game.actions == 31


def test_bad_arguments_raise_and_change_nothing() -> None:
    game = CoreEnvGame(players=2, seed=3, first_player=0)
    with pytest.raises(ValueError, match="seat 2"):
        game.game.observation(game.space, 2)
    with pytest.raises(TypeError, match="CoreSpace"):
        game.game.legal_ids(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="510 items"):
        game.game.observe(game.space, 0, np.zeros(10, dtype=np.float32))
    first = game.legal_ids()[0]
    with pytest.raises(TypeError, match="codes must be a list"):
        game.game.step_id(game.space, first, ())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not legal now"):
        game.game.step_id(game.space, -1, game.codes)
    with pytest.raises(ValueError, match="tuple of 2 names"):
        game.game.observations(game.space, ("player_0",))
    with pytest.raises(ValueError, match="tuple of 2 names"):
        game.game.parallel_step(game.space, {"a": first}, game.codes, ("a", "b", "c"), False, False, True)
    with pytest.raises(ValueError, match="not legal now"):
        game.game.parallel_step(game.space, {"a": None}, game.codes, ("a", "b"), False, False, False)
    with pytest.raises(KeyError, match="'a'"):  # no action for the agent to decide
        game.game.parallel_step(game.space, {"b": first}, game.codes, ("a", "b"), False, False, True)
    with pytest.raises(ValueError, match="invalid literal"):  # int()'s own error, even when skipping
        game.game.parallel_step(game.space, {"a": "first"}, game.codes, ("a", "b"), False, False, True)
    infos: dict[str, Any] = {"a": {"legal_ids": [first]}}
    with pytest.raises(ValueError, match="not legal now"):
        game.game.aec_step(game.space, -1, game.codes, infos, ("a", "b"))
    with pytest.raises(TypeError, match="tuple of 2 names"):
        game.game.aec_step(game.space, first, game.codes, infos, ("a",))
    assert infos == {"a": {"legal_ids": [first]}}
    with pytest.raises(ValueError, match="not legal now"):
        game.game.gym_step(game.space, -1, game.codes, 0, (None, random.Random(1)), False, False)
    with pytest.raises(ValueError, match="tuple of 2 entries"):
        game.game.gym_step(game.space, first, game.codes, 0, (None,), False, False)
    assert game.game.actions == 0 and game.codes == []


def test_step_id_and_observations_are_apply_id_legal_ids_and_observation() -> None:
    game, twin = CoreEnvGame(players=3, seed=6, first_player=1), CoreEnvGame(players=3, seed=6, first_player=1)
    rng = random.Random(6)
    names = ("a", "b", "c")
    while not game.game.is_over:
        chosen = rng.choice(game.legal_ids())
        legal = game.game.step_id(game.space, chosen, game.codes)
        twin.apply_id(chosen)
        assert legal == twin.legal_ids() and game.codes == twin.codes
        together = game.game.observations(game.space, names)
        assert list(together) == list(names)
        for seat, name in enumerate(names):
            one = twin.game.observation(twin.space, seat)
            assert all(np.array_equal(together[name][key], one[key]) for key in ("observation", "action_mask"))
    assert legal == [] and len(game.codes) > 100  # the last step's ids: none once the game is over
    with pytest.raises(ValueError, match="not legal now"):
        game.game.step_id(game.space, 0, game.codes)


def test_recycled_observations_are_never_ones_still_held() -> None:
    """The core's observation arrays are written again only once nothing refers to them: what a
    learner keeps (the dict, one array, a view of it, a weak reference) never changes."""
    import weakref

    env = aec_env(players=3, compiled=True)
    env.reset(seed=9)
    rng = random.Random(9)
    kept: list[tuple[object, bytes]] = []
    for step in range(300):
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            break
        hold = step % 5
        if hold == 1:
            kept.append((obs, as_bytes(obs)))
        elif hold == 2:
            kept.append((obs["action_mask"], as_bytes(obs["action_mask"])))
        elif hold == 3:
            view = obs["observation"][:300]
            kept.append((view, as_bytes(view)))
        elif hold == 4:
            vector = obs["observation"]
            kept.append((weakref.ref(vector), as_bytes(vector)))
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        del obs
        env.step(rng.choice(legal))
    assert len(kept) > 200
    for held, before in kept:
        if isinstance(held, weakref.ref):
            held = held()  # gone once the pool let it go, else untouched
            if held is None:
                continue
        assert as_bytes(held) == before
    # Dropped observations were recycled: fewer arrays than observations were made.
    seen = {id(env.last()[0]["observation"]) for _ in range(20)}
    assert len(seen) < 20


@pytest.mark.parametrize("change", ["read-only", "reshaped", "resized", "retyped"])
def test_an_array_changed_by_its_last_holder_is_not_recycled(change: str) -> None:
    """What a holder did to an observation's array before dropping it never reaches the next
    observation: each comes as a fresh one would (1-d, writable, its dtype and length, right values)."""
    game = CoreEnvGame(players=2, seed=12, first_player=0)
    space = game.space
    for step in range(40):
        for key in ("observation", "action_mask"):
            array = game.game.observation(space, step % 2)[key]
            if change == "read-only":
                array.flags.writeable = False
            elif change == "reshaped":
                array.shape = (2, -1)
            elif change == "resized":
                array.resize(3, refcheck=False)
            else:
                array.dtype = np.uint8
            del array
        fresh = game.game.observation(space, step % 2)
        assert fresh["observation"].shape == (510,) and fresh["observation"].dtype == np.float32
        assert fresh["action_mask"].shape == (action_space().size,) and fresh["action_mask"].dtype == np.int8
        assert fresh["observation"].flags.writeable and fresh["action_mask"].flags.writeable
        assert np.array_equal(fresh["observation"], game.observe(step % 2))
        expected = game.mask() if game.game.current == step % 2 else np.zeros(action_space().size, dtype=np.int8)
        assert np.array_equal(fresh["action_mask"], expected)
        del fresh
        game.apply_id(game.legal_ids()[0])


def test_a_copied_gymnasium_environment_goes_on_alike() -> None:
    """``copy.deepcopy`` of an episode on the core (Route Focus in the core included) plays on as the original."""
    import copy

    env = gymnasium.make("TTRNordic-v0", opponents=["route_focus", "random"], compiled=True).unwrapped
    obs, _info = env.reset(seed=21)
    assert env._core is not None
    twin = copy.deepcopy(env)
    rng = random.Random(21)
    for _ in range(60):
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, done, _truncated, _info = env.step(action)
        twin_obs, twin_reward, twin_done, _truncated, _info = twin.step(action)
        assert as_bytes(obs) == as_bytes(twin_obs) and (reward, done) == (twin_reward, twin_done)
        if done:
            break


def snapshot(value: Any) -> object:
    """A parallel step's dict (or a part of one) as plain values, its arrays as bytes and keys in order."""
    if isinstance(value, dict):
        return [(key, snapshot(item)) for key, item in value.items()]
    if isinstance(value, np.ndarray):
        return as_bytes(value)
    return list(value) if isinstance(value, list) else value


def test_recycled_parallel_dicts_are_never_ones_still_held() -> None:
    """The parallel step's dicts are written again only once nothing refers to them: whatever a
    learner keeps (any of the five dicts, one agent's info or observation) never changes, and a
    dict its holder changed before dropping it (a key removed, the keys reordered, a key added)
    never comes back changed."""
    env = parallel_env(players=3, compiled=True)
    _obs, infos = env.reset(seed=14)
    rng = random.Random(14)
    kept: list[tuple[object, object]] = []
    for step in range(300):
        mover = env.agent_to_move
        if mover is None:
            break
        result = env.step(dict.fromkeys(env.agents, rng.choice(infos[mover]["legal_ids"])))
        infos = result[4]
        if step % 7 < 5:
            kept.append((result[step % 7], snapshot(result[step % 7])))
        elif step % 7 == 5:
            kept.append((infos["player_1"], snapshot(infos["player_1"])))
        elif step % 14 == 6:  # changed, then dropped
            result[2]["player_9"] = True
            result[1]["player_0"] = result[1].pop("player_0")
            del result[3]["player_2"]
        for names, part in zip(([*env.possible_agents],) * 5, result, strict=True):
            assert list(part) == names or step % 14 == 6  # every returned dict in the agents' order
        del result
    assert len(kept) > 200
    for held, before in kept:
        assert snapshot(held) == before
    # Dropped dicts were recycled: fewer dicts than steps were made.
    _obs, infos = env.reset(seed=15)
    seen = set()
    for _ in range(20):
        result = env.step(dict.fromkeys(env.agents, rng.choice(infos[env.agent_to_move]["legal_ids"])))
        infos = result[4]
        seen.add(id(result[1]))
        del result
    assert len(seen) < 20


def spoil(result: tuple[Any, ...], rng: random.Random) -> None:
    """Change what a parallel step returned, as a careless learner might before letting it go."""
    observations, infos = result[0], result[-1]  # a step's five dicts, or reset's two
    agent = rng.choice(list(observations))
    change = rng.randrange(8)
    if change == 0:
        observations[agent]["observation"][:] = 7.0
    elif change == 1:
        observations[agent]["action_mask"][:] = 1
    elif change == 2:
        observations[agent]["observation"] = np.zeros(3, dtype=np.float32)
    elif change == 3:
        observations[agent]["extra"] = 1
    elif change == 4:
        infos[agent]["legal_ids"].append(-1)
    elif change == 5:
        infos[agent]["legal_ids"].clear()
    elif change == 6:
        infos[agent]["active_agent"] = "nobody"
    else:
        observations[agent] = {}


def test_what_a_learner_changes_in_a_step_it_let_go_never_comes_back() -> None:
    """The parallel step on the core writes again, in place, the dicts, arrays and id lists of an
    earlier step once nothing else refers to them. A learner that changes them before letting go
    (arrays overwritten or replaced, keys added, id lists grown or emptied, an agent's dict
    swapped) or that keeps parts of them still gets, step for step, what the Python engine gives."""
    core, python = parallel_env(players=3, compiled=True), parallel_env(players=3, compiled=False)
    rng = random.Random(21)
    kept: list[tuple[object, object]] = []
    steps = 0
    for seed in (21, 22):
        core_step: tuple[Any, ...] = core.reset(seed=seed)
        python_step: tuple[Any, ...] = python.reset(seed=seed)
        while core.agent_to_move is not None:
            mover = core.agent_to_move
            chosen = rng.choice(core_step[-1][mover]["legal_ids"])
            if rng.random() < 0.3:
                spoil(core_step, rng)
            if rng.random() < 0.2:  # kept by the learner: it must not change
                part = rng.choice([core_step[0][mover], core_step[-1][mover]["legal_ids"], core_step[-1]])
                kept.append((part, snapshot(part)))
            core_step = core.step(dict.fromkeys(core.agents, chosen))
            python_step = python.step(dict.fromkeys(python.agents, chosen))
            assert [snapshot(part) for part in core_step] == [snapshot(part) for part in python_step]
            steps += 1
    assert steps > 300 and len(kept) > 50
    for part, before in kept:
        assert snapshot(part) == before


@pytest.mark.parametrize("compiled", [True, False])
def test_a_parallel_step_without_the_movers_action_is_refused_alike(compiled: bool) -> None:
    env = parallel_env(players=2, compiled=compiled)
    env.reset(seed=3)
    other = next(agent for agent in env.agents if agent != env.agent_to_move)
    for actions in ({other: 0}, [], [other]):
        with pytest.raises(ValueError, match=f"no action for {env.agent_to_move}, the agent to decide"):
            env.step(actions)  # type: ignore[arg-type]
    assert env.steps == 0 and env.state is not None and env.state.history == []


def test_on_the_core_the_parallel_step_is_one_call_that_keeps_the_attributes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The core's ParallelStep stands in for ``step`` (no Python frame a step) and keeps ``steps``,
    ``agents`` and ``agent_to_move`` as the Python step does, over resets; in human render mode the
    method runs instead, so that each step prints."""
    env = parallel_env(players=2, max_cycles=6, compiled=True)
    python = parallel_env(players=2, max_cycles=6, compiled=False)
    for seed in (4, 5):
        _obs, infos = env.reset(seed=seed)
        assert python.reset(seed=seed)[1] == infos
        assert isinstance(env.step, fast.core_module().ParallelStep)
        for step in range(6):
            assert env.agent_to_move == python.agent_to_move == infos["player_0"]["active_agent"]
            mover = env.agent_to_move
            assert mover is not None
            chosen = infos[mover]["legal_ids"][step % len(infos[mover]["legal_ids"])]
            result = env.step(actions={mover: chosen})  # the keyword, as the method takes it
            expected = python.step({mover: chosen})
            infos = result[4]
            assert result[1:] == expected[1:]
            assert env.steps == python.steps == step + 1
        assert env.agents == python.agents == [] and env.agent_to_move is python.agent_to_move is None
        with pytest.raises(RuntimeError, match="call reset"):
            env.step({})
    for wrong in ((), ({}, {})):
        with pytest.raises(TypeError, match=r"step\(actions\) takes one argument"):
            env.step(*wrong)
    with pytest.raises(TypeError, match=r"step\(actions\) takes one argument"):
        env.step(moves={})  # type: ignore[call-arg]
    shown = parallel_env(players=2, render_mode="human", compiled=True)
    _obs, infos = shown.reset(seed=2)
    assert not isinstance(shown.step, fast.core_module().ParallelStep)
    capsys.readouterr()
    mover = shown.agent_to_move
    assert mover is not None
    shown.step({mover: infos[mover]["legal_ids"][0]})
    assert shown.steps == 1 and capsys.readouterr().out


def test_a_dropped_parallel_environment_is_freed() -> None:
    """The environment and its ParallelStep refer to each other: the cycle is collected."""
    import gc
    import weakref

    env = parallel_env(players=2, compiled=True)
    _obs, infos = env.reset(seed=1)
    mover = env.agent_to_move
    assert mover is not None
    env.step({mover: infos[mover]["legal_ids"][0]})
    gone = weakref.ref(env)
    del env, infos, _obs
    gc.collect()
    assert gone() is None

"""The OpenSpiel game on the compiled core plays exactly the game of the Python path: the same
players to act, chance outcomes (ids and probabilities), legal actions, observation tensors of
every player and returns at every node of random games, the same errors, and the same
information state once asked for; clones, serialization and pickles of core states play on
alike."""

from __future__ import annotations

import pickle
import random

import pyspiel
import pytest

from ttr_nordic import fast
from ttr_nordic.rl.openspiel import TTRNordicState, play_chance, resample
from ttr_nordic.rl.openspiel_core import CoreState

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built")

GAMES = {2: 120, 3: 80}
"""Random games compared node by node: 200 in all (about 25 s of CPU time here)."""
STYLES = ("uniform", "tickets", "cards", "uniform", "tickets")


def games(players: int, reward: str = "win") -> tuple[pyspiel.Game, pyspiel.Game]:
    core = pyspiel.load_game("ttr_nordic", {"players": players, "reward": reward, "engine": "core"})
    python = pyspiel.load_game("ttr_nordic", {"players": players, "reward": reward, "engine": "python"})
    return core, python


def choose(state: TTRNordicState, rng: random.Random, style: str) -> int:
    """A chance outcome by its probability, or a player's action: uniform, or preferring card
    draws (the draw pile runs out and the discard pile is reshuffled) or ticket draws."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        return rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
    legal = state.legal_actions()
    preferred = {"cards": range(6), "tickets": range(6, 38)}.get(style, ())
    liked = [a for a in legal if a in preferred]
    if liked and rng.random() < 0.9:
        return rng.choice(liked)
    return rng.choice(legal)


def same_node(core: TTRNordicState, python: TTRNordicState, players: int) -> None:
    assert type(core) is CoreState and type(python) is TTRNordicState
    player = core.current_player()
    assert player == python.current_player()
    assert core.is_chance_node() == python.is_chance_node() and core.is_terminal() == python.is_terminal()
    assert core.returns() == python.returns()
    if core.is_chance_node():
        assert core.chance_outcomes() == python.chance_outcomes()
        assert core.chance_kind() == python.chance_kind()
    elif not core.is_terminal():
        assert core.legal_actions() == python.legal_actions() == core.legal_actions(player)
    else:
        assert core.legal_actions() == python.legal_actions() == []
    for seat in range(players):
        assert core.observation_tensor(seat) == python.observation_tensor(seat)
    if player >= 0:
        assert core.observation_tensor() == python.observation_tensor()


@pytest.mark.parametrize("players", [2, 3])
def test_every_node_of_random_games_is_the_python_paths(players: int) -> None:
    core_game, python_game = games(players, reward="margin" if players == 3 else "win")
    nodes = chances = tickets = reshuffles = 0
    for index in range(GAMES[players]):
        style = STYLES[index % len(STYLES)]
        rng = random.Random(index * 10 + players)
        core, python = core_game.new_initial_state(), python_game.new_initial_state()
        while True:
            same_node(core, python, players)
            nodes += 1
            if core.is_terminal():
                break
            action = choose(core, rng, style)
            if core.is_chance_node():
                chances += 1
                tickets += core.chance_kind() == "ticket"
                engine = python.engine
                reshuffles += engine is not None and not engine.deck and any(engine.discard)
            core.apply_action(action)
            python.apply_action(action)
        assert core.history() == python.history()
        # Asked for at the end only, the Python position replays the whole game.
        for seat in range(players):
            assert core.information_state_string(seat) == python.information_state_string(seat)
            assert core.information_state_tensor(seat) == python.information_state_tensor(seat)
        assert str(core) == str(python)
    assert nodes > 1000 * GAMES[players] // 3 and chances > nodes // 3 and tickets > 0 and reshuffles > 0


@pytest.mark.parametrize("players", [2, 3])
def test_the_information_state_follows_every_step(players: int) -> None:
    core_game, python_game = games(players)
    rng = random.Random(players)
    core, python = core_game.new_initial_state(), python_game.new_initial_state()
    while not core.is_terminal():
        if core.current_player() >= 0:
            seat = core.current_player()
            assert core.information_state_tensor(seat) == python.information_state_tensor(seat)
            assert core.observation_string(seat) == python.observation_string(seat)
            legal = core.legal_actions()
            assert [core.action_to_string(seat, a) for a in legal] == [python.action_to_string(seat, a) for a in legal]
        else:
            assert core.action_to_string(-1, core.chance_outcomes()[0][0]) == python.action_to_string(
                -1, python.chance_outcomes()[0][0]
            )
        action = choose(core, rng, "uniform")
        core.apply_action(action)
        python.apply_action(action)
    assert core.history_lines(0) == python.history_lines(0)
    assert core.public_history_lines() == python.public_history_lines()


def test_bad_actions_raise_the_python_paths_errors_and_change_nothing() -> None:
    core_game, python_game = games(2)
    for state in (core_game.new_initial_state(), python_game.new_initial_state()):
        with pytest.raises(ValueError, match="2 is not a possible outcome of this first chance node"):
            state.apply_action(2)
        state.apply_action(1)
        with pytest.raises(ValueError, match="9 is not a possible outcome of this card chance node"):
            state.apply_action(9)
        play_chance(state, random.Random(0))
        with pytest.raises(ValueError, match=r"action 5 \(draw blind\) is not legal now"):
            state.apply_action(5)
        assert state.current_player() == 1 and len(state.history()) == 24
    rng = random.Random(3)
    core, python = core_game.new_initial_state(), python_game.new_initial_state()
    while not core.is_terminal():
        if core.is_chance_node() and core.chance_kind() == "card":
            missing = [k for k in range(9) if k not in dict(core.chance_outcomes())]
            for bad in [*missing[:1], -2, 2**40]:  # (-1 OpenSpiel refuses itself)
                for state in (core, python):
                    with pytest.raises(ValueError, match="is not a possible outcome of this card chance node"):
                        state.apply_action(bad)
        action = choose(core, rng, "cards")
        core.apply_action(action)
        python.apply_action(action)
        same_node(core, python, 2)


@pytest.mark.parametrize("players", [2, 3])
def test_clones_serialized_and_pickled_core_states_play_on_alike(players: int) -> None:
    core_game, python_game = games(players)
    rng = random.Random(7 + players)
    core, python = core_game.new_initial_state(), python_game.new_initial_state()
    copies: list[TTRNordicState] = []
    while not core.is_terminal():
        if rng.random() < 0.03 or len(core.history()) in (0, 5):
            copies.append(core.clone())
            if rng.random() < 0.5:
                copies[-1].information_state_tensor(0)  # the copy's Python position made up to date
            text = pyspiel.serialize_game_and_state(core_game, core)
            loaded = pyspiel.deserialize_game_and_state(text)[1]
            assert type(loaded) is CoreState
            copies.append(loaded)
            copies.append(pickle.loads(pickle.dumps(core)))
            copies.append(pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(python_game, python))[1])
        action = choose(core, rng, "uniform")
        for state in (core, python, *copies):
            state.apply_action(action)
        same_node(core, python, players)
    assert len(copies) >= 12
    for state in copies:
        assert state.history() == core.history() and state.returns() == python.returns()
        assert state.information_state_string(0) == python.information_state_string(0)


@pytest.mark.parametrize("players", [2, 3])
def test_random_sim_test_with_serialization_on_the_core(players: int) -> None:
    core_game, _ = games(players)
    assert type(core_game.new_initial_state()) is CoreState
    pyspiel.random_sim_test(core_game, num_sims=2, serialize=True, verbose=False)


def test_a_resampled_state_runs_on_the_core_and_keeps_the_information_state() -> None:
    core_game, _ = games(3)
    rng = random.Random(11)
    state = core_game.new_initial_state()
    while len(state.history()) < 150 or state.is_chance_node():
        state.apply_action(choose(state, rng, "uniform"))
    seat = state.current_player()
    sample = resample(state, seat, seed=5)
    assert type(sample) is CoreState
    assert sample.information_state_tensor(seat) == state.information_state_tensor(seat)
    assert sample.observation_tensor(seat) == state.observation_tensor(seat)
    assert sample.legal_actions() == state.legal_actions()
    while not sample.is_terminal():
        sample.apply_action(choose(sample, rng, "uniform"))
    assert sorted(sample.returns()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0])


def test_the_engine_parameter() -> None:
    assert str(pyspiel.load_game("ttr_nordic")) == "ttr_nordic(players=2,reward=win)"
    assert type(pyspiel.load_game("ttr_nordic").new_initial_state()) is CoreState
    assert type(pyspiel.load_game("ttr_nordic", {"engine": "python"}).new_initial_state()) is TTRNordicState
    with pytest.raises(ValueError, match="engine must be one of auto, core, python, not 'c'"):
        pyspiel.load_game("ttr_nordic", {"engine": "c"})

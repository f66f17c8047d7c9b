"""The OpenSpiel game passes OpenSpiel's own simulation checks and plays with its bots."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import ttr_nordic.rl.openspiel  # noqa: F401  (registers ttr_nordic)
from ttr_nordic.rl.actions import action_space
from ttr_nordic.rl.observation import SIZE
from ttr_nordic.rl.openspiel import NUM_DEALS, resample


@pytest.mark.parametrize("players", [2, 3])
def test_random_sim_test(players: int) -> None:
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    assert game.num_players() == players
    assert game.num_distinct_actions() == action_space().size
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_chance_node_strings_and_tensors() -> None:
    game = pyspiel.load_game("ttr_nordic", {"reward": "margin"})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == NUM_DEALS
    state.apply_action(17)
    player = state.current_player()
    assert len(state.information_state_tensor(player)) == game.information_state_tensor_size()
    assert len(state.observation_tensor(player)) == game.observation_tensor_size()
    # Another player's ticket offer is not in a player's strings; one's own is.
    mine = state.observation_string(player)
    assert f"offer:{tuple(state.engine.offers[player])}" in mine
    assert str(tuple(state.engine.offers[1 - player])) not in mine
    with pytest.raises(ValueError, match="not legal now"):
        state.apply_action(action_space().blind)


def test_resample_keeps_the_information_state() -> None:
    game = pyspiel.load_game("ttr_nordic")
    state = game.new_initial_state()
    state.apply_action(3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sample = resample(state, player, seed=1)
    assert sample.information_state_string(player) == state.information_state_string(player)
    assert sample.observation_tensor(player) == state.observation_tensor(player)
    assert sample.legal_actions() == state.legal_actions()


def test_ismcts_plays_a_decision() -> None:
    game = pyspiel.load_game("ttr_nordic")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=3, random_state=rng)
    bot.set_resampler(lambda state, player: resample(state, player, int(rng.randint(2**31))))
    state = game.new_initial_state()
    state.apply_action(9)
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("players", [2, 3])
def test_python_fast_paths_equal_openspiels_own(players: int) -> None:
    """The state's Python legal_actions, is_chance_node and tensors give what OpenSpiel's C++
    methods give (and raise its errors), at every decision of random games of several deals."""
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    base = pyspiel.State
    rng = np.random.default_rng(players)
    decisions = 0
    for deal in (5, 600, 4095):
        state = game.new_initial_state()
        assert state.is_chance_node() and base.is_chance_node(state)
        assert state.legal_actions() == base.legal_actions(state) == list(range(NUM_DEALS))
        assert state.legal_actions(0) == base.legal_actions(state, 0)
        assert state.observation_tensor(1) == base.observation_tensor(state, 1) == [0.0] * SIZE
        with pytest.raises(pyspiel.SpielError):
            state.observation_tensor()  # a chance node has no player to default to
        state.apply_action(deal)
        while not state.is_terminal():
            assert not state.is_chance_node() and not base.is_chance_node(state)
            player = state.current_player()
            assert state.legal_actions() == base.legal_actions(state) == state.legal_actions(player)
            for seat in range(players):
                assert state.legal_actions(seat) == base.legal_actions(state, seat)
                assert state.observation_tensor(seat) == base.observation_tensor(state, seat)
                assert state.information_state_tensor(seat) == base.information_state_tensor(state, seat)
            assert state.observation_tensor() == base.observation_tensor(state)
            assert state.information_state_tensor() == base.information_state_tensor(state)
            for bad in (-1, players):
                with pytest.raises(pyspiel.SpielError):
                    state.observation_tensor(bad)
                with pytest.raises(pyspiel.SpielError):
                    state.information_state_tensor(bad)
            with pytest.raises(pyspiel.SpielError):
                state.legal_actions(-1)
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1
            if decisions % 97 == 0:  # a clone (OpenSpiel's copy of the Python state) answers alike
                copy = state.clone()
                assert copy.legal_actions() == base.legal_actions(state)
                assert copy.observation_tensor(0) == base.observation_tensor(state, 0)
        assert state.legal_actions() == base.legal_actions(state) == []
        assert state.observation_tensor(0) == base.observation_tensor(state, 0)
        with pytest.raises(pyspiel.SpielError):
            state.observation_tensor()  # nor has a terminal state
    assert decisions > 300

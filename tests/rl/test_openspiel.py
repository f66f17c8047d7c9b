"""The OpenSpiel game passes OpenSpiel's own checks, models chance as card games do, honours the
observation types, round-trips through serialization and pickle, and plays with its bots."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from ttr_nordic.engine.actions import DrawBlind, DrawTickets
from ttr_nordic.rl.actions import action_space
from ttr_nordic.rl.observation import SIZE
from ttr_nordic.rl.openspiel import TTRNordicState, play_chance, resample
from ttr_nordic.rl.openspiel_observer import INFO_STATE_SIZE, PRIVATE_INDEX, PUBLIC_INDEX

PUBLIC = pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)
PUBLIC_RECALL = pyspiel.IIGObservationType(
    perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    perfect_recall=False, public_info=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def random_state(players: int, decisions: int, seed: int) -> TTRNordicState:
    """A state after ``decisions`` random decisions (chance sampled), at a decision."""
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    rng = random.Random(seed)
    state: TTRNordicState = game.new_initial_state()
    play_chance(state, rng)
    for _ in range(decisions):
        state.apply_action(rng.choice(state.legal_actions()))
        play_chance(state, rng)
    assert not state.is_terminal()
    return state


@pytest.mark.parametrize("players", [2, 3])
def test_random_sim_test_with_serialization(players: int) -> None:
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    assert game.num_players() == players
    assert game.num_distinct_actions() == action_space().size
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.information_state_tensor_size() == INFO_STATE_SIZE
    assert game.observation_tensor_size() == SIZE
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def same_state(a: TTRNordicState, b: TTRNordicState) -> None:
    assert a.history() == b.history() and str(a) == str(b)
    assert a.current_player() == b.current_player() and a.is_terminal() == b.is_terminal()
    assert a.returns() == b.returns()
    if a.is_chance_node():
        assert a.chance_outcomes() == b.chance_outcomes()
    elif not a.is_terminal():
        assert a.legal_actions() == b.legal_actions()
    for p in range(a.num_players()):
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
        assert a.information_state_string(p) == b.information_state_string(p)


@pytest.mark.parametrize("players", [2, 3])
def test_serialize_and_pickle_round_trips_keep_playing_alike(players: int) -> None:
    game = pyspiel.load_game("ttr_nordic", {"players": players, "reward": "margin"})
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.players == players
    assert again.new_initial_state().chance_outcomes() == [(p, 1 / players) for p in range(players)]
    rng = random.Random(players)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if rng.random() < 0.05 or len(state.history()) in (0, 3):  # the deal's chance nodes too
            _game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
            unpickled = pickle.loads(pickle.dumps(state))
            for other in (copy, unpickled, state.clone()):
                same_state(state, other)
                step = rng.getstate()
                reference = state.clone()
                for candidate in (reference, other):  # the same next steps give the same states
                    rng.setstate(step)
                    for _ in range(3):
                        if candidate.is_terminal():
                            break
                        if candidate.is_chance_node():
                            outcomes, weights = zip(*candidate.chance_outcomes(), strict=True)
                            candidate.apply_action(rng.choices(outcomes, weights)[0])
                        else:
                            candidate.apply_action(rng.choice(candidate.legal_actions()))
                same_state(reference, other)
            checked += 1
        if state.is_terminal():
            break
        if state.is_chance_node():
            play_chance(state, rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    final = pickle.loads(pickle.dumps(state))
    assert final.is_terminal() and final.returns() == state.returns()
    assert checked > 5


def test_chance_outcomes_are_the_real_distributions() -> None:
    """A blind draw's outcomes are the draw pile's kinds by count; a ticket draw's, the ticket
    pile's tickets uniformly, then without the tickets already drawn."""
    rng = random.Random(3)
    game = pyspiel.load_game("ttr_nordic")
    state: TTRNordicState = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)] and state.chance_kind() == "first"
    state.apply_action(1)
    assert state.chance_kind() == "card"
    assert state.chance_outcomes() == [(k, n / 110) for k, n in enumerate((12, 12, 12, 12, 12, 12, 12, 12, 14))]
    with pytest.raises(ValueError, match="not a possible outcome"):
        state.apply_action(9)
    play_chance(state, rng)
    blind = ticket = 0
    while not state.is_terminal() and (blind < 5 or ticket < 3):
        engine = state.engine
        assert engine is not None
        legal = dict(zip(state.position.ids, state.position.actions, strict=True))
        choice = rng.choice(state.legal_actions())
        state.apply_action(choice)
        if isinstance(legal[choice], DrawBlind) and engine.deck:
            counts = Counter(engine.deck)
            assert state.chance_kind() == "card"
            assert state.chance_outcomes() == [(k, counts[k] / len(engine.deck)) for k in sorted(counts)]
            blind += 1
        elif isinstance(legal[choice], DrawTickets) and len(engine.ticket_deck) >= 3:
            pile = sorted(engine.ticket_deck)
            for _ in range(3):
                assert state.chance_kind() == "ticket"
                assert state.chance_outcomes() == [(t, 1 / len(pile)) for t in pile]
                pick = rng.choice(pile)
                state.apply_action(pick)
                pile.remove(pick)
            ticket += 1
        play_chance(state, rng)
    assert blind >= 5 and ticket >= 1


@pytest.mark.parametrize("players", [2, 3])
def test_deals_are_not_told_apart_by_player_0s_first_observation(players: int) -> None:
    """Deals that give player 0 the same cards, display and tickets look the same to player 0
    however the rest was dealt: the observation carries nothing of the other hands or the
    piles' order (the 4,096-seed model let every deal be told apart)."""
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    rng = random.Random(players)
    first = game.new_initial_state()
    first.apply_action(0)
    # Player 0's cards are the first four chance nodes, the display the five after the others'
    # cards, player 0's tickets the first five ticket nodes.
    seen: dict[int, int] = {}
    hands, offers, observations, infos = set(), set(), set(), set()
    for _ in range(40):
        state = first.clone()
        node = 0
        cards_before_display = 4 * players
        while state.is_chance_node():
            visible = node < 4 or cards_before_display <= node < cards_before_display + 5
            visible = visible or cards_before_display + 5 <= node < cards_before_display + 10
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            if visible and node in seen:
                state.apply_action(seen[node])
            else:
                pick = rng.choices(outcomes, weights)[0]
                if visible:
                    seen[node] = pick
                state.apply_action(pick)
            node += 1
        engine = state.engine
        assert engine is not None
        hands.add(tuple(map(tuple, engine.hands[1:])))
        offers.add(tuple(map(tuple, engine.offers[1:])))
        observations.add(tuple(state.observation_tensor(0)))
        infos.add(state.information_state_string(0) + str(state.information_state_tensor(0)))
    assert len(observations) == 1 and len(infos) == 1
    assert len(hands) >= 35 and len(offers) >= 35  # the hidden part of the deal varies freely


def test_public_observers_show_no_hand_and_no_ticket() -> None:
    game = pyspiel.load_game("ttr_nordic", {"players": 3})
    state = random_state(3, 40, seed=5)
    public = game.make_py_observer(PUBLIC)
    public_recall = game.make_py_observer(PUBLIC_RECALL)
    private = game.make_py_observer(PRIVATE)
    default = game.make_py_observer()
    assert public.tensor.shape == (len(PUBLIC_INDEX),) and private.tensor.shape == (len(PRIVATE_INDEX),)
    assert default.tensor.shape == (SIZE,)
    # Player 1's view re-dealt: player 0's hand and tickets change, what is public does not.
    engine = state.engine
    assert engine is not None
    for seed in range(5):
        other = resample(state, 1, seed)
        other_engine = other.engine
        assert other_engine is not None
        if other_engine.hands[0] == engine.hands[0] and other_engine.tickets[0] == engine.tickets[0]:
            continue
        for observer in (public, public_recall):
            observer.set_from(state, 0)
            before = observer.tensor.copy()
            text = observer.string_from(state, 0)
            observer.set_from(other, 0)
            assert np.array_equal(before, observer.tensor)
            assert observer.string_from(other, 0) == text
            assert "hand:" not in text and "tickets:" not in text and "offer:" not in text
        default.set_from(state, 0)
        before = default.tensor.copy()
        default.set_from(other, 0)
        assert not np.array_equal(before, default.tensor)
        private.set_from(state, 0)
        before = private.tensor.copy()
        private.set_from(other, 0)
        assert not np.array_equal(before, private.tensor)
        break
    else:
        raise AssertionError("no resample changed player 0's hand or tickets")
    with pytest.raises(ValueError, match="not all players"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            )
        )


def test_information_state_tensor_is_the_observation_and_the_history() -> None:
    state = random_state(2, 30, seed=2)
    player = state.current_player()
    info = state.information_state_tensor(player)
    observation = state.observation_tensor(player)
    assert (
        len(info) == INFO_STATE_SIZE
        and info[:SIZE] == observation
        and info != observation + [0.0] * (INFO_STATE_SIZE - SIZE)
    )
    # Two moments with the same observation but different histories are told apart.
    rng = random.Random(0)
    game = state.get_game()
    a = game.new_initial_state()
    play_chance(a, rng)
    b = a.clone()
    opener = a.current_player()
    assert a.observation_tensor(opener) == b.observation_tensor(opener)
    assert a.information_state_tensor(opener) == b.information_state_tensor(opener)


def test_resample_keeps_the_information_state() -> None:
    state = random_state(2, 60, seed=3)
    player = state.current_player()
    sample = resample(state, player, seed=1)
    assert sample.information_state_string(player) == state.information_state_string(player)
    assert sample.observation_tensor(player) == state.observation_tensor(player)
    assert sample.information_state_tensor(player) == state.information_state_tensor(player)
    assert sample.legal_actions() == state.legal_actions()


def test_ismcts_plays_decisions() -> None:
    game = pyspiel.load_game("ttr_nordic")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=3, random_state=rng)
    bot.set_resampler(lambda state, player: resample(state, player, int(rng.randint(2**31))))
    state = game.new_initial_state()
    chance = random.Random(9)
    for _ in range(4):
        play_chance(state, chance)
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("players", [2, 3])
def test_python_fast_paths_equal_openspiels_own(players: int) -> None:
    """The state's Python legal_actions, is_chance_node and tensors give what OpenSpiel's C++
    methods give (and raise its errors), at every node of random games."""
    game = pyspiel.load_game("ttr_nordic", {"players": players})
    base = pyspiel.State
    rng = random.Random(players)
    decisions = 0
    for _ in range(2):
        state = game.new_initial_state()
        assert state.is_chance_node() and base.is_chance_node(state)
        assert state.legal_actions() == base.legal_actions(state) == list(range(players))
        assert state.observation_tensor(1) == base.observation_tensor(state, 1) == [0.0] * SIZE
        assert state.information_state_tensor(1) == base.information_state_tensor(state, 1)
        with pytest.raises(pyspiel.SpielError):
            state.observation_tensor()  # a chance node has no player to default to
        while not state.is_terminal():
            if state.is_chance_node():
                assert base.is_chance_node(state)
                assert state.legal_actions() == base.legal_actions(state)
                play_chance(state, rng)
                continue
            assert not base.is_chance_node(state)
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
            with pytest.raises(ValueError, match="not legal now"):
                state.apply_action(action_space().size - 1)
            state.apply_action(rng.choice(state.legal_actions()))
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

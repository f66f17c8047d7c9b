"""The observation is built from the view only: re-dealing what the player cannot see changes nothing.
The incremental encoder gives exactly the vector of a from-scratch encoding."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from numpy.typing import NDArray

from ttr_nordic.engine import Claim, GameState, Phase, PlayerView
from ttr_nordic.engine.view import StepView, make_step_view
from ttr_nordic.rl import observation
from ttr_nordic.rl.observation import (
    NUM_KINDS,
    NUM_ROUTES,
    NUM_TICKETS,
    PHASES,
    SEATS,
    SIZE,
    ObservationEncoder,
    encode_view,
)


def plain_encoding(view: PlayerView) -> NDArray[np.float32]:
    """The documented layout written plainly, element by element, with no caches."""
    out = np.zeros(SIZE, dtype=np.float32)
    n, me = view.num_players, view.player
    i = 0
    for route, owner in enumerate(view.route_owner):
        if owner >= 0:
            out[i + route * SEATS + (owner - me) % n] = 1.0
    i += NUM_ROUTES * SEATS
    for kind in range(NUM_KINDS):
        out[i + kind] = view.hand[kind] / 12
    i += NUM_KINDS
    for seat in range(n):
        r = (seat - me) % n
        for kind in range(NUM_KINDS):
            if r:
                out[i + (r - 1) * NUM_KINDS + kind] = view.known_cards[seat][kind] / 12
    i += 2 * NUM_KINDS
    for slot, card in enumerate(view.display):
        if card >= 0:
            out[i + slot * NUM_KINDS + card] = 1.0
    i += 5 * NUM_KINDS
    out[i] = view.deck_count / 157
    for kind in range(NUM_KINDS):
        out[i + 1 + kind] = view.discard[kind] / 12
    out[i + 10] = view.ticket_deck_count / NUM_TICKETS
    i += 11
    for ticket, done in view.ticket_status():
        out[i + 2 * ticket] = 1.0
        out[i + 2 * ticket + 1] = float(done)
    i += 2 * NUM_TICKETS
    for ticket in view.offered_tickets:
        out[i + ticket] = 1.0
    i += NUM_TICKETS
    for seat in range(n):
        base = i + (seat - me) % n * 5
        values = (view.trains[seat] / 40, view.scores[seat] / 100, view.hand_sizes[seat] / 40)
        out[base : base + 3] = values
        out[base + 3] = view.ticket_counts[seat] / NUM_TICKETS
        out[base + 4] = view.offer_counts[seat] / 5
    i += SEATS * 5
    out[i + PHASES.index(view.phase)] = 1.0
    i += len(PHASES)
    if view.phase is not Phase.GAME_OVER:
        out[i + (view.current - me) % n] = 1.0
    i += SEATS
    if view.final_round_trigger >= 0:
        out[i] = 1.0
        out[i + 1] = view.final_turns_left / 3
    i += 2
    if view.tunnel is not None:
        for kind in range(NUM_KINDS):
            out[i + kind] = view.tunnel.base[kind] / 12
            out[i + NUM_KINDS + kind] = view.tunnel.revealed.count(kind) / 3
        out[i + 2 * NUM_KINDS] = view.tunnel.needed / 3
        out[i + 2 * NUM_KINDS + 1] = float(view.tunnel.locomotive_only)
    return out


@pytest.fixture(params=["c", "python"])
def encoder_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test with the C encoder (which ``make test``'s install builds) and with the Python one."""
    if request.param == "python":
        monkeypatch.setattr(observation, "_fast", None)
    else:
        assert observation.ACCELERATED, "the C observation encoder is not built: python hatch_build.py"
    return str(request.param)


def test_observation_follows_the_documented_layout() -> None:
    """The fast encoder (cached parts, one list per step) equals the plain one everywhere."""
    rng = random.Random(8)
    checked = tunnels = 0
    for g in range(8):
        state = GameState.new(players=2 + g % 2, seed=300 + g)
        while not state.is_over:
            for player in range(state.num_players):
                view = state.view(player, log=False)
                assert np.array_equal(encode_view(view), plain_encoding(view))
                tunnels += view.tunnel is not None
                checked += 1
            state.apply(rng.choice(state.legal_action_list()))
        view = state.view(0, log=False)
        assert np.array_equal(encode_view(view), plain_encoding(view))
    assert checked > 1000 and tunnels > 0


def test_observation_is_unchanged_when_hidden_information_is_redealt() -> None:
    rng = random.Random(3)
    checked = 0
    for g in range(6):
        state = GameState.new(players=2 + g % 2, seed=100 + g)
        while not state.is_over:
            for player in range(state.num_players):
                view = state.view(player, log=False)
                obs = encode_view(view)
                assert obs.shape == (SIZE,) and obs.dtype == np.float32
                redealt = view.determinize(rng)
                assert np.array_equal(encode_view(redealt.view(player, log=False)), obs)
                # The environments encode the engine's step view: re-dealt, it changes nothing either.
                assert np.array_equal(encode_view(make_step_view(redealt, player)), obs)
                checked += 1
            state.apply(rng.choice(state.legal_action_list()))
    assert checked > 1000


def test_observation_changes_with_what_the_player_sees() -> None:
    state = GameState.new(players=2, seed=5)
    before = encode_view(state.view(0))
    state.apply(state.legal_action_list()[0])  # player's own ticket choice
    assert not np.array_equal(encode_view(state.view(0)), before)


def test_incremental_encoder_equals_a_fresh_encoding_after_every_step(encoder_path: str) -> None:
    """After the deal and after every step of random 2- and 3-player games, for every seat. One
    encoder sees every seat every step; another only some views (as PettingZoo's lazy observe
    does) and goes from game to game without a reset."""
    rng = random.Random(11)
    every, sparse = ObservationEncoder(), ObservationEncoder()
    steps = claims = tunnels = sparse_checks = finals = 0
    for g in range(16):
        state = GameState.new(players=2 + g % 2, seed=500 + g)
        every.reset()
        while True:
            for player in range(state.num_players):
                view = state.view(player, log=False)
                expected = encode_view(view)
                assert np.array_equal(every.update(view), expected), (g, steps, player)
                if g < 4:
                    assert np.array_equal(expected, plain_encoding(view))
                if rng.random() < 0.3:
                    assert np.array_equal(sparse.update(view), expected), (g, steps, player)
                    sparse_checks += 1
            if state.is_over:
                break
            tunnels += state.tunnel is not None
            finals += state.final_round_trigger >= 0
            action = rng.choice(state.legal_action_list())
            claims += isinstance(action, Claim)
            state.apply(action)
            steps += 1
    assert steps > 2500 and claims > 300 and tunnels > 10 and finals > 16 and sparse_checks > 1500


def test_incremental_encoder_follows_any_view_with_any_other(encoder_path: str) -> None:
    """Views of unrelated positions in random order (other games, player counts and seats, a
    network that loses routes, re-dealt states, step views mixed with full views): each update
    still equals a fresh encoding."""
    rng = random.Random(12)
    views: list[PlayerView | StepView] = []
    for g in range(6):
        state = GameState.new(players=2 + g % 2, seed=700 + g)
        while not state.is_over:
            if rng.random() < 0.2:
                view = state.view(rng.randrange(state.num_players), log=False)
                views.append(view)
                views.append(view.determinize(rng).view(view.player, log=False))
                views.append(make_step_view(state, rng.randrange(state.num_players)))
            state.apply(rng.choice(state.legal_action_list()))
        views.append(state.view(0, log=False))
    rng.shuffle(views)
    encoder = ObservationEncoder()
    for view in views:
        assert np.array_equal(encoder.update(view), encode_view(view))
    assert len(views) > 300


def test_encoder_lists_follow_the_arrays(encoder_path: str) -> None:
    """``values`` (the vector as a list, kept cell by cell) equals ``encode_view(view).tolist()``
    after every step of random games, through tunnels that open and close, new games (a rebuilt
    seat), unrelated views, and ``update`` calls on the same seat in between; each list is fresh."""
    rng = random.Random(13)
    lists, mixed = ObservationEncoder(), ObservationEncoder()
    steps = tunnels_closed = 0
    handed_out: list[float] = []
    for g in range(8):
        state = GameState.new(players=2 + g % 2, seed=900 + g)
        while True:
            for player in range(state.num_players):
                view = make_step_view(state, player)
                expected = encode_view(view)
                found = lists.values(view)
                assert type(found) is list and found == expected.tolist(), (g, steps, player)
                if handed_out:
                    handed_out[:] = [7.0] * SIZE  # a caller's changes do not reach the encoder
                handed_out = found
                if rng.random() < 0.5:
                    assert mixed.values(view) == expected.tolist(), (g, steps, player)
                else:
                    assert np.array_equal(mixed.update(view), expected), (g, steps, player)
            if state.is_over:
                break
            had_tunnel = state.tunnel is not None
            state.apply(rng.choice(state.legal_action_list()))
            tunnels_closed += had_tunnel and state.tunnel is None
            steps += 1
            if rng.random() < 0.01:
                other = GameState.new(players=3, seed=steps)
                view = other.view(rng.randrange(3), log=False)
                assert lists.values(view) == encode_view(view).tolist()
    assert steps > 1000 and tunnels_closed > 5
    # Scores outside the encoder's table (negative after tickets, or very large) too.
    view = GameState.new(players=2, seed=3).view(0, log=False)
    for scores in ((-7, 1234), (999, 1000)):
        changed = dataclasses.replace(view, scores=scores)
        assert lists.values(changed) == encode_view(changed).tolist()
        assert np.array_equal(mixed.update(changed), encode_view(changed))


def test_encoder_blocks_survive_their_tables_being_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands, known cards, the discard and the display are written as remembered blocks; with
    tables that are emptied every few entries (as a long run empties them at their limit), the
    arrays and the lists still equal a fresh encoding after every step."""
    monkeypatch.setattr(observation, "_fast", None)  # the blocks are the Python encoder's
    monkeypatch.setattr(observation, "_BLOCK_LIMIT", 3)
    rng = random.Random(14)
    encoder = ObservationEncoder()
    steps = 0
    for g in range(4):
        state = GameState.new(players=2 + g % 2, seed=950 + g)
        while not state.is_over:
            for player in range(state.num_players):
                view = make_step_view(state, player)
                expected = encode_view(view)
                assert np.array_equal(encoder.update(view), expected), (g, steps, player)
                assert encoder.values(view) == expected.tolist(), (g, steps, player)
            state.apply(rng.choice(state.legal_action_list()))
            steps += 1
    assert steps > 400
    assert len(observation._COUNT_BLOCKS) <= 3 and len(observation._DISPLAY_BLOCKS) <= 3


def test_encoder_hands_out_copies(encoder_path: str) -> None:
    state = GameState.new(players=3, seed=9)
    encoder = ObservationEncoder()
    first = encoder.encode(state.view(1, log=False))
    first[:] = 7.0
    state.apply(state.legal_action_list()[0])
    view = state.view(1, log=False)
    assert np.array_equal(encoder.encode(view), encode_view(view))


def test_c_encoder_refuses_a_malformed_view_and_changes_nothing() -> None:
    """A view the C encoder cannot read (a caller's own, or a broken one) raises a clear error,
    and the seat's vector and list keep the last good view's values. (The Python encoder trusts
    the engine's views.)"""
    assert observation.ACCELERATED, "the C observation encoder is not built: python hatch_build.py"
    state = GameState.new(players=2, seed=21)
    for _ in range(30):
        state.apply(random.Random(4).choice(state.legal_action_list()))
    view = make_step_view(state, 0)
    encoder = ObservationEncoder()
    array = encoder.update(view)
    good = encode_view(view)
    broken = {
        "route_owner": [(5,) * NUM_ROUTES, (0,) * (NUM_ROUTES - 1), ("x",) * NUM_ROUTES, None],
        "hand": [(1,) * (NUM_KINDS - 1), (1.5,) * NUM_KINDS, (10**30,) * NUM_KINDS],
        "display": [(9, 0, 0, 0, 0), (-2, 0, 0, 0, 0)],
        "tickets": [(NUM_TICKETS,), (-1,), tuple(range(NUM_TICKETS + 1))],
        "offered_tickets": [(99,)],
        "player": [2, -1, "0"],
        "num_players": [4],
        "current": [5],
        "phase": ["over"],
        "known_cards": [((0,) * NUM_KINDS,), 7],
        "scores": [(1, 2, 3)],
    }
    for field, values in broken.items():
        for value in values:
            bad = make_step_view(state, 0)
            setattr(bad, field, value)
            with pytest.raises((ValueError, TypeError, OverflowError, IndexError)):
                encoder.update(bad)
            with pytest.raises((ValueError, TypeError, OverflowError, IndexError)):
                encoder.values(bad)
            assert np.array_equal(array, good), (field, value)
            assert encoder.values(view) == good.tolist()
    assert np.array_equal(encoder.update(view), good)


def test_fast_views_hold_every_field_of_the_dataclass() -> None:
    """``make_view`` fills the instance dict directly: it holds exactly the dataclass's fields
    and equals a view built through the constructor."""
    state = GameState.new(players=3, seed=4)
    rng = random.Random(4)
    while not state.is_over:
        state.apply(rng.choice(state.legal_action_list()))
        for log in (False, True):
            view = state.view(state.turn % 3, log=log)
            assert list(vars(view)) == [f.name for f in dataclasses.fields(PlayerView)]
            assert PlayerView(**vars(view)) == view


def test_a_copied_encoder_or_environment_encodes_afresh(encoder_path: str) -> None:
    """``copy.deepcopy`` and pickles of an encoder that has vectors (or of an environment that
    has observed) give a fresh encoder, whose vectors equal fresh encodings."""
    import copy
    import pickle

    from ttr_nordic.rl import aec_env

    state = GameState.new(players=3, seed=17)
    encoder = ObservationEncoder()
    rng = random.Random(17)
    for _ in range(25):
        for player in range(3):
            encoder.update(make_step_view(state, player))
            encoder.values(make_step_view(state, player))
        state.apply(rng.choice(state.legal_action_list()))
    for other in (copy.deepcopy(encoder), pickle.loads(pickle.dumps(encoder))):
        view = make_step_view(state, 1)
        assert np.array_equal(other.update(view), encode_view(view))
        assert other.values(view) == encode_view(view).tolist()
    env = aec_env(players=2)
    env.reset(seed=2)
    first = env.last()[0]
    twin = copy.deepcopy(env)
    assert np.array_equal(twin.last()[0]["observation"], first["observation"])
    twin.step(int(first["action_mask"].nonzero()[0][0]))
    agent = twin.agent_selection
    view = make_step_view(twin.unwrapped.state, twin.unwrapped._seat[agent])
    assert np.array_equal(twin.observe(agent)["observation"], encode_view(view))

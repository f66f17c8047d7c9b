"""The fixed action enumeration: every legal action of thousands of random positions round-trips."""

from __future__ import annotations

import random

import pytest

from ttr_nordic.engine import Claim, GameState, KeepTickets, RouteKind, parse_action
from ttr_nordic.rl.actions import action_space


def random_positions(games: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    positions = []
    for g in range(games):
        state = GameState.new(players=2 + g % 2, seed=seed * 1000 + g)
        while not state.is_over:
            positions.append(state.clone())
            state.apply(rng.choice(state.legal_action_list()))
    return positions


def test_every_legal_action_round_trips() -> None:
    space = action_space()
    positions = random_positions(24, seed=7)
    assert len(positions) > 3000
    shared = 0
    for state in positions:
        offer = state.offers[state.current]
        legal = state.legal_action_list()
        by_id: dict[int, list[object]] = {}
        for action in legal:
            action_id = space.encode(action, offer)
            assert 0 <= action_id < space.size
            by_id.setdefault(action_id, []).append(action)
            decoded = space.decode(action_id, state)
            assert state.is_legal(decoded)
            assert space.encode(decoded, offer) == action_id
            if decoded != action:
                # Only two fillings of a ferry's or Murmansk–Lieksa's groups can share an id.
                assert isinstance(action, Claim) and isinstance(decoded, Claim)
                assert decoded.route == action.route
                assert state.board.routes[action.route].kind in (RouteKind.FERRY, RouteKind.SPECIAL)
                assert sum(decoded.payment) == sum(action.payment)
                shared += 1
        ids = space.legal_ids(state)
        assert set(ids) == set(by_id)
    # Shared ids are rare: most positions have none.
    assert shared < len(positions) // 4


def test_ids_are_stable_and_describe_the_layout() -> None:
    space = action_space()
    assert space.encode(parse_action("F1")) == 0
    assert space.encode(parse_action("F5")) == 4
    assert space.encode(parse_action("B")) == 5
    assert space.encode(parse_action("T")) == 6
    assert space.encode(KeepTickets((3, 9)), offer=(9, 3, 20)) == 7 + 0b011 - 1
    assert space.describe(space.encode(parse_action("decline"))) == "decline tunnel"
    assert space.describe(space.encode(parse_action("pass"))) == "pass"
    assert space.describe(space.encode(parse_action("X OL"))) == "tunnel extra: 2 card(s), 1 locomotive(s)"
    assert space.describe(space.encode(parse_action("C R45 OOL"))).startswith("claim R45: 3 cards")


def test_bad_ids_and_actions_are_refused() -> None:
    space = action_space()
    state = GameState.new(players=2, seed=1)
    with pytest.raises(ValueError, match="action ids are 0 to"):
        space.decode(space.size, state)
    with pytest.raises(ValueError, match="not legal now"):
        space.decode(space.blind, state)  # initial tickets come first
    with pytest.raises(ValueError, match="not in the offer"):
        space.encode(KeepTickets((1,)), offer=(2, 3))
    with pytest.raises(ValueError, match="extra cards"):
        space.encode(parse_action("X OOOL"))

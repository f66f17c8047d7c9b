"""LegalSequence holds the actions of ``legal_action_list()`` in its order, whichever way it is
read first: a route's claims, the routes with claims, the draws, membership, iteration or an index."""

from __future__ import annotations

import random

from builders import build

from ttr_nordic.engine import Action, Claim, GameState, Phase
from ttr_nordic.engine.actions import DRAW_BLIND, DRAW_TICKETS, PASS, DrawFaceUp
from ttr_nordic.engine.legal import LegalSequence


def _by_route(listed: list[Action]) -> dict[int, list[Claim]]:
    grouped: dict[int, list[Claim]] = {}
    for action in listed:
        if isinstance(action, Claim):
            grouped.setdefault(action.route, []).append(action)
    return grouped


def _check_sequence(state: GameState, rng: random.Random) -> int:
    """Compare fresh sequences of ``state`` with its list, each read in another order first;
    returns how many ferry or Murmansk–Lieksa claims the listing held."""
    listed = state.legal_action_list()
    grouped = _by_route(listed)
    others = [a for a in listed if not isinstance(a, Claim)]
    num_routes = len(state.route_owner)

    lookups = state.legal_sequence()
    assert isinstance(lookups, LegalSequence)
    assert lookups.others == others
    for route in rng.sample(range(num_routes), 20) + list(grouped):
        assert list(lookups.claims_of(route)) == grouped.get(route, [])
    assert lookups.claim_routes() == list(grouped)
    assert list(lookups) == listed

    probes = state.legal_sequence()
    for action in listed:
        assert action in probes
    hand = state.hands[state.current]
    for _ in range(30):
        route = rng.randrange(num_routes)
        payment = tuple(rng.randint(0, h) for h in hand)
        near = Claim(route, payment)  # type: ignore[arg-type]
        assert (near in probes) == (near in listed)
    for action in (PASS, DRAW_BLIND, DRAW_TICKETS, *(DrawFaceUp(i) for i in range(5)), "C R01", None):
        assert (action in probes) == (action in listed)
    for claim in list(grouped.values())[:1]:
        # A route id of another type that compares equal: found as the list finds it.
        odd = Claim(float(claim[0].route), claim[0].payment)  # type: ignore[arg-type]
        assert (odd in probes) == (odd in listed) is True

    stepped = state.legal_sequence()
    iterator = iter(stepped)
    assert [next(iterator) for _ in range(len(others))] == others
    assert len(stepped) == len(listed)
    assert [stepped[i] for i in range(len(listed))] == listed
    assert stepped[1:4] == listed[1:4]
    assert list(iterator) == listed[len(others) :]
    assert list(stepped) == listed

    kinds = state.board.routes
    return sum(1 for a in listed if isinstance(a, Claim) and kinds[a.route].kind.name in ("FERRY", "SPECIAL"))


def test_the_sequence_lists_the_actions_of_the_list_through_games() -> None:
    rng = random.Random(3)
    checked = expensive = 0
    for players, seed in ((2, 21), (3, 22), (2, 23), (2, 24)):
        state = GameState.new(players=players, seed=seed)
        while not state.is_over:
            listed = state.legal_action_list()
            if state.phase is Phase.CHOOSE_ACTION:
                expensive += _check_sequence(state, rng)
                checked += 1
            else:
                assert state.legal_sequence() == listed
            # Mostly draws, so that the hands grow big and the ferries have many payments.
            claims = [a for a in listed if isinstance(a, Claim)]
            action = rng.choice(claims) if claims and rng.random() < 0.15 else rng.choice(listed)
            state.apply(action)
    assert checked > 200 and expensive > 1000


def test_pass_only_when_nothing_else_is_legal() -> None:
    state = build(display=".....", deck="", discard="")
    sequence = state.legal_sequence()
    assert list(sequence) == state.legal_action_list() == [PASS]
    assert isinstance(sequence, LegalSequence) and sequence.others == [PASS] and PASS in sequence
    state = build(hands=["OO", ""], display=".....")
    sequence = state.legal_sequence()
    assert isinstance(sequence, LegalSequence)
    assert sequence.others == [] and PASS not in sequence
    assert list(sequence) == state.legal_action_list() and sequence.claim_routes()

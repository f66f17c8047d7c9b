"""Action B on regular routes (R6.1–R6.3, R6.5–R6.8, R6.13)."""

from __future__ import annotations

import pytest
from builders import (
    assert_listing_sound,
    assert_rejected,
    build,
    claim,
    counts,
    rid,
    route_between,
)

from ttr_nordic.engine import Claim, Phase, Reason


def test_claim_effects() -> None:
    """R6.6: cards to the discard pile, trains down by N, owner set, points at once."""
    state = build(hands=["KKKRL", ""], display="YYYYY", deck="GG", discard="W", trains=[40, 40], scores=[3, 0])
    route = route_between("Oulu", "Vaasa")  # black 3, not connected to anything (R6.1)
    state.apply(claim("R70", "KKK"))
    assert state.route_owner[route] == 0
    assert state.hands[0] == counts("RL")
    assert state.discard == counts("KKKW")
    assert state.trains == [37, 40]
    assert state.scores == [3 + 4, 0]
    assert state.decision == (1, Phase.CHOOSE_ACTION)
    assert state.display == [3] * 5 and len(state.deck) == 2


def test_claimed_route_cannot_be_claimed_again() -> None:
    """R6.1."""
    state = build(hands=["OO", "OO"], owners={"R20": 1})
    assert_rejected(state, claim("R20", "OO"), Reason.ROUTE_CLAIMED)
    state = build(hands=["OO", "OO"], owners={"R20": 0})
    assert_rejected(state, claim("R20", "OO"), Reason.ROUTE_CLAIMED)


def test_one_route_per_turn() -> None:
    """R6.2: the turn passes after one claim."""
    state = build(hands=["OOKK", ""], display="YYYYY", deck="GG")
    state.apply(claim("R20", "OO"))  # Göteborg–Oslo
    assert state.current == 1
    assert_rejected(state, claim("R43", "KK"), Reason.NOT_YOUR_TURN, player=0)


def test_trains_needed() -> None:
    """R6.3: at least N trains; exactly N is enough."""
    state = build(hands=["UUUUU", ""], trains=[4, 40])
    assert_rejected(state, claim("R40", "UUUUU"), Reason.NOT_ENOUGH_TRAINS)  # Kirkenes–Rovaniemi 5
    state = build(hands=["UUUUU", ""], trains=[5, 40])
    state.apply(claim("R40", "UUUUU"))
    assert state.trains[0] == 0


def test_regular_colored_route_payments() -> None:
    """R6.7: exactly N cards of the route's color; no locomotive ever."""
    hand = "OOOLLKKK"
    state = build(hands=[hand, ""])
    assert_rejected(state, claim("R20", "OL"), Reason.LOCOMOTIVE_NOT_ALLOWED)
    assert_rejected(state, claim("R20", "LL"), Reason.LOCOMOTIVE_NOT_ALLOWED)
    assert_rejected(state, claim("R20", "OOL"), {Reason.LOCOMOTIVE_NOT_ALLOWED, Reason.INVALID_PAYMENT})
    assert_rejected(state, claim("R20", "KK"), Reason.WRONG_COLOR)
    assert_rejected(state, claim("R20", "OK"), Reason.WRONG_COLOR)
    assert_rejected(state, claim("R20", "O"), Reason.INVALID_PAYMENT)
    assert_rejected(state, claim("R20", "OOO"), Reason.INVALID_PAYMENT)  # superfluous card (R6.5)
    assert_rejected(state, claim("R20", ""), Reason.INVALID_PAYMENT)
    state.apply(claim("R20", "OO"))
    assert state.hands[0] == counts("OLLKKK")


def test_cards_must_be_in_hand() -> None:
    """R6.5."""
    state = build(hands=["O", "OOOO"])
    assert_rejected(state, claim("R20", "OO"), Reason.CARDS_NOT_IN_HAND)
    state = build(hands=["OO", ""])
    assert_rejected(state, claim("R70", "KKK"), Reason.CARDS_NOT_IN_HAND)


def test_gray_route_any_single_color() -> None:
    """R6.8: Göteborg–Norrköping, gray 3."""
    state = build(hands=["RRRGGGLLLY", ""])
    assert_rejected(state, claim("R18", "RRG"), Reason.WRONG_COLOR)
    assert_rejected(state, claim("R18", "RRL"), Reason.LOCOMOTIVE_NOT_ALLOWED)
    assert_rejected(state, claim("R18", "LLL"), Reason.LOCOMOTIVE_NOT_ALLOWED)
    assert_rejected(state, claim("R18", "RRRG"), {Reason.WRONG_COLOR, Reason.INVALID_PAYMENT})
    assert_rejected(state, claim("R18", "RR"), Reason.INVALID_PAYMENT)
    # The listing offers each color held 3 times, once.
    listed = {a for a in assert_listing_sound(state) if isinstance(a, Claim) and a.route == rid("R18")}
    assert listed == {claim("R18", "RRR"), claim("R18", "GGG")}
    state.apply(claim("R18", "GGG"))
    assert state.route_owner[rid("R18")] == 0
    assert state.scores[0] == 4


@pytest.mark.parametrize(
    ("code", "payment", "length", "points"),
    [
        ("R22", "K", 1, 1),  # Helsinki–Lahti black 1
        ("R20", "OO", 2, 2),  # Göteborg–Oslo orange 2
        ("R70", "KKK", 3, 4),  # Oulu–Vaasa black 3
        ("R65", "OOOO", 4, 7),  # Sundsvall–Örebro orange 4
        ("R40", "UUUUU", 5, 10),  # Kirkenes–Rovaniemi blue 5
        ("R56", "RRRRLL", 6, 15),  # Mo i Rana–Trondheim red ferry 6 (2 locomotive spaces)
        ("R51", "GGGGGGGGG", 9, 27),  # Murmansk–Lieksa
    ],
)
def test_points_by_length(code: str, payment: str, length: int, points: int) -> None:
    """R6.13."""
    state = build(hands=[payment, ""], display="YYYYY", deck="WW")
    state.apply(claim(code, payment))
    assert state.scores[0] == points
    assert state.trains[0] == 40 - length


def test_claim_listing_respects_ownership_and_trains() -> None:
    state = build(hands=["OOOO", ""], owners={"R20": 1}, trains=[3, 40])
    listed = {a for a in assert_listing_sound(state) if isinstance(a, Claim)}
    assert claim("R20", "OO") not in listed  # owned
    assert claim("R65", "OOOO") not in listed  # 4 trains needed, 3 left
    assert claim("R68", "OO") in listed  # Oulu–Rovaniemi orange 2

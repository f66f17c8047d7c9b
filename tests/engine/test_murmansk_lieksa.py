"""The special route Murmansk–Lieksa (R6.12, §12 items 5 and 11)."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest
from builders import (
    GREEN,
    LOCO,
    WHITE,
    YELLOW,
    assert_listing_sound,
    assert_rejected,
    build,
    claim,
    counts,
    deck_top_first,
    rid,
)

from ttr_nordic.engine import Claim, Reason, load_board
from ttr_nordic.engine.payments import check_payment

SPECIAL = "R51"
board = load_board()
route = board.route_by_code(SPECIAL)
OTHERS = "WYUKRPOL"  # eight other cards of mixed kinds, a locomotive included


def _payment(q: int) -> str:
    """9 - q green cards and q groups of 4 mixed cards (locomotives included)."""
    filler = (OTHERS * 5)[: 4 * q]
    return "G" * (9 - q) + filler


@pytest.mark.parametrize("q", range(10))
def test_every_size_from_9_to_36(q: int) -> None:
    payment = _payment(q)
    assert len(payment) == 9 + 3 * q
    state = build(hands=[payment + "GK", ""], display="PPPPP", deck="UUU")
    state.apply(claim(SPECIAL, payment))
    assert state.route_owner[route.id] == 0
    assert state.scores[0] == 27  # whatever the number of cards (R6.6)
    assert state.trains[0] == 31
    assert state.hands[0] == counts("GK")
    assert state.discard == counts(payment)
    # Not a tunnel: nothing is revealed.
    assert deck_top_first(state) == [2, 2, 2]


def test_official_example_7_green_and_8_other_cards() -> None:
    payment = "GGGGGGG" + "WYUKRPOL"
    state = build(hands=[payment, ""])
    state.apply(claim(SPECIAL, payment))
    assert state.scores[0] == 27


@pytest.mark.parametrize(
    ("payment", "reason"),
    [
        ("GGGGGGGGL", Reason.LOCOMOTIVE_NOT_ALLOWED),  # a single locomotive is never a unit
        ("LLLLLLLLL", Reason.LOCOMOTIVE_NOT_ALLOWED),  # a locomotive is never "the color"
        ("GGGGGGGGW", Reason.INVALID_PAYMENT),  # two colors among single cards
        ("GGGGGGGG", Reason.INVALID_PAYMENT),  # too few
        ("GGGGGGGGGG", Reason.INVALID_PAYMENT),  # 10 cards: surplus (§12 item 11)
        ("GGGGGGGGGWW", Reason.INVALID_PAYMENT),
        ("GGGGGGGGWYUKR", Reason.INVALID_PAYMENT),  # 13 = 8 green + a group + a leftover card
        ("GGGGGGGLWYUK", Reason.INVALID_PAYMENT),  # 12: needs 8 of one color; loco can't be one
        ("GGGGGGWYUKRPOL", Reason.INVALID_PAYMENT),  # 14
        ("GGGGGGGWYUKRPO", Reason.INVALID_PAYMENT),  # 14 = 7 green + 7 others: not 8 others
    ],
)
def test_rejected_payments(payment: str, reason: Reason) -> None:
    state = build(hands=["G" * 12 + "L" * 12 + "WWYUKRPO", ""])
    assert_rejected(state, claim(SPECIAL, payment), reason)


def test_thirty_nine_cards_are_too_many() -> None:
    payment = "G" * 3 + "W" * 12 + "Y" * 12 + "L" * 12
    assert check_payment(route, counts(payment)) is Reason.INVALID_PAYMENT
    assert check_payment(route, counts(payment[:36])) is None


def test_locomotives_inside_groups_of_four() -> None:
    state = build(hands=["GGGGGGGGLLLL", ""])
    state.apply(claim(SPECIAL, "GGGGGGGGLLLL"))
    assert state.scores[0] == 27
    # Four-card groups of green count too: 12 green is 8 singles + 1 group.
    assert check_payment(route, counts("G" * 12)) is None


def test_chosen_color_can_be_any_color() -> None:
    for letter in "PWUYOKRG":
        assert check_payment(route, counts(letter * 9)) is None


def test_trains_and_ownership() -> None:
    state = build(hands=["G" * 9, ""], trains=[8, 40])
    assert_rejected(state, claim(SPECIAL, "G" * 9), Reason.NOT_ENOUGH_TRAINS)
    state = build(hands=["G" * 9, ""], owners={SPECIAL: 1})
    assert_rejected(state, claim(SPECIAL, "G" * 9), Reason.ROUTE_CLAIMED)
    state = build(hands=["G" * 8, ""])
    assert_rejected(state, claim(SPECIAL, "G" * 9), Reason.CARDS_NOT_IN_HAND)


def test_rule_matches_construction() -> None:
    """Exactly the payments made of 9 units (one card of a chosen color, or any 4 cards)."""
    alphabet = (GREEN, WHITE, LOCO)
    groups: list[tuple[int, ...]] = []
    for combo in combinations_with_replacement(alphabet, 4):
        groups.append(tuple(sum(1 for c in combo if c == k) for k in range(9)))
    valid: set[tuple[int, ...]] = set()
    for color in (GREEN, WHITE):
        single = tuple(1 if k == color else 0 for k in range(9))
        reachable: set[tuple[int, ...]] = {(0,) * 9}
        for _ in range(9):
            reachable = {tuple(a + b for a, b in zip(m, u, strict=True)) for m in reachable for u in (single, *groups)}
        valid |= reachable
    for size in range(40):
        for pick in combinations_with_replacement(alphabet, size):
            payment = [0] * 9
            for kind in pick:
                payment[kind] += 1
            reason = check_payment(route, payment)
            if tuple(payment) in valid:
                assert reason is None, payment
            else:
                expected = Reason.LOCOMOTIVE_NOT_ALLOWED if size == 9 and payment[LOCO] else Reason.INVALID_PAYMENT
                assert reason is expected, (payment, reason)


def test_listing_offers_every_number_of_groups() -> None:
    state = build(hands=["G" * 9 + "W" * 8 + "LL", ""], display="PPPPP", deck="YY")
    listed = [a for a in assert_listing_sound(state) if isinstance(a, Claim) and a.route == rid(SPECIAL)]
    # Green as the color: 9 green; 8 + 1 group; 7 + 2 groups; 6 + 3 groups (13 cards left for the
    # 12 in groups); not 5 + 4 groups (14 cards left, 16 needed).
    by_color: dict[int, set[int]] = {}
    for action in listed:
        size = sum(action.payment)
        for color in (GREEN, WHITE):
            q = (size - 9) // 3
            if action.payment[color] >= 9 - q:
                by_color.setdefault(color, set()).add(q)
    assert by_color[GREEN] == {0, 1, 2, 3}
    # White as the color: 8 whites at most, so at least 1 group; 9 - q whites with q groups.
    assert by_color[WHITE] >= {1, 2, 3}
    sizes = {sum(a.payment) for a in listed}
    assert sizes == {9, 12, 15, 18}
    assert all(check_payment(route, a.payment) is None for a in listed)
    assert YELLOW not in {k for a in listed for k in range(9) if a.payment[k]}

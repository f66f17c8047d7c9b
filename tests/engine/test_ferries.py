"""Ferries (R6.9, §12 items 1 and 2)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations_with_replacement

import pytest
from builders import (
    BLACK,
    BLUE,
    GREEN,
    LOCO,
    ORANGE,
    RED,
    WHITE,
    YELLOW,
    assert_listing_sound,
    assert_rejected,
    build,
    claim,
    counts,
    rid,
)

from ttr_nordic.engine import Claim, Reason, load_board
from ttr_nordic.engine.board import GRAY, RouteKind
from ttr_nordic.engine.payments import check_payment

board = load_board()
FERRY = "R45"  # Kristiansand–Stavanger: orange, 3 spaces, 1 locomotive space
RICH = "OOOOOLLLLWWWKKKYYY"


# -------------------------------------------------------- the worked example


@pytest.mark.parametrize(
    "payment",
    [
        "OOL",  # 2 Orange + 1 Loco
        "OLL",  # 1 Orange + 2 Loco
        "LLL",  # 3 Loco
        "OOWKY",  # 2 Orange + any 3 cards
        "OOWWW",
        "OLWKY",  # 1 Orange + 1 Loco + any 3 cards
        "WWWKKKYYY",  # any 9 cards
        "OOOOOLLLW",  # any 9 cards, locomotives and orange included
        "OOOOO",  # 2 Orange + 3 orange as the group (§12 item 1)
        "OOLLL",  # the group may contain locomotives
        "OWKYLLL",  # 1 Orange + 2 groups
        "LWKYWKY",  # 1 Loco + 2 groups
    ],
)
def test_kristiansand_stavanger_accepts(payment: str) -> None:
    state = build(hands=[RICH, ""], display="RRRRR", deck="GG", trains=[40, 40])
    state.apply(claim(FERRY, payment))
    assert state.route_owner[rid(FERRY)] == 0
    # R6.6: the score depends only on the length, however many cards were paid.
    assert state.scores[0] == 4
    assert state.trains[0] == 37
    assert state.discard == counts(payment)
    hand = counts(RICH)
    assert state.hands[0] == [hand[k] - counts(payment)[k] for k in range(9)]


@pytest.mark.parametrize(
    ("payment", "reason"),
    [
        ("OOO", Reason.MISSING_LOCOMOTIVES),  # 3 Orange
        ("OOWK", Reason.INVALID_PAYMENT),  # 2 Orange + 2 other cards
        ("OOLW", Reason.INVALID_PAYMENT),  # 2 Orange + 1 Loco + 1 other card
        ("OOW", Reason.INVALID_PAYMENT),  # a wrong color single card
        ("OL", Reason.INVALID_PAYMENT),  # too few
        ("OOLL", Reason.INVALID_PAYMENT),  # superfluous locomotive (R6.5)
        ("OOLWKY", Reason.INVALID_PAYMENT),  # a valid payment plus 3 more cards is 6: even surplus
        ("WWWKKKYYYL", Reason.INVALID_PAYMENT),  # 10 cards
        ("WWWKKKYYYLLL", Reason.INVALID_PAYMENT),  # 12 cards: more groups than spaces
    ],
)
def test_kristiansand_stavanger_rejects(payment: str, reason: Reason) -> None:
    state = build(hands=[RICH, ""], display="RRRRR", deck="GG")
    assert_rejected(state, claim(FERRY, payment), reason)


def test_ferry_payment_must_be_in_hand() -> None:
    state = build(hands=["OOO", ""])
    assert_rejected(state, claim(FERRY, "OOL"), Reason.CARDS_NOT_IN_HAND)


def test_mo_i_rana_trondheim_example() -> None:
    """BGG-G example: 3 red + 1 locomotive + 6 other cards for the red ferry of 6 (2 loco spaces)."""
    state = build(hands=["RRRLWWKKYY", ""])
    state.apply(claim("R56", "RRRLWWKKYY"))
    assert state.scores[0] == 15
    assert state.trains[0] == 34
    state = build(hands=["RRRRRL", ""])
    assert_rejected(state, claim("R56", "RRRRRL"), Reason.MISSING_LOCOMOTIVES)
    state = build(hands=["RRRRLL", ""])
    state.apply(claim("R56", "RRRRLL"))


def test_gray_ferries() -> None:
    """A gray ferry: one color of the player's choice for the single cards."""
    # Århus–København: gray, 1 space, which is a locomotive space.
    state = build(hands=["LOYKOO", ""])
    assert_rejected(state, claim("R08", "O"), Reason.MISSING_LOCOMOTIVES)
    assert_rejected(state, claim("R08", "OY"), Reason.INVALID_PAYMENT)
    assert_rejected(state, claim("R08", "LO"), Reason.INVALID_PAYMENT)
    state.apply(claim("R08", "OYK"))
    state = build(hands=["LOYKOO", ""])
    state.apply(claim("R08", "L"))
    # Göteborg–Ålborg: gray, 2 spaces, 1 locomotive space.
    for payment in ("OL", "YL", "LL", "OYKL", "OOYK", "YOOO"):
        state = build(hands=["OOOYYKLL", ""])
        state.apply(claim("R02", payment))
        assert state.scores[0] == 2
    state = build(hands=["OOOYYKLL", ""])
    assert_rejected(state, claim("R02", "OO"), Reason.MISSING_LOCOMOTIVES)
    assert_rejected(state, claim("R02", "OY"), Reason.INVALID_PAYMENT)
    assert_rejected(state, claim("R02", "OYL"), Reason.INVALID_PAYMENT)


# ------------------------------------------- exhaustive check of R6.9 by construction


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _unit(kind: int) -> tuple[int, ...]:
    return tuple(1 if k == kind else 0 for k in range(9))


def _groups(alphabet: tuple[int, ...], size: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for combo in combinations_with_replacement(alphabet, size):
        total: tuple[int, ...] = (0,) * 9
        for kind in combo:
            total = _add(total, _unit(kind))
        out.append(total)
    return out


def _constructed_ferry_payments(route_code: str, alphabet: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every payment built space by space: a locomotive space takes a locomotive or any 3
    cards; a colored space takes a locomotive, one card of the color, or any 3 cards."""
    route = board.route_by_code(route_code)
    colors = [c for c in alphabet if c != LOCO] if route.color == GRAY else [route.color]
    groups = _groups(alphabet, 3)
    valid: set[tuple[int, ...]] = set()
    for color in colors:
        reachable: set[tuple[int, ...]] = {(0,) * 9}
        for space in range(route.length):
            units = [_unit(LOCO), *groups]
            if space >= route.ferry_locomotives:
                units.append(_unit(color))
            reachable = {_add(m, u) for m in reachable for u in units}
        valid |= reachable
    return valid


def _all_multisets(alphabet: tuple[int, ...], max_size: int) -> Iterator[tuple[int, ...]]:
    for size in range(max_size + 1):
        for combo in combinations_with_replacement(alphabet, size):
            total = [0] * 9
            for kind in combo:
                total[kind] += 1
            yield tuple(total)


@pytest.mark.parametrize(
    ("code", "alphabet"),
    [
        ("R45", (ORANGE, LOCO, WHITE, BLACK)),  # orange 3, 1 loco space
        ("R74", (GREEN, LOCO, WHITE, RED)),  # Stockholm–Tallinn green 4, 2 loco spaces
        ("R56", (RED, LOCO, BLUE)),  # Mo i Rana–Trondheim red 6, 2 loco spaces
        ("R08", (ORANGE, YELLOW, LOCO)),  # gray 1, all locomotive
        ("R02", (ORANGE, YELLOW, LOCO, BLACK)),  # gray 2, 1 loco space
        ("R24", (ORANGE, YELLOW, LOCO)),  # Helsinki–Stockholm gray 4, 2 loco spaces
    ],
)
def test_ferry_rule_matches_construction(code: str, alphabet: tuple[int, ...]) -> None:
    """check_payment accepts exactly the payments that split into N units (R6.9), and the
    reason for a rejection is MISSING_LOCOMOTIVES only in the case the spec names."""
    route = board.route_by_code(code)
    assert route.kind is RouteKind.FERRY
    valid = _constructed_ferry_payments(code, alphabet)
    colors = {c for c in alphabet if c != LOCO} if route.color == GRAY else {route.color}
    for payment in _all_multisets(alphabet, 3 * route.length + 2):
        reason = check_payment(route, payment)
        if payment in valid:
            assert reason is None, payment
            continue
        assert reason is not None, payment
        total = sum(payment)
        missing = (
            total == route.length
            and payment[LOCO] < route.ferry_locomotives
            and any(payment[c] + payment[LOCO] == total for c in colors)
        )
        expected = Reason.MISSING_LOCOMOTIVES if missing else Reason.INVALID_PAYMENT
        assert reason is expected, (payment, reason)


# ------------------------------------------------------------------ listing


def _structures(payment: tuple[int, ...], length: int, loco_spaces: int, color: int) -> set[tuple[int, int]]:
    """The (groups, single locomotives) splits a ferry payment allows."""
    out: set[tuple[int, int]] = set()
    total = sum(payment)
    if (total - length) % 2:
        return out
    groups = (total - length) // 2
    for singles_loco in range(length - groups + 1):
        singles_color = length - groups - singles_loco
        if (
            singles_loco <= payment[LOCO]
            and singles_color <= payment[color]
            and singles_color <= length - loco_spaces
            and groups >= 0
        ):
            out.add((groups, singles_loco))
    return out


@pytest.mark.parametrize(
    ("code", "hand"),
    [
        ("R45", "OOOLLLWWWKK"),
        ("R45", "OOLWWWKKK"),
        ("R74", "GGGLLLRRRRRRWW"),
        ("R56", "RRRRLLLUUUUUUKKK"),
        ("R57", "YYLWWW"),  # Narvik–Tromsø yellow 3, 1 loco space
    ],
)
def test_ferry_listing_covers_every_way_to_cover_the_spaces(code: str, hand: str) -> None:
    """Each way to cover the spaces (how many groups, how many single locomotives) is offered
    by at least one listed payment; every listed payment is distinct and accepted."""
    route = board.route_by_code(code)
    state = build(hands=[hand, ""], display="PPPPP", deck="PP")
    listed = [a for a in assert_listing_sound(state) if isinstance(a, Claim) and a.route == route.id]
    assert listed
    offered: set[tuple[int, int]] = set()
    for action in listed:
        offered |= _structures(action.payment, route.length, route.ferry_locomotives, route.color)
    held = counts(hand)
    possible: set[tuple[int, int]] = set()
    for payment in _all_multisets(tuple(k for k in range(9) if held[k]), 3 * route.length):
        if all(payment[k] <= held[k] for k in range(9)) and check_payment(route, payment) is None:
            possible |= _structures(payment, route.length, route.ferry_locomotives, route.color)
    assert offered == possible


def test_ferry_listing_loco_space_by_locomotive_or_group() -> None:
    state = build(hands=["OOLWWW", ""])
    listed = {a.payment for a in state.legal_action_list() if isinstance(a, Claim) and a.route == rid(FERRY)}
    assert tuple(counts("OOL")) in listed  # the loco space paid with a locomotive
    assert tuple(counts("OOWWW")) in listed  # the loco space paid with 3 cards
    assert tuple(counts("OLWWW")) in listed  # a colored space paid with 3 cards

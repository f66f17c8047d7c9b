"""Tunnels (R6.10, R6.11, §12 items 3 and 4)."""

from __future__ import annotations

import dataclasses

import pytest
from builders import (
    BOARD,
    GREEN,
    LOCO,
    RED,
    YELLOW,
    assert_listing_sound,
    assert_rejected,
    build,
    claim,
    counts,
    deck_top_first,
    rid,
)

from ttr_nordic.engine import Board, Claim, KeepTickets, PayTunnelExtra, Phase, Reason
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS, DrawFaceUp
from ttr_nordic.engine.board import GRAY
from ttr_nordic.engine.claims import route_tables as _route_tables
from ttr_nordic.engine.payments import check_payment

TUNNEL = "R44"  # Kristiansand–Stavanger, green tunnel of 2


def extra(letters: str) -> PayTunnelExtra:
    return PayTunnelExtra(tuple(counts(letters)))  # type: ignore[arg-type]


# ----------------------------------------------------------------- base payment


@pytest.mark.parametrize("payment", ["GG", "GL", "LL"])
def test_base_payment_any_mix_of_color_and_locomotives(payment: str) -> None:
    """R6.10: N cards, each the route's color or a locomotive, all locomotives included."""
    state = build(hands=["GGLL", ""], deck="WWW", display="PPPPP")
    state.apply(claim(TUNNEL, payment))
    assert state.route_owner[rid(TUNNEL)] == 0  # nothing matched: claimed


@pytest.mark.parametrize(
    ("payment", "reasons"),
    [
        ("G", {Reason.INVALID_PAYMENT}),
        ("GGG", {Reason.INVALID_PAYMENT}),
        ("GLL", {Reason.INVALID_PAYMENT}),
        ("RR", {Reason.WRONG_COLOR}),
        ("GR", {Reason.WRONG_COLOR}),
        # 3-card groups are not a substitution on tunnels (R6.10).
        ("GRRR", {Reason.INVALID_PAYMENT, Reason.WRONG_COLOR}),
        ("GGRRR", {Reason.INVALID_PAYMENT, Reason.WRONG_COLOR}),
        ("LRRR", {Reason.INVALID_PAYMENT, Reason.WRONG_COLOR}),
    ],
)
def test_invalid_base_payment_reveals_nothing(payment: str, reasons: set[Reason]) -> None:
    """R6.11 step 1: rejected, and no card is revealed (the whole state is unchanged)."""
    state = build(hands=["GGGLLRRRR", ""], deck="GGG", display="PPPPP")
    assert_rejected(state, claim(TUNNEL, payment), reasons)


def test_four_card_groups_are_not_allowed_on_tunnels() -> None:
    state = build(hands=["URRRR", ""], deck="GGG")
    assert_rejected(state, claim("R41", "RRRR"), {Reason.INVALID_PAYMENT, Reason.WRONG_COLOR})
    state = build(hands=["PRRR", ""], deck="GGG")
    assert_rejected(state, claim("R41", "RRR"), {Reason.INVALID_PAYMENT, Reason.WRONG_COLOR})


def test_tunnel_checks_route_trains_and_hand_before_revealing() -> None:
    state = build(hands=["GG", "GG"], deck="GGG", owners={TUNNEL: 1})
    assert_rejected(state, claim(TUNNEL, "GG"), Reason.ROUTE_CLAIMED)
    state = build(hands=["GG", ""], deck="GGG", trains=[1, 40])
    assert_rejected(state, claim(TUNNEL, "GG"), Reason.NOT_ENOUGH_TRAINS)
    state = build(hands=["G", ""], deck="GGG")
    assert_rejected(state, claim(TUNNEL, "GG"), Reason.CARDS_NOT_IN_HAND)


# ------------------------------------------------------------------- resolution


def test_no_match_claims_with_the_base_payment() -> None:
    """R6.11 steps 5, 6, 8, 9."""
    state = build(hands=["GGR", ""], deck="RWKU", display="PPPPP", discard="Y")
    state.apply(claim(TUNNEL, "GG"))
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.scores[0] == 2
    assert state.trains[0] == 38
    assert state.hands[0] == counts("R")
    # Base payment and the 3 revealed cards go to the discard pile.
    assert state.discard == counts("GGRWKY")
    assert deck_top_first(state) == [2]
    assert state.log[-1].revealed == (RED, 1, 5)
    assert state.decision == (1, Phase.CHOOSE_ACTION)


def test_color_mode_matches_color_and_locomotives() -> None:
    """R6.11 step 3: a base with a color card: the color and locomotives match."""
    state = build(hands=["GGGL", ""], deck="GLRW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.decision == (0, Phase.TUNNEL_EXTRA)
    assert state.tunnel is not None
    assert state.tunnel.needed == 2
    assert state.tunnel.revealed == (GREEN, LOCO, RED)
    assert not state.tunnel.locomotive_only
    # Step 2: the base is set aside, neither in the hand nor in the discard pile.
    assert state.hands[0] == counts("GL")
    assert sum(state.discard) == 0
    assert state.route_owner[rid(TUNNEL)] == -1


def test_mixed_base_is_color_mode() -> None:
    state = build(hands=["GL", ""], deck="GGR", display="PPPPP")
    state.apply(claim(TUNNEL, "GL"))
    assert state.tunnel is not None
    assert state.tunnel.needed == 2
    assert not state.tunnel.locomotive_only


def test_locomotive_only_mode_matches_only_locomotives() -> None:
    """R6.11 step 3: a base of locomotives only; revealed green does not match."""
    state = build(hands=["LLLG", ""], deck="GLGW", display="PPPPP")
    state.apply(claim(TUNNEL, "LL"))
    assert state.tunnel is not None
    assert state.tunnel.locomotive_only
    assert state.tunnel.needed == 1
    # Step 7(a): in locomotive-only mode every extra card must be a locomotive.
    assert_rejected(state, extra("G"), Reason.INVALID_TUNNEL_EXTRA)
    assert set(state.legal_action_list()) == {extra("L"), DECLINE_TUNNEL}
    state.apply(extra("L"))
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.hands[0] == counts("G")
    assert state.discard == counts("LLLGLG")


def test_locomotive_only_base_with_color_cards_revealed_is_free() -> None:
    state = build(hands=["LL", ""], deck="GGGW", display="PPPPP")
    state.apply(claim(TUNNEL, "LL"))
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.discard == counts("LLGGG")


def test_pay_extra_any_mix_only_the_count_matters() -> None:
    """R6.11 step 7(a): a revealed locomotive may be answered with the color and vice versa."""
    state = build(hands=["GGGLL", ""], deck="GLRW", display="PPPPP", scores=[5, 0])
    state.apply(claim(TUNNEL, "GG"))
    assert set(state.legal_action_list()) == {extra("GL"), extra("LL"), DECLINE_TUNNEL}
    state.apply(extra("LL"))
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.hands[0] == counts("G")
    assert state.discard == counts("GGLL" + "GLR")  # base, extra and the revealed cards
    assert state.scores[0] == 5 + 2  # R6.6: extras do not change the points
    assert state.trains[0] == 38
    assert state.tunnel is None
    assert state.decision == (1, Phase.CHOOSE_ACTION)


@pytest.mark.parametrize(
    ("letters", "reason"),
    [
        ("G", Reason.INVALID_TUNNEL_EXTRA),  # too few
        ("GGL", Reason.INVALID_TUNNEL_EXTRA),  # too many
        ("GR", Reason.INVALID_TUNNEL_EXTRA),  # a wrong card
        ("RR", Reason.INVALID_TUNNEL_EXTRA),
        ("", Reason.INVALID_TUNNEL_EXTRA),
    ],
)
def test_wrong_extra_payment(letters: str, reason: Reason) -> None:
    state = build(hands=["GGGGLRR", ""], deck="GGRW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert_rejected(state, extra(letters), reason)
    # The player must then pay correctly or decline.
    assert state.decision == (0, Phase.TUNNEL_EXTRA)
    state.apply(extra("GL"))
    assert state.route_owner[rid(TUNNEL)] == 0


def test_extra_cards_must_be_in_hand() -> None:
    state = build(hands=["GGG", ""], deck="GGRW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert_rejected(state, extra("GG"), {Reason.CARDS_NOT_IN_HAND, Reason.INVALID_TUNNEL_EXTRA})
    assert_rejected(state, extra("GL"), {Reason.CARDS_NOT_IN_HAND, Reason.INVALID_TUNNEL_EXTRA})


def test_decline_returns_the_base_even_when_able_to_pay() -> None:
    """R6.11 step 7(b) and 9."""
    state = build(hands=["GGGGLL", ""], deck="GLRW", display="PPPPP", scores=[3, 0])
    state.apply(claim(TUNNEL, "GG"))
    assert extra("GG") in state.legal_actions()
    state.apply(DECLINE_TUNNEL)
    assert state.hands[0] == counts("GGGGLL")
    assert state.route_owner[rid(TUNNEL)] == -1
    assert state.trains[0] == 40
    assert state.scores[0] == 3
    assert state.discard == counts("GLR")  # the revealed cards
    assert state.tunnel is None
    assert state.decision == (1, Phase.CHOOSE_ACTION)


def test_unable_to_pay_only_decline() -> None:
    state = build(hands=["GGR", ""], deck="LLGW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.tunnel is not None and state.tunnel.needed == 3
    assert state.legal_action_list() == [DECLINE_TUNNEL]
    assert_rejected(state, extra("R"), Reason.INVALID_TUNNEL_EXTRA)
    state.apply(DECLINE_TUNNEL)
    assert state.hands[0] == counts("GGR")


def test_nothing_else_during_tunnel_resolution() -> None:
    """R4.2."""
    state = build(hands=["GGGLL", "OO"], deck="GLRW", display="PPPPP", ticket_deck=[1, 2, 3])
    state.apply(claim(TUNNEL, "GG"))
    for action in (DRAW_BLIND, DrawFaceUp(0), DRAW_TICKETS, claim("R20", "LL"), PASS, KeepTickets((1,))):
        assert_rejected(state, action, Reason.ACTION_IN_PROGRESS)
    assert_rejected(state, claim(TUNNEL, "GL"), Reason.ACTION_IN_PROGRESS)
    assert_rejected(state, DECLINE_TUNNEL, Reason.NOT_YOUR_TURN, player=1)
    assert_rejected(state, claim("R20", "OO"), Reason.NOT_YOUR_TURN, player=1)


def test_tunnel_answers_outside_a_tunnel_are_rejected() -> None:
    state = build(hands=["GGLL", ""], deck="GLRW", display="PPPPP")
    assert_rejected(state, DECLINE_TUNNEL, {Reason.INVALID_TUNNEL_EXTRA, Reason.ACTION_IN_PROGRESS})
    assert_rejected(state, extra("G"), {Reason.INVALID_TUNNEL_EXTRA, Reason.ACTION_IN_PROGRESS})
    state.apply(DRAW_BLIND)
    assert_rejected(state, DECLINE_TUNNEL, {Reason.ACTION_IN_PROGRESS, Reason.INVALID_TUNNEL_EXTRA})


# ------------------------------------------------------- fewer than 3 cards to reveal


def test_reveal_reshuffles_the_discard_pile_to_continue() -> None:
    """R6.11 step 4: draw pile first, then the reshuffled discard pile."""
    state = build(hands=["GGG", ""], deck="R", discard="WW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert len(state.log[-1].revealed) == 3
    assert state.log[-1].revealed[0] == RED
    assert sorted(state.log[-1].revealed) == [1, 1, RED]
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.discard == counts("GGRWW")
    assert state.deck == []


def test_reveal_from_an_empty_draw_pile() -> None:
    """The draw pile is empty when the first card must be revealed: reshuffle first."""
    state = build(hands=["GGG", ""], deck="", discard="LLL", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.tunnel is not None
    assert state.tunnel.revealed == (LOCO, LOCO, LOCO)
    assert state.tunnel.needed == 3
    assert sum(state.discard) == 0


def test_reshuffle_excludes_the_base_payment() -> None:
    """The set-aside base payment is not shuffled in, so only 2 cards can be revealed."""
    state = build(hands=["GGG", ""], deck="R", discard="L", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.tunnel is not None
    assert sorted(state.tunnel.revealed) == [RED, LOCO]
    assert state.tunnel.needed == 1
    assert state.tunnel.base == tuple(counts("GG"))
    state.apply(DECLINE_TUNNEL)
    assert state.hands[0] == counts("GGG")
    # R5.8 refills nothing here (the display is full); the revealed cards are discarded.
    assert state.discard == counts("RL")


def test_nothing_to_reveal_is_free() -> None:
    """0 revealed: no extra cost. The base payment is never among the revealed cards."""
    state = build(hands=["GG", ""], deck="", discard="", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.log[-1].revealed == ()
    assert state.route_owner[rid(TUNNEL)] == 0
    assert state.discard == counts("GG")
    assert state.current == 1


def test_one_card_to_reveal() -> None:
    state = build(hands=["GGL", ""], deck="G", discard="", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    assert state.tunnel is not None
    assert state.tunnel.revealed == (GREEN,)
    assert state.tunnel.needed == 1
    state.apply(extra("L"))
    assert state.discard == counts("GGLG")


@pytest.mark.parametrize(
    ("deck", "answer", "discard"),
    [
        ("WWK", None, "GGWWK"),  # no match: base and revealed cards discarded
        ("GWK", "G", "GGGGWK"),  # paid: base, extra and revealed cards discarded
        ("GWK", "decline", "GWK"),  # declined: only the revealed cards
    ],
)
def test_revealed_cards_discarded_in_every_outcome(deck: str, answer: str | None, discard: str) -> None:
    """R6.11 step 9."""
    state = build(hands=["GGG", ""], deck=deck, display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    if answer == "decline":
        state.apply(DECLINE_TUNNEL)
    elif answer is not None:
        state.apply(extra(answer))
    assert state.deck == []
    assert state.discard == counts(discard)
    assert state.tunnel is None
    assert state.current == 1


# --------------------------------------------------------------------- listing


def test_base_payment_listing_how_many_locomotives() -> None:
    state = build(hands=["GGGLL", ""], deck="WWW", display="PPPPP")
    listed = {a.payment for a in assert_listing_sound(state) if isinstance(a, Claim) and a.route == rid(TUNNEL)}
    assert listed == {tuple(counts(p)) for p in ("GG", "GL", "LL")}
    state = build(hands=["GGGGGLL", ""], deck="WWW", display="PPPPP")
    listed = {a.payment for a in assert_listing_sound(state) if isinstance(a, Claim) and a.route == rid("R55")}
    assert listed == {tuple(counts(p)) for p in ("GGGGG", "GGGGL", "GGGLL")}
    state = build(hands=["G", ""], deck="WWW", display="PPPPP")
    assert not [a for a in state.legal_action_list() if isinstance(a, Claim) and a.route == rid(TUNNEL)]


def test_extra_listing_is_sound() -> None:
    state = build(hands=["GGGGLLR", ""], deck="GLGW", display="PPPPP")
    state.apply(claim(TUNNEL, "GG"))
    listed = assert_listing_sound(state)
    assert set(listed) == {extra("GGL"), extra("GLL"), DECLINE_TUNNEL}  # 2 green, 2 locos left


# --------------------------------------------------------------- gray tunnel


def _gray_tunnel_board() -> Board:
    routes = tuple(dataclasses.replace(r, color=GRAY) if r.code == TUNNEL else r for r in BOARD.routes)
    return Board(cities=BOARD.cities, routes=routes, tickets=BOARD.tickets)


def test_gray_tunnel_one_color_of_choice() -> None:
    """R6.10 for completeness (the map has no gray tunnel)."""
    board = _gray_tunnel_board()
    route = board.routes[rid(TUNNEL)]
    assert check_payment(route, counts("YY")) is None
    assert check_payment(route, counts("YL")) is None
    assert check_payment(route, counts("LL")) is None
    assert check_payment(route, counts("YG")) is Reason.WRONG_COLOR
    state = build(hands=["YYYYG", ""], deck="YGLW", display="PPPPP")
    state.board = board
    state._routes, state._simple_ids, state._candidates = _route_tables(board)
    state.apply(claim(TUNNEL, "YY"))
    assert state.tunnel is not None
    assert state.tunnel.color == YELLOW
    assert state.tunnel.needed == 2  # yellow and the locomotive match; green does not
    assert_rejected(state, extra("YG"), Reason.INVALID_TUNNEL_EXTRA)
    assert_rejected(state, extra("G"), Reason.INVALID_TUNNEL_EXTRA)
    state.apply(extra("YY"))
    assert state.route_owner[rid(TUNNEL)] == 0
    # A base of locomotives only on a gray tunnel: only locomotives match.
    state = build(hands=["LL", ""], deck="YGLW", display="PPPPP")
    state.board = board
    state._routes, state._simple_ids, state._candidates = _route_tables(board)
    state.apply(claim(TUNNEL, "LL"))
    assert state.tunnel is not None
    assert state.tunnel.locomotive_only
    assert state.tunnel.needed == 1

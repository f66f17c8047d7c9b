"""Every rejection reason of spec §11, each leaving the whole state unchanged (§0.1 "Reject")."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from builders import assert_rejected, build, claim, counts

from ttr_nordic.engine import Action, Claim, DrawFaceUp, GameState, KeepTickets, PayTunnelExtra, Phase, Reason
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS


def _in_tunnel() -> GameState:
    state = build(hands=["GGGLR", ""], deck="GGWW", display="PPPPP")
    state.apply(claim("R44", "GG"))
    assert state.phase is Phase.TUNNEL_EXTRA
    return state


def _ended() -> GameState:
    state = build(display=".....")
    state.apply(PASS)
    state.apply(PASS)
    return state


def _second_card() -> GameState:
    state = build(hands=["OO", ""], display="PPPPP", deck="WWW", ticket_deck=[1, 2, 3])
    state.apply(DRAW_BLIND)
    return state


def _choosing_tickets() -> GameState:
    state = build(hands=["OO", ""], display="PPPPP", deck="WWW", ticket_deck=[1, 2, 3, 4])
    state.apply(DRAW_TICKETS)
    return state


# (reason, a state factory, the action, the acting player or None)
CASES: list[tuple[Reason, Callable[[], GameState], Action, int | None]] = [
    (Reason.NOT_YOUR_TURN, lambda: build(hands=["OO", "OO"], display="PPPPP", deck="WW"), DRAW_BLIND, 1),
    (Reason.GAME_OVER, _ended, DRAW_BLIND, None),
    (Reason.ACTION_IN_PROGRESS, _second_card, DRAW_TICKETS, None),
    (Reason.ACTION_IN_PROGRESS, _second_card, claim("R20", "OO"), None),
    (Reason.ACTION_IN_PROGRESS, _choosing_tickets, DRAW_BLIND, None),
    (Reason.ACTION_IN_PROGRESS, _in_tunnel, DrawFaceUp(0), None),
    (Reason.CANNOT_PASS, lambda: build(display="PPPPP", deck="W"), PASS, None),
    (Reason.NO_TRAIN_CARDS, lambda: build(display=".....", ticket_deck=[5]), DrawFaceUp(2), None),
    (Reason.DRAW_PILE_EMPTY, lambda: build(display="PP...", deck="", discard=""), DRAW_BLIND, None),
    (Reason.EMPTY_SLOT, lambda: build(display="PP...", deck="W"), DrawFaceUp(2), None),
    (Reason.ROUTE_CLAIMED, lambda: build(hands=["OO", ""], owners={"R20": 1}), claim("R20", "OO"), None),
    (Reason.DOUBLE_ROUTE_OWN, lambda: build(hands=["GG", ""], owners={"R61": 0}), claim("R62", "GG"), None),
    (Reason.DOUBLE_ROUTE_CLOSED, lambda: build(hands=["GG", ""], owners={"R61": 1}), claim("R62", "GG"), None),
    (Reason.NOT_ENOUGH_TRAINS, lambda: build(hands=["OO", ""], trains=[1, 40]), claim("R20", "OO"), None),
    (Reason.CARDS_NOT_IN_HAND, lambda: build(hands=["O", "OO"]), claim("R20", "OO"), None),
    (Reason.CARDS_NOT_IN_HAND, lambda: build(hands=["GL", ""], deck="WWW"), claim("R44", "GG"), None),
    (Reason.WRONG_COLOR, lambda: build(hands=["KK", ""]), claim("R20", "KK"), None),
    (Reason.WRONG_COLOR, lambda: build(hands=["KKRR", ""]), claim("R18", "KKR"), None),
    (Reason.WRONG_COLOR, lambda: build(hands=["KK", ""], deck="GGG"), claim("R44", "KK"), None),
    (Reason.LOCOMOTIVE_NOT_ALLOWED, lambda: build(hands=["OL", ""]), claim("R20", "OL"), None),
    (Reason.LOCOMOTIVE_NOT_ALLOWED, lambda: build(hands=["G" * 8 + "L", ""]), claim("R51", "G" * 8 + "L"), None),
    (Reason.MISSING_LOCOMOTIVES, lambda: build(hands=["OOO", ""]), claim("R45", "OOO"), None),
    (Reason.INVALID_PAYMENT, lambda: build(hands=["OOO", ""]), claim("R20", "OOO"), None),
    (Reason.INVALID_PAYMENT, lambda: build(hands=["OOWK", ""]), claim("R45", "OOWK"), None),
    (Reason.INVALID_PAYMENT, lambda: build(hands=["G" * 10, ""]), claim("R51", "G" * 10), None),
    (Reason.INVALID_TUNNEL_EXTRA, _in_tunnel, PayTunnelExtra(tuple(counts("G"))), None),  # type: ignore[arg-type]
    (Reason.INVALID_TUNNEL_EXTRA, _in_tunnel, PayTunnelExtra(tuple(counts("GR"))), None),  # type: ignore[arg-type]
    (Reason.TICKET_DECK_EMPTY, lambda: build(display="PPPPP", deck="W"), DRAW_TICKETS, None),
    (Reason.MUST_KEEP_TICKETS, _choosing_tickets, KeepTickets(()), None),
    (Reason.INVALID_TICKET_CHOICE, _choosing_tickets, KeepTickets((4,)), None),
    (Reason.MALFORMED_ACTION, lambda: build(hands=["OOL", ""]), DrawFaceUp("1"), None),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("reason", "factory", "action", "player"), CASES)
def test_rejection_reason_and_unchanged_state(
    reason: Reason, factory: Callable[[], GameState], action: Action, player: int | None
) -> None:
    state = factory()
    error = assert_rejected(state, action, reason, player)
    assert error.reason is reason
    assert reason.name in str(error)


def test_every_reason_is_covered() -> None:
    assert {case[0] for case in CASES} == set(Reason)


def test_rejection_in_a_real_game_changes_nothing() -> None:
    """A full 110-card game: a batch of illegal actions, each refused without a trace."""
    from builders import full_game

    state = full_game(players=3, seed=21)
    hand = state.hands[state.current]
    too_many = tuple(c + 1 for c in hand)
    actions: list[Action] = [
        claim("R51", "G" * 9),
        PASS,
        KeepTickets((0,)),
        PayTunnelExtra(too_many),  # type: ignore[arg-type]
        *(claim(f"R{r:02d}", "") for r in range(1, 82)),
    ]
    for action in actions:
        before_legal = state.rejection(action)
        assert before_legal is not None
        assert_rejected(state, action, before_legal)
    assert_rejected(state, DRAW_BLIND, Reason.NOT_YOUR_TURN, player=(state.current + 1) % 3)


# ---------------------------------------------- actions of the wrong kind, order of checks


def test_actions_that_belong_to_no_open_decision() -> None:
    """Documented choices of code (docs/rules-decisions.md item 4)."""
    state = build(hands=["OO", ""], display="PPPP.", deck="WW", ticket_deck=[1, 2, 3])
    assert_rejected(state, KeepTickets((1,)), Reason.INVALID_TICKET_CHOICE)
    assert_rejected(state, PayTunnelExtra(tuple(counts("G"))), Reason.INVALID_TUNNEL_EXTRA)  # type: ignore[arg-type]
    assert_rejected(state, DECLINE_TUNNEL, Reason.INVALID_TUNNEL_EXTRA)
    assert_rejected(state, DrawFaceUp(5), Reason.EMPTY_SLOT)
    assert_rejected(state, DrawFaceUp(-1), Reason.EMPTY_SLOT)
    assert_rejected(state, Claim(81, tuple(counts("OO"))), Reason.INVALID_PAYMENT)  # type: ignore[arg-type]
    assert_rejected(state, Claim(-1, tuple(counts("OO"))), Reason.INVALID_PAYMENT)  # type: ignore[arg-type]
    state = _second_card()
    for action in (KeepTickets((1,)), DECLINE_TUNNEL, PayTunnelExtra(tuple(counts("W")))):  # type: ignore[arg-type]
        assert_rejected(state, action, Reason.ACTION_IN_PROGRESS)


def test_order_of_checks_for_a_claim() -> None:
    """Route claimed, double route (own, then closed), trains, cards in hand, payment rule."""
    state = build(hands=["", ""], owners={"R20": 1}, trains=[0, 40])
    assert_rejected(state, claim("R20", "KL"), Reason.ROUTE_CLAIMED)
    state = build(hands=["", ""], owners={"R61": 0}, trains=[0, 40])
    assert_rejected(state, claim("R62", "KL"), Reason.DOUBLE_ROUTE_OWN)
    state = build(hands=["", ""], owners={"R61": 1}, trains=[0, 40])
    assert_rejected(state, claim("R62", "KL"), Reason.DOUBLE_ROUTE_CLOSED)
    state = build(hands=["", ""], trains=[1, 40])
    assert_rejected(state, claim("R20", "KL"), Reason.NOT_ENOUGH_TRAINS)
    state = build(hands=["K", ""])
    assert_rejected(state, claim("R20", "KL"), Reason.CARDS_NOT_IN_HAND)
    state = build(hands=["KL", ""])
    assert_rejected(state, claim("R20", "KL"), Reason.LOCOMOTIVE_NOT_ALLOWED)

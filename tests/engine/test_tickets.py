"""Action C, destination tickets (R7.1–R7.6, §12 item 10)."""

from __future__ import annotations

from itertools import combinations

import pytest
from builders import assert_rejected, build, claim

from ttr_nordic.engine import DrawFaceUp, KeepTickets, Phase, Reason
from ttr_nordic.engine.actions import DRAW_BLIND, DRAW_TICKETS, PASS


def test_draws_the_top_three() -> None:
    """R7.2."""
    state = build(ticket_deck=[7, 3, 30, 12, 5], display="PPPPP", deck="WW", tickets=[[1], []])
    state.apply(DRAW_TICKETS)
    assert state.decision == (0, Phase.KEEP_TICKETS)
    assert sorted(state.offers[0]) == [3, 7, 30]
    assert list(reversed(state.ticket_deck)) == [12, 5]
    assert state.tickets[0] == [1]


@pytest.mark.parametrize("remaining", [1, 2])
def test_draws_what_is_left(remaining: int) -> None:
    deck = [9, 4][:remaining]
    state = build(ticket_deck=deck, display="PPPPP")
    state.apply(DRAW_TICKETS)
    assert sorted(state.offers[0]) == sorted(deck)
    assert state.ticket_deck == []
    assert_rejected(state, KeepTickets(()), Reason.MUST_KEEP_TICKETS)
    expected = {KeepTickets(c) for n in range(1, remaining + 1) for c in combinations(sorted(deck), n)}
    assert set(state.legal_action_list()) == expected


def test_single_ticket_must_be_kept() -> None:
    state = build(ticket_deck=[9], display="PPPPP")
    state.apply(DRAW_TICKETS)
    assert state.legal_action_list() == [KeepTickets((9,))]
    state.apply(KeepTickets((9,)))
    assert state.tickets[0] == [9]


def test_keep_at_least_one_of_three() -> None:
    """R7.3."""
    state = build(ticket_deck=[7, 3, 30, 12], display="PPPPP", deck="WW")
    state.apply(DRAW_TICKETS)
    listed = state.legal_action_list()
    assert len(listed) == 7
    assert set(listed) == {KeepTickets(c) for n in (1, 2, 3) for c in combinations((3, 7, 30), n)}
    assert_rejected(state, KeepTickets(()), Reason.MUST_KEEP_TICKETS)
    assert_rejected(state, KeepTickets((12,)), Reason.INVALID_TICKET_CHOICE)
    assert_rejected(state, KeepTickets((3, 12)), Reason.INVALID_TICKET_CHOICE)
    state.apply(KeepTickets((30,)))
    assert state.tickets[0] == [30]
    assert state.decision == (1, Phase.CHOOSE_ACTION)


def test_returned_tickets_leave_the_game() -> None:
    """R7.4: not put back under the ticket deck."""
    state = build(ticket_deck=[7, 3, 30, 12], display="PPPPP")
    state.apply(DRAW_TICKETS)
    state.apply(KeepTickets((7,)))
    assert state.ticket_deck == [12]
    assert sorted(state.returned_tickets[0]) == [3, 30]
    assert state.offers[0] == []
    # An empty ticket deck stays empty (R7.1): the returned tickets never come back.
    state.apply(DRAW_TICKETS)  # player 1 takes the last one
    state.apply(KeepTickets((12,)))
    assert state.ticket_deck == []
    assert_rejected(state, DRAW_TICKETS, Reason.TICKET_DECK_EMPTY)


def test_kept_tickets_cannot_be_discarded() -> None:
    """R7.5: naming only some of the new ones never drops the old ones; naming an old one is refused."""
    state = build(ticket_deck=[7, 3, 30], tickets=[[1, 2], []], display="PPPPP")
    state.apply(DRAW_TICKETS)
    assert_rejected(state, KeepTickets((1,)), Reason.INVALID_TICKET_CHOICE)
    assert_rejected(state, KeepTickets((1, 7)), Reason.INVALID_TICKET_CHOICE)
    assert KeepTickets((1, 2)) not in state.legal_action_list()
    state.apply(KeepTickets((3,)))
    assert sorted(state.tickets[0]) == [1, 2, 3]


def test_empty_ticket_deck() -> None:
    """R7.1."""
    state = build(hands=["", ""], display="PPPPP", deck="WW", ticket_deck=[])
    assert_rejected(state, DRAW_TICKETS, Reason.TICKET_DECK_EMPTY)
    assert DRAW_TICKETS not in state.legal_action_list()


def test_nothing_else_while_choosing() -> None:
    state = build(hands=["OO", "OO"], ticket_deck=[7, 3, 30], display="PPPPP", deck="WW")
    state.apply(DRAW_TICKETS)
    for action in (DRAW_BLIND, DrawFaceUp(0), DRAW_TICKETS, claim("R20", "OO"), PASS):
        assert_rejected(state, action, Reason.ACTION_IN_PROGRESS)
    assert_rejected(state, KeepTickets((3,)), Reason.NOT_YOUR_TURN, player=1)


def test_keep_without_an_offer() -> None:
    state = build(ticket_deck=[7, 3, 30], display="PPPPP")
    assert_rejected(state, KeepTickets((7,)), {Reason.INVALID_TICKET_CHOICE, Reason.ACTION_IN_PROGRESS})
    state = build(ticket_deck=[7, 3, 30], display="PPPPP", deck="WW")
    state.apply(DRAW_BLIND)
    assert_rejected(state, KeepTickets((7,)), {Reason.INVALID_TICKET_CHOICE, Reason.ACTION_IN_PROGRESS})


def test_no_ticket_limit_and_secrecy() -> None:
    """R7.6: any number; the count is public, the identities are not."""
    many = list(range(20))
    state = build(tickets=[many, [25]], ticket_deck=[40, 41, 42], display="PPPPP")
    state.apply(DRAW_TICKETS)
    state.apply(KeepTickets((40, 41, 42)))
    assert len(state.tickets[0]) == 23
    other = state.view(1)
    assert other.ticket_counts == (23, 1)
    assert other.tickets == (25,)
    assert other.all_tickets is None
    assert all(entry.notation is None for entry in other.log if entry.player == 0 and "kept" in entry.text)
    assert state.view(0).tickets == tuple(state.tickets[0])

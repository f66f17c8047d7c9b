"""Why an action is refused: the rejection reasons of docs/rules.md §11.

>>> from ttr_nordic.engine.errors import IllegalActionError, Reason
>>> err = IllegalActionError(Reason.ROUTE_CLAIMED, "Oslo–Örebro is already claimed")
>>> err.reason.name, str(err)
('ROUTE_CLAIMED', 'ROUTE_CLAIMED: Oslo–Örebro is already claimed')
"""

from __future__ import annotations

from enum import Enum


class Reason(Enum):
    """A rejection reason; the value is a short human explanation."""

    NOT_YOUR_TURN = "it is not your turn"
    GAME_OVER = "the game is over"
    ACTION_IN_PROGRESS = "finish the action in progress first"
    CANNOT_PASS = "you may pass only when no other action is possible"
    NO_TRAIN_CARDS = "no train cards are left to draw"
    DRAW_PILE_EMPTY = "the draw pile and the discard pile are both empty"
    EMPTY_SLOT = "that face-up slot is empty"
    ROUTE_CLAIMED = "that route is already claimed"
    DOUBLE_ROUTE_OWN = "you already own the other lane of this double route"
    DOUBLE_ROUTE_CLOSED = "in a 2-player game only one lane of a double route can be claimed"
    NOT_ENOUGH_TRAINS = "you do not have enough trains left for this route"
    CARDS_NOT_IN_HAND = "you do not hold those cards"
    WRONG_COLOR = "those cards do not match the route's color"
    LOCOMOTIVE_NOT_ALLOWED = "locomotives cannot be used there"
    MISSING_LOCOMOTIVES = "the ferry needs more locomotives (or groups of 3 cards)"
    INVALID_PAYMENT = "that payment does not fit the route"
    INVALID_TUNNEL_EXTRA = "that is not a valid extra payment for the tunnel"
    TICKET_DECK_EMPTY = "the ticket deck is empty"
    MUST_KEEP_TICKETS = "you must keep more tickets"
    INVALID_TICKET_CHOICE = "you can only keep tickets that were offered to you"
    #: Not a rule of §11: a value of the wrong type or out of every range (a float card count, a
    #: string slot, an unknown route id, a player that is not a seat number).
    MALFORMED_ACTION = "the action is malformed"


class IllegalActionError(ValueError):
    """An action was refused; the game state is unchanged. ``reason`` says why."""

    def __init__(self, reason: Reason, detail: str | None = None) -> None:
        self.reason = reason
        self.detail = detail or reason.value
        super().__init__(f"{reason.name}: {self.detail}")


class NotationError(ValueError):
    """A text action could not be parsed."""


class RecordError(ValueError):
    """A game record is malformed or does not replay."""

"""Actions: small immutable values with a short text notation.

Notation (one action per token group; slots are numbered 1–5 in text, 0–4 in objects):

==================  =========================================
``F3``              take the face-up card in slot 3
``B``               take the top card of the draw pile (blind)
``T``               draw destination tickets
``K 4 17``          keep tickets 4 and 17 (ticket ids)
``C R45 OOL``       claim route R45 paying 2 orange + 1 locomotive
``X RL``            pay a tunnel's extra cards
``decline``         give up the tunnel claim
``pass``            pass (only when nothing else is legal)
==================  =========================================

Card letters: P purple, W white, U blue, Y yellow, O orange, K black, R red,
G green, L locomotive.

>>> from ttr_nordic.engine.actions import parse_action
>>> action = parse_action("C R45 OOL")
>>> action.route, action.notation()
(44, 'C R45 OOL')
>>> parse_action("F3")
DrawFaceUp(slot=2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .board import Board, load_board
from .cards import Counts, cards_to_letters, parse_cards, to_counts
from .errors import NotationError

NUM_SLOTS: Final = 5  # the official face-up display
#: The most face-up slots a variant may have (slots are written F1 to F9).
MAX_FACE_UP: Final = 9


@dataclass(frozen=True, slots=True)
class DrawFaceUp:
    """Take the face-up card in ``slot`` (0–4)."""

    slot: int

    def notation(self) -> str:
        return f"F{self.slot + 1}"


@dataclass(frozen=True, slots=True)
class DrawBlind:
    """Take the top card of the draw pile."""

    def notation(self) -> str:
        return "B"


@dataclass(frozen=True, slots=True)
class DrawTickets:
    """Draw 3 destination tickets (or what is left)."""

    def notation(self) -> str:
        return "T"


@dataclass(frozen=True, slots=True)
class KeepTickets:
    """Keep these offered tickets (ids in increasing order); the others leave the game."""

    tickets: tuple[int, ...]

    def notation(self) -> str:
        return "K " + " ".join(str(t) for t in self.tickets)


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim route ``route`` (id) paying ``payment`` (nine card counts); for a tunnel, the base payment."""

    route: int
    payment: Counts

    def notation(self) -> str:
        return f"C R{self.route + 1:02d} {cards_to_letters(self.payment) or '-'}"


@dataclass(frozen=True, slots=True)
class PayTunnelExtra:
    """Pay the extra cards a tunnel asks for."""

    cards: Counts

    def notation(self) -> str:
        return f"X {cards_to_letters(self.cards) or '-'}"


@dataclass(frozen=True, slots=True)
class DeclineTunnel:
    """Give up a tunnel claim: the base payment returns to the hand."""

    def notation(self) -> str:
        return "decline"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass; legal only when no other action is."""

    def notation(self) -> str:
        return "pass"


Action = DrawFaceUp | DrawBlind | DrawTickets | KeepTickets | Claim | PayTunnelExtra | DeclineTunnel | Pass

#: Shared instances of the actions without parameters (and of each face-up slot).
DRAW_BLIND: Final = DrawBlind()
DRAW_TICKETS: Final = DrawTickets()
DECLINE_TUNNEL: Final = DeclineTunnel()
PASS: Final = Pass()
#: One shared DrawFaceUp per slot a variant may have; the official display's first five are DRAW_FACE_UP.
FACE_UP_DRAWS: Final = tuple(DrawFaceUp(slot) for slot in range(MAX_FACE_UP))
DRAW_FACE_UP: Final = FACE_UP_DRAWS[:NUM_SLOTS]


def _bad_counts(counts: object, what: str) -> str | None:
    if type(counts) is not tuple or not all(type(count) is int for count in counts):
        return f"{what} must be a tuple of whole card counts, got {_short(counts)}"
    return None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_error(action: object) -> str | None:
    """Why ``action``'s fields have the wrong type, or None.

    Types are checked here: exact ``int`` (no ``bool``, no ``float``) for slots, route and
    ticket ids and card counts, tuples for ticket ids and counts; and ticket ids in increasing
    order, the one form the legal actions, the notation and a replayed record use. Ranges (an
    unknown route, slot 6, a negative count) are refused by the rules with their own reasons.

    >>> field_error(DrawFaceUp(2)) is None
    True
    >>> field_error(KeepTickets((27.0,)))
    'ticket ids must be a tuple of whole numbers, got (27.0,)'
    >>> field_error(KeepTickets((17, 4)))
    'ticket ids must be in increasing order, got (17, 4)'
    """
    kind = type(action)
    if kind is DrawBlind or kind is DrawTickets or kind is DeclineTunnel or kind is Pass:
        return None
    if kind is Claim:
        assert isinstance(action, Claim)
        if type(action.route) is not int:
            return f"a route id must be a whole number, got {_short(action.route)}"
        return _bad_counts(action.payment, "a payment")
    if kind is DrawFaceUp:
        assert isinstance(action, DrawFaceUp)
        if type(action.slot) is not int:
            return f"a face-up slot must be a whole number, got {_short(action.slot)}"
        return None
    if kind is KeepTickets:
        assert isinstance(action, KeepTickets)
        chosen = action.tickets
        if type(chosen) is not tuple or not all(type(t) is int for t in chosen):
            return f"ticket ids must be a tuple of whole numbers, got {_short(chosen)}"
        # Kept in the given order, (17, 4) would replay from its record as (4, 17): another state.
        # Equal neighbours pass here and are refused by the rules as a ticket named twice.
        if chosen != tuple(sorted(chosen)):
            return f"ticket ids must be in increasing order, got {_short(chosen)}"
        return None
    if kind is PayTunnelExtra:
        assert isinstance(action, PayTunnelExtra)
        return _bad_counts(action.cards, "extra cards")
    return f"not an action: {_short(action)}"


def parse_action(text: str, board: Board | None = None, slots: int = NUM_SLOTS) -> Action:
    """Parse one action from its notation; raises :class:`NotationError` with the reason.

    ``board`` (default the official one) bounds the route codes and ticket ids, ``slots`` the
    face-up slots: a game under a variant passes its own (``game.board``, its face-up count).
    """
    if not isinstance(text, str):
        # A client's message may hold a number or null where the action should be.
        raise NotationError(f"an action is a string of notation, got {_short(text)}")
    parts = text.strip().split()
    if not parts:
        raise NotationError("empty action")
    head = parts[0].upper()
    rest = parts[1:]
    try:
        if head == "B" and not rest:
            return DRAW_BLIND
        if head == "T" and not rest:
            return DRAW_TICKETS
        if head == "PASS" and not rest:
            return PASS
        if head == "DECLINE" and not rest:
            return DECLINE_TUNNEL
        if len(head) == 2 and head[0] == "F" and head[1] in "0123456789" and not rest:
            slot = int(head[1]) - 1
            if not 0 <= slot < slots:
                raise NotationError(f"face-up slots are F1 to F{slots}, got {parts[0]!r}")
            return FACE_UP_DRAWS[slot]
        if head == "K" and rest:
            known = len((board or load_board()).tickets)
            if not all(t.isascii() and t.isdigit() for t in rest):
                raise NotationError(f"ticket ids are whole numbers, got {text!r}")
            ids = tuple(sorted(int(t) for t in rest))
            if len(set(ids)) != len(ids):
                raise NotationError(f"a ticket is named twice in {text!r}")
            if ids[-1] >= known:
                raise NotationError(f"ticket ids run from 0 to {known - 1}, got {ids[-1]}")
            return KeepTickets(ids)
        if head == "C" and len(rest) == 2:
            code = rest[0].upper()
            if not (code.startswith("R") and code[1:].isascii() and code[1:].isdigit()):
                raise NotationError(f"route codes look like R45, got {rest[0]!r}")
            routes = len((board or load_board()).routes)
            number = int(code[1:])
            if not 1 <= number <= routes:
                raise NotationError(f"route codes run from R01 to R{routes:02d}, got {rest[0]!r}")
            return Claim(number - 1, parse_cards(rest[1]))
        if head == "X" and len(rest) == 1:
            return PayTunnelExtra(parse_cards(rest[0]))
    except ValueError as exc:
        if isinstance(exc, NotationError):
            raise
        raise NotationError(f"cannot read {text!r}: {exc}") from exc
    raise NotationError(
        f"cannot read {text!r}: expected F1-F5, B, T, 'K ids', 'C R## cards', 'X cards', decline or pass"
    )


def make_claim(route: int, payment: list[int] | tuple[int, ...]) -> Claim:
    """A :class:`Claim` from a route id and nine counts (validated for shape only)."""
    return Claim(route, to_counts(payment))

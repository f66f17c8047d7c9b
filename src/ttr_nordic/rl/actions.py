"""A fixed, stable enumeration of every action the engine can offer.

Ids are laid out in blocks, in this order (sizes for the Nordic board: 81 routes):

=====================  ======  =================================================================
block                  size    what one id means
=====================  ======  =================================================================
face-up draw           5       take the card in slot 0-4 (``DrawFaceUp``)
blind draw             1       take the top of the draw pile (``DrawBlind``)
ticket draw            1       draw destination tickets (``DrawTickets``)
keep tickets           31      keep a non-empty subset of the offer; bit i = the i-th offered
                               ticket in ascending id order (offers hold at most 5)
decline tunnel         1       give up a tunnel claim (``DeclineTunnel``)
pass                   1       pass (only legal when nothing else is)
tunnel extra           9       pay ``total`` extra cards (1-3) of which ``locomotives`` are
                               locomotives (0..total) (``PayTunnelExtra``)
claim                  varies  claim route ``r`` with a payment structure
                               ``(main color, locomotives, total cards)``
=====================  ======  =================================================================

A claim's *main color* is the color (0-7) of which the payment holds the most cards (the lowest
color on a tie), or -1 when it is all locomotives. For each route the claim block lists every
structure its kind allows: one per color for a regular route (or just its own color); color x
locomotives for a tunnel; color x locomotives x total for ferries (each group of 3 cards that
replaces a locomotive adds 2 cards) and for Murmansk-Lieksa (groups of 4 add 3). Which cards fill
a group is the engine's canonical choice: ``decode`` returns the engine's own legal action, so
the mask and ``decode`` never offer anything the engine would refuse.

``encode(action, offer)`` needs the current ticket offer only for ``KeepTickets``.
The enumeration depends only on the board, so ids are stable across games and versions of the
engine that keep the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import product

from ttr_nordic.engine import (
    COLORS,
    LOCOMOTIVE,
    Action,
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameState,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    RouteKind,
    load_board,
)

NUM_SLOTS = 5
MAX_OFFER = 5
NUM_KEEP = (1 << MAX_OFFER) - 1
MAX_EXTRA = 3
MAX_LOCOMOTIVES = 14
_GROUP_EXTRA = {RouteKind.FERRY: 2, RouteKind.SPECIAL: 3}


def main_color(counts: Sequence[int]) -> int:
    """The color the payment holds most of (lowest on a tie), or -1 for locomotives only."""
    best, best_count = -1, 0
    for color in COLORS:
        if counts[color] > best_count:
            best, best_count = color, counts[color]
    return best


@dataclass(frozen=True)
class ActionSpace:
    """The enumeration for one board; build it with :func:`action_space`."""

    size: int
    face_up: int
    blind: int
    tickets: int
    keep: int
    decline: int
    pass_: int
    extra: int
    claim: int
    claim_keys: tuple[tuple[int, int, int, int], ...]
    claim_index: dict[tuple[int, int, int, int], int]

    def encode(self, action: Action, offer: Sequence[int] = ()) -> int:
        """The id of ``action``; ``offer`` (offered ticket ids) is needed for ``KeepTickets``."""
        if isinstance(action, DrawFaceUp):
            return self.face_up + action.slot
        if isinstance(action, DrawBlind):
            return self.blind
        if isinstance(action, DrawTickets):
            return self.tickets
        if isinstance(action, KeepTickets):
            ordered = sorted(offer)
            bits = 0
            for ticket in action.tickets:
                if ticket not in ordered:
                    raise ValueError(f"ticket {ticket} is not in the offer {ordered}")
                bits |= 1 << ordered.index(ticket)
            if not 0 < bits <= NUM_KEEP:
                raise ValueError(f"cannot encode keeping {action.tickets} of {ordered}")
            return self.keep + bits - 1
        if isinstance(action, DeclineTunnel):
            return self.decline
        if isinstance(action, Pass):
            return self.pass_
        if isinstance(action, PayTunnelExtra):
            total = sum(action.cards)
            locos = action.cards[LOCOMOTIVE]
            if not 1 <= total <= MAX_EXTRA:
                raise ValueError(f"a tunnel asks for 1 to {MAX_EXTRA} extra cards, not {total}")
            return self.extra + _extra_offset(total, locos)
        if isinstance(action, Claim):
            key = (action.route, main_color(action.payment), action.payment[LOCOMOTIVE], sum(action.payment))
            index = self.claim_index.get(key)
            if index is None:
                raise ValueError(f"no id for claim {action.notation()}")
            return self.claim + index
        raise TypeError(f"not an action: {action!r}")

    def legal_ids(self, state: GameState) -> dict[int, Action]:
        """The engine's legal actions of ``state`` by id (first listed wins an id)."""
        offer = state.offers[state.current] if not state.is_over else ()
        out: dict[int, Action] = {}
        for action in state.legal_action_list():
            out.setdefault(self.encode(action, offer), action)
        return out

    def decode(self, action_id: int, state: GameState) -> Action:
        """The engine's legal action of ``state`` with this id; ValueError if none is legal."""
        if not 0 <= action_id < self.size:
            raise ValueError(f"action ids are 0 to {self.size - 1}, got {action_id}")
        action = self.legal_ids(state).get(action_id)
        if action is None:
            raise ValueError(f"action {action_id} ({self.describe(action_id)}) is not legal now")
        return action

    def describe(self, action_id: int) -> str:
        """A readable name of an id, independent of any position."""
        if action_id < self.blind:
            return f"draw face-up slot {action_id - self.face_up + 1}"
        if action_id == self.blind:
            return "draw blind"
        if action_id == self.tickets:
            return "draw tickets"
        if action_id < self.decline:
            bits = action_id - self.keep + 1
            return "keep offered tickets " + ",".join(str(i + 1) for i in range(MAX_OFFER) if bits >> i & 1)
        if action_id == self.decline:
            return "decline tunnel"
        if action_id == self.pass_:
            return "pass"
        if action_id < self.claim:
            total, locos = _EXTRA_KEYS[action_id - self.extra]
            return f"tunnel extra: {total} card(s), {locos} locomotive(s)"
        route, color, locos, total = self.claim_keys[action_id - self.claim]
        return f"claim R{route + 1:02d}: {total} cards, main color {color}, {locos} locomotive(s)"


_EXTRA_KEYS = tuple((total, locos) for total in range(1, MAX_EXTRA + 1) for locos in range(total + 1))


def _extra_offset(total: int, locos: int) -> int:
    return _EXTRA_KEYS.index((total, locos))


def _claim_keys(board: Board) -> Iterable[tuple[int, int, int, int]]:
    for route in board.routes:
        n = route.length
        colors = list(COLORS) if route.color < 0 else [route.color]
        if route.kind is RouteKind.REGULAR:
            for color in colors:
                yield (route.id, color, 0, n)
        elif route.kind is RouteKind.TUNNEL:
            for color, locos in product(colors, range(n)):
                yield (route.id, color, locos, n)
            yield (route.id, -1, n, n)
        else:
            step = _GROUP_EXTRA[route.kind]
            # Cards in groups may be of any color, so the main color can be any.
            for total in range(n, n + step * n + 1, step):
                for locos in range(min(total, MAX_LOCOMOTIVES) + 1):
                    if locos < total:
                        for color in COLORS:
                            yield (route.id, color, locos, total)
                    else:
                        yield (route.id, -1, locos, total)


@cache
def action_space(board: Board | None = None) -> ActionSpace:
    """The enumeration for ``board`` (the Nordic board by default)."""
    board = board or load_board()
    keys = tuple(_claim_keys(board))
    face_up = 0
    blind = face_up + NUM_SLOTS
    tickets = blind + 1
    keep = tickets + 1
    decline = keep + NUM_KEEP
    pass_ = decline + 1
    extra = pass_ + 1
    claim = extra + len(_EXTRA_KEYS)
    return ActionSpace(
        size=claim + len(keys),
        face_up=face_up,
        blind=blind,
        tickets=tickets,
        keep=keep,
        decline=decline,
        pass_=pass_,
        extra=extra,
        claim=claim,
        claim_keys=keys,
        claim_index={key: i for i, key in enumerate(keys)},
    )

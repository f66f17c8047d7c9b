"""A fixed-size encoding of one player's view (``PlayerView``, or the engine's cheaper per-step
``StepView`` with the same fields), built from the view only.

:func:`encode_view` builds the vector from scratch; :class:`ObservationEncoder` keeps it up to
date from view to view (what the environments use), with the same result.

Seats are relative: index 0 is the observing player, 1 the next in turn order, 2 the one after
(zeros in a 2-player game). All entries are float32; counts are divided by the scale shown.

======================  ==========  ==========================================================
part                    length      contents
======================  ==========  ==========================================================
route owner             81 x 3      one-hot owner of each route by relative seat (all zero: free)
own hand                9           own cards by kind (P W U Y O K R G L) / 12
known cards             2 x 9       cards each opponent is publicly known to hold / 12
display                 5 x 9       one-hot card kind in each face-up slot (zero: empty)
piles                   11          draw pile / 157, discard by kind / 12, ticket pile / 46
own tickets             46 x 2      held, completed by own routes now
offered tickets         46          tickets offered to this player now
per seat                3 x 5       trains / 40, score / 100, hand size / 40, tickets / 46,
                                    offered / 5
phase                   6           one-hot Phase (initial tickets, action, second card, keep,
                                    tunnel extra, over)
turn                    3           one-hot relative seat to decide
final round             2           final round started, turns left / 3
tunnel                  9 + 9 + 2   base payment / 12, revealed cards / 3, extra needed / 3,
                                    locomotive only
======================  ==========  ==========================================================
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from functools import cache
from itertools import compress, repeat
from operator import eq
from types import ModuleType
from typing import Protocol, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from ttr_nordic.engine import Board, Phase, PlayerView
from ttr_nordic.engine.view import StepView

from . import _accel

_T = TypeVar("_T")

NUM_ROUTES = 81
NUM_TICKETS = 46
NUM_KINDS = 9
SEATS = 3
PHASES = tuple(Phase)
SIZE = (
    NUM_ROUTES * SEATS
    + NUM_KINDS
    + 2 * NUM_KINDS
    + 5 * NUM_KINDS
    + 11
    + NUM_TICKETS * 3
    + SEATS * 5
    + len(PHASES)
    + SEATS
    + 2
    + NUM_KINDS * 2
    + 2
)


AnyView = PlayerView | StepView
"""What the encoding reads: a view, or the engine's step view of the same fields."""

ROUTES_END = NUM_ROUTES * SEATS
"""The route-owner part is ``out[:ROUTES_END]``."""
TICKETS_START = ROUTES_END + NUM_KINDS + 2 * NUM_KINDS + 5 * NUM_KINDS + 11
TICKETS_END = TICKETS_START + NUM_TICKETS * 3
"""Own tickets and the offer are ``out[TICKETS_START:TICKETS_END]``."""

_ROUTE_PARTS: dict[tuple[int, tuple[int, ...], int, int], NDArray[np.float32]] = {}
_TICKET_PARTS: dict[tuple[int, tuple[int, ...], int, tuple[int, ...], tuple[int, ...]], NDArray[np.float32]] = {}
_COMPLETED: dict[tuple[int, int, tuple[int, ...]], dict[int, bool]] = {}
_CACHE_LIMIT = 4096
_GAME_OVER = Phase.GAME_OVER


def _ticket_status(view: AnyView) -> list[tuple[int, bool]]:
    """``view.ticket_status()``, remembered per ticket and set of the player's own routes.

    The engine is asked only when a ticket was not seen with these routes yet.
    """
    me = view.player
    owned = tuple([r for r, owner in enumerate(view.route_owner) if owner == me])
    key = (id(view.board), me, owned)
    known = _COMPLETED.get(key)
    if known is None:
        if len(_COMPLETED) >= _CACHE_LIMIT:
            _COMPLETED.clear()
        known = _COMPLETED[key] = {}
    if any(t not in known for t in view.tickets):
        # One union-find for all of the player's tickets (the engine's ticket_status): cheaper
        # than copying the view to ask about the new ones only.
        for ticket, done in view.ticket_status():
            known[ticket] = done
    return [(t, known[t]) for t in view.tickets]


def _route_part(view: AnyView) -> NDArray[np.float32]:
    """The route-owner part (changes only on claims): remembered by the owners."""
    key = (id(view.board), view.route_owner, view.player, view.num_players)
    part = _ROUTE_PARTS.get(key)
    if part is None:
        n, me = view.num_players, view.player
        part = np.zeros(ROUTES_END, dtype=np.float32)
        part[[route * SEATS + (owner - me) % n for route, owner in enumerate(view.route_owner) if owner >= 0]] = 1.0
        if len(_ROUTE_PARTS) >= _CACHE_LIMIT:
            _ROUTE_PARTS.clear()
        _ROUTE_PARTS[key] = part
    return part


def _ticket_part(view: AnyView) -> NDArray[np.float32]:
    """Own tickets with completion, and the offer (change on claims and ticket choices)."""
    key = (id(view.board), view.route_owner, view.player, view.tickets, view.offered_tickets)
    part = _TICKET_PARTS.get(key)
    if part is None:
        part = np.zeros(TICKETS_END - TICKETS_START, dtype=np.float32)
        for ticket, done in _ticket_status(view):
            part[2 * ticket] = 1.0
            part[2 * ticket + 1] = float(done)
        for ticket in view.offered_tickets:
            part[2 * NUM_TICKETS + ticket] = 1.0
        if len(_TICKET_PARTS) >= _CACHE_LIMIT:
            _TICKET_PARTS.clear()
        _TICKET_PARTS[key] = part
    return part


def encode_view(view: AnyView) -> NDArray[np.float32]:
    """The observation vector of ``view`` (see the module docstring for the layout).

    A fresh array each call. The parts that change every step are built as one Python list
    and converted once (numpy's per-call cost dominates on arrays this small).
    """
    n = view.num_players
    me = view.player
    # Hand, known cards, display, piles: TICKETS_START - ROUTES_END values.
    fast = [c / 12 for c in view.hand]
    known = view.known_cards
    fast += [c / 12 for c in known[(me + 1) % n]]
    fast += [c / 12 for c in known[(me + 2) % n]] if n == 3 else _ZEROS[:NUM_KINDS]
    display = _ZEROS[: 5 * NUM_KINDS]
    for slot, card in enumerate(view.display):
        if card >= 0:
            display[slot * NUM_KINDS + card] = 1.0
    fast += display
    fast.append(view.deck_count / 157)
    fast += [c / 12 for c in view.discard]
    fast.append(view.ticket_deck_count / NUM_TICKETS)
    # Per seat (relative order), phase, turn, final round, tunnel: SIZE - TICKETS_END values.
    trains, scores, hand_sizes = view.trains, view.scores, view.hand_sizes
    ticket_counts, offer_counts = view.ticket_counts, view.offer_counts
    for r in range(n):
        seat = (me + r) % n
        fast += (
            trains[seat] / 40,
            scores[seat] / 100,
            hand_sizes[seat] / 40,
            ticket_counts[seat] / NUM_TICKETS,
            offer_counts[seat] / 5,
        )
    if n == 2:
        fast += _ZEROS[:5]
    phase_and_turn = _ZEROS[: len(PHASES) + SEATS + 2]
    phase_and_turn[PHASES.index(view.phase)] = 1.0
    if view.phase is not Phase.GAME_OVER:
        phase_and_turn[len(PHASES) + (view.current - me) % n] = 1.0
    if view.final_round_trigger >= 0:
        phase_and_turn[-2] = 1.0
        phase_and_turn[-1] = view.final_turns_left / 3
    fast += phase_and_turn
    tunnel = view.tunnel
    if tunnel is None:
        fast += _ZEROS[: 2 * NUM_KINDS + 2]
    else:
        revealed = [0] * NUM_KINDS
        for card in tunnel.revealed:
            revealed[card] += 1
        fast += [c / 12 for c in tunnel.base]
        fast += [c / 3 for c in revealed]
        fast.append(tunnel.needed / 3)
        fast.append(float(tunnel.locomotive_only))
    values = np.array(fast, dtype=np.float32)
    out = np.empty(SIZE, dtype=np.float32)
    out[:ROUTES_END] = _route_part(view)
    out[ROUTES_END:TICKETS_START] = values[: TICKETS_START - ROUTES_END]
    out[TICKETS_START:TICKETS_END] = _ticket_part(view)
    out[TICKETS_END:] = values[TICKETS_START - ROUTES_END :]
    return out


_ZEROS = [0.0] * 64  # sliced: a fresh list of zeros


def _as_float32(values: Iterable[float]) -> tuple[float, ...]:
    """``values`` rounded to float32, as Python floats (what the vector's ``tolist()`` holds)."""
    return tuple(np.array(list(values), dtype=np.float32).tolist())


_FLOAT32 = struct.Struct("f")


def _f32(value: float) -> float:
    """``value`` rounded to float32 (for scores beyond the table below)."""
    return cast(float, _FLOAT32.unpack(_FLOAT32.pack(value))[0])


# c / 12, c / 157, c / 40, c / 46, c / 5 and c / 3 for every count c of cards, trains or
# tickets (157 cards at most), and s / 100 for scores s up to 999: the encoder looks the scaled
# value up instead of dividing. Every value the encoder writes is rounded to float32 already,
# so that a seat kept as a list (ObservationEncoder.values) holds what the array would: the
# array's cells take them unchanged.
_TWELFTHS = _as_float32(c / 12 for c in range(158))
_DECK_SHARES = _as_float32(c / 157 for c in range(158))
_FORTIETHS = _as_float32(c / 40 for c in range(158))
_TICKET_SHARES = _as_float32(c / NUM_TICKETS for c in range(158))
_FIFTHS = _as_float32(c / 5 for c in range(158))
_THIRDS = _as_float32(c / 3 for c in range(158))
_HUNDREDTHS = _as_float32(s / 100 for s in range(1000))


HAND_START = ROUTES_END
KNOWN_START = HAND_START + NUM_KINDS
DISPLAY_START = KNOWN_START + 2 * NUM_KINDS
PILES_START = DISPLAY_START + 5 * NUM_KINDS
OFFER_START = TICKETS_START + 2 * NUM_TICKETS
SEATS_START = TICKETS_END
PHASE_START = SEATS_START + SEATS * 5
TURN_START = PHASE_START + len(PHASES)
FINAL_START = TURN_START + SEATS
TUNNEL_START = FINAL_START + 2


def _load_accelerator() -> ModuleType | None:
    """The C encoder (see ``_accel``) if its layout is this module's, else None."""
    fast = _accel.FAST
    layout = (SIZE, ROUTES_END, KNOWN_START, DISPLAY_START, PILES_START, TICKETS_START, OFFER_START, TICKETS_END,
              PHASE_START, TURN_START, FINAL_START, TUNNEL_START)  # fmt: skip
    if fast is None or layout != fast.LAYOUT or PHASES[-1] is not _GAME_OVER:
        return None
    return fast


_fast = _load_accelerator()
ACCELERATED = _fast is not None
"""Whether :class:`ObservationEncoder` runs the C encoder (the same vectors, several times
faster in an environment's step); ``TTR_NORDIC_PURE_PYTHON=1`` turns it off."""


def _per_board(table: dict[int, tuple[Board, _T]], board: Board, make: Callable[[Board], _T]) -> _T:
    """``make(board)``, remembered in ``table`` by the board's identity (hashing a board costs
    more than the lookup saves; the entry holds the board, so its id() stays its own)."""
    entry = table.get(id(board))
    if entry is None or entry[0] is not board:
        entry = table[id(board)] = (board, make(board))
    return entry[1]


def _make_board_table(board: Board) -> bytes:
    """The C encoder's board: the numbers of cities, routes and tickets, then each route's and
    each ticket's two cities, one byte each."""
    ends = [end for part in (board.routes, board.tickets) for item in part for end in (item.a, item.b)]
    return bytes([len(board.cities), len(board.routes), len(board.tickets), *ends])


_BOARD_TABLES: dict[int, tuple[Board, bytes]] = {}


def _board_table(board: Board) -> bytes:
    """The C encoder's table of ``board`` (remembered per board)."""
    return _per_board(_BOARD_TABLES, board, _make_board_table)


class ObservationEncoder:
    """Observation vectors kept up to date view by view, equal to :func:`encode_view`.

    With the C encoder (:data:`ACCELERATED`), each call writes the whole vector of the view in
    one C call. Without it, each seat has its own vector, rewritten only where the new view
    differs from the last view that seat was encoded from (an action changes a few fields: a
    hand, the display, a pile). Either way any view may follow any other (another game, a
    cloned or resampled state).
    """

    __slots__ = ("_arrays", "_list_seats", "_lists", "_seats")

    def __init__(self) -> None:
        self._seats: dict[int, _SeatVector] = {}
        self._list_seats: dict[int, _SeatVector] = {}  # for values(): vectors kept as lists
        # The C encoder's vectors: an array and a list per seat.
        self._arrays: dict[int, NDArray[np.float32]] = {}
        self._lists: dict[int, list[float]] = {}

    def __reduce__(self) -> tuple[type[ObservationEncoder], tuple[()]]:
        """Copied and pickled as a fresh encoder: the vectors are caches (and hold memoryviews)."""
        return (ObservationEncoder, ())

    def reset(self) -> None:
        """Forget every seat's vector (nothing depends on it; this only frees memory)."""
        self._seats.clear()
        self._list_seats.clear()
        self._arrays.clear()
        self._lists.clear()

    def update(self, view: AnyView) -> NDArray[np.float32]:
        """The vector of ``view``: the encoder's own array for that seat, changed by the next
        update for the seat. Copy it to keep it (:meth:`encode` does)."""
        fast = _fast
        if fast is not None:
            array = self._arrays.get(view.player)
            if array is None:
                array = self._arrays[view.player] = np.zeros(SIZE, dtype=np.float32)
            fast.encode(array, view, _board_table(view.board), PHASES)
            return array
        seat = self._seats.get(view.player)
        if seat is None:
            seat = self._seats[view.player] = _SeatVector()
        seat.update(view)
        return seat.array

    def encode(self, view: AnyView) -> NDArray[np.float32]:
        """The vector of ``view`` as a fresh array (``encode_view(view)``, computed incrementally)."""
        return self.update(view).copy()

    def values(self, view: AnyView) -> list[float]:
        """The vector of ``view`` as a fresh list of Python floats, equal to
        ``encode_view(view).tolist()`` (what OpenSpiel's tensor methods return).

        Each seat has a list of its own for this, updated cell by cell as the arrays are:
        ``tolist()`` of an array makes 510 float objects every call (about 8 µs), a list copy none.
        """
        fast = _fast
        if fast is not None:
            cells = self._lists.get(view.player)
            if cells is None:
                cells = self._lists[view.player] = [0.0] * SIZE
            fast.encode(cells, view, _board_table(view.board), PHASES)  # only the changed cells
            return cells[:]
        seat = self._list_seats.get(view.player)
        if seat is None:
            seat = self._list_seats[view.player] = _SeatVector(as_list=True)
        seat.update(view)
        return seat.values[:]  # type: ignore[index]  # a list seat's


class _Cells(Protocol):
    """How the encoder writes a float32 array's memoryview (or a seat's list): one cell at a time."""

    def __setitem__(self, index: int, value: float, /) -> None: ...


class _Blocks(Protocol):
    """Where whole blocks go: the array's bytes (packed float32) or a seat's list (floats)."""

    def __setitem__(self, index: slice, value: bytes | tuple[float, ...], /) -> None: ...


class _SeatVector:
    """One seat's vector, the view it was built from, and that player's network of routes."""

    __slots__ = (
        "array",
        "block_kind",
        "blocks",
        "cells",
        "last",
        "network",
        "opponent_blocks",
        "owner_bits",
        "owner_bytes",
        "rare",
        "seats",
        "turn_cell",
        "values",
    )

    def __init__(self, as_list: bool = False) -> None:
        self.array = np.zeros(SIZE, dtype=np.float32)
        # The vector as Python floats instead, for a seat kept as a list (``array`` unused then).
        self.values: list[float] | None = [0.0] * SIZE if as_list else None
        # Single cells are written through a memoryview (cheaper than numpy's item assignment),
        # or into the list.
        self.cells = cast(_Cells, self.array.data if self.values is None else self.values)
        # Whole blocks (a hand's nine counts, the display) are written in one slice assignment
        # of a remembered block: packed float32 bytes into the array's bytes, or floats into
        # the list. ``block_kind`` picks which of the two a block table holds.
        self.block_kind = 1 if as_list else 0
        self.blocks = cast(_Blocks, self.values if as_list else self.array.data.cast("B"))
        # (where, seat) of each opponent's known cards, in relative order.
        self.opponent_blocks: tuple[tuple[slice, int], ...] = ()
        # The owners of the last view's routes, one byte each (struct) read as an int.
        self.owner_bytes = _owner_bytes(0)
        self.owner_bits = 0
        self.last: AnyView | None = None
        # Union-find parents over the cities, joined by the player's own routes: a claim joins
        # two cities instead of the engine working out the whole network again.
        self.network: list[int] = []
        # (first cell, seat) of each seat's part, in relative order (0 = the player).
        self.seats: tuple[tuple[int, int], ...] = ()
        self.rare: tuple[object, ...] = ()  # the seldom-changing fields of ``last`` (see update)
        self.turn_cell = -1  # the turn cell set to 1 (-1: none, the game is over)

    def update(self, view: AnyView) -> None:
        last = self.last
        self.last = view
        # The encoder keeps one vector per player, so the player is always this vector's.
        if last is None or last.board is not view.board or last.num_players != view.num_players:
            self._rebuild(view)
            return
        cells = self.cells
        n, me = view.num_players, view.player
        owners, last_owners = view.route_owner, last.route_owner
        own_routes_changed = False
        if owners != last_owners:
            own_routes_lost = False
            # The changed routes (one or two a step): the owners packed into one byte each, as
            # an int, and XORed with the last view's; each nonzero byte is a changed route.
            # map(ne) over all 81 routes cost about four times as many instructions.
            packed = int.from_bytes(self.owner_bytes.pack(*owners), "little")
            diff = packed ^ self.owner_bits
            self.owner_bits = packed
            while diff:
                route = ((diff & -diff).bit_length() - 1) >> 3
                diff &= ~(0xFF << (route << 3))
                old, new = last_owners[route], owners[route]
                if old >= 0:
                    cells[route * SEATS + (old - me) % n] = 0.0
                    own_routes_lost = own_routes_lost or old == me
                if new >= 0:
                    cells[route * SEATS + (new - me) % n] = 1.0
                    if new == me:
                        own_routes_changed = True
                        ends = view.board.routes[route]
                        _join(self.network, ends.a, ends.b)
            if own_routes_lost:
                own_routes_changed = True
                self.network = _network(view)
        blocks, block_kind = self.blocks, self.block_kind
        counts = view.hand
        if counts != last.hand:
            blocks[_HAND_SLICES[block_kind]] = (_COUNT_BLOCKS.get(counts) or _count_block(counts))[block_kind]
        known, last_known = view.known_cards, last.known_cards
        for where, seat in self.opponent_blocks:
            counts = known[seat]
            if counts != last_known[seat]:
                blocks[where] = (_COUNT_BLOCKS.get(counts) or _count_block(counts))[block_kind]
        display = view.display
        if display != last.display:
            blocks[_DISPLAY_SLICES[block_kind]] = (_DISPLAY_BLOCKS.get(display) or _display_block(display))[block_kind]
        if view.deck_count != last.deck_count:
            cells[PILES_START] = _DECK_SHARES[view.deck_count]
        counts = view.discard
        if counts != last.discard:
            blocks[_DISCARD_SLICES[block_kind]] = (_COUNT_BLOCKS.get(counts) or _count_block(counts))[block_kind]
        values = view.trains
        if values != last.trains:
            for base, seat in self.seats:
                cells[base] = _FORTIETHS[values[seat]]
        values = view.scores
        if values != last.scores:
            for base, seat in self.seats:
                score = values[seat]
                cells[base + 1] = _HUNDREDTHS[score] if 0 <= score < 1000 else _f32(score / 100)
        values = view.hand_sizes
        if values != last.hand_sizes:
            for base, seat in self.seats:
                cells[base + 2] = _FORTIETHS[values[seat]]
        phase, last_phase = view.phase, last.phase
        if phase is not last_phase:
            # PHASES.index compares by identity; a dict lookup would call Enum's Python __hash__.
            cells[PHASE_START + PHASES.index(last_phase)] = 0.0
            cells[PHASE_START + PHASES.index(phase)] = 1.0
        if phase is not last_phase or view.current != last.current:
            turn = -1 if phase is _GAME_OVER else TURN_START + (view.current - me) % n
            if turn != self.turn_cell:
                if self.turn_cell >= 0:
                    cells[self.turn_cell] = 0.0
                if turn >= 0:
                    cells[turn] = 1.0
                self.turn_cell = turn
        # The parts that change seldom (tickets, the final round, tunnels) are compared at once.
        rare = (
            view.tickets,
            view.offered_tickets,
            view.ticket_deck_count,
            view.ticket_counts,
            view.offer_counts,
            view.final_round_trigger,
            view.final_turns_left,
            view.tunnel,
        )
        if own_routes_changed or rare != self.rare:
            self._update_rare(view, last, own_routes_changed)
        self.rare = rare

    def _update_rare(self, view: AnyView, last: AnyView, own_routes_changed: bool) -> None:
        cells = self.cells
        if view.ticket_deck_count != last.ticket_deck_count:
            cells[PILES_START + 10] = _TICKET_SHARES[view.ticket_deck_count]
        if view.tickets != last.tickets:
            for ticket in last.tickets:
                cells[TICKETS_START + 2 * ticket] = cells[TICKETS_START + 2 * ticket + 1] = 0.0
            for ticket in view.tickets:
                cells[TICKETS_START + 2 * ticket] = 1.0
            self._write_completion(view)
        elif own_routes_changed:
            self._write_completion(view)
        if view.offered_tickets != last.offered_tickets:
            for ticket in last.offered_tickets:
                cells[OFFER_START + ticket] = 0.0
            for ticket in view.offered_tickets:
                cells[OFFER_START + ticket] = 1.0
        values = view.ticket_counts
        if values != last.ticket_counts:
            for base, seat in self.seats:
                cells[base + 3] = _TICKET_SHARES[values[seat]]
        values = view.offer_counts
        if values != last.offer_counts:
            for base, seat in self.seats:
                cells[base + 4] = _FIFTHS[values[seat]]
        if view.final_round_trigger != last.final_round_trigger or view.final_turns_left != last.final_turns_left:
            started = view.final_round_trigger >= 0
            cells[FINAL_START] = 1.0 if started else 0.0
            cells[FINAL_START + 1] = _THIRDS[view.final_turns_left] if started else 0.0
        tunnel = view.tunnel
        if tunnel is not last.tunnel and tunnel != last.tunnel:
            if tunnel is None:
                for index in range(TUNNEL_START, SIZE):  # through cells: a seat's list sees them too
                    cells[index] = 0.0
            else:
                revealed = [0] * NUM_KINDS
                for card in tunnel.revealed:
                    revealed[card] += 1
                for kind in range(NUM_KINDS):
                    cells[TUNNEL_START + kind] = _TWELFTHS[tunnel.base[kind]]
                    cells[TUNNEL_START + NUM_KINDS + kind] = _THIRDS[revealed[kind]]
                cells[TUNNEL_START + 2 * NUM_KINDS] = _THIRDS[tunnel.needed]
                cells[TUNNEL_START + 2 * NUM_KINDS + 1] = float(tunnel.locomotive_only)

    def _rebuild(self, view: AnyView) -> None:
        """Encode ``view`` from scratch (the first view, or one of another seat or board)."""
        n, me = view.num_players, view.player
        self.seats = tuple((SEATS_START + 5 * r, (me + r) % n) for r in range(n))
        self.opponent_blocks = tuple(
            (_block_slice(KNOWN_START + (r - 1) * NUM_KINDS, NUM_KINDS, self.block_kind), (me + r) % n)
            for r in range(1, n)
        )
        self.network = _network(view)
        self.owner_bytes = _owner_bytes(len(view.route_owner))
        self.owner_bits = int.from_bytes(self.owner_bytes.pack(*view.route_owner), "little")
        self.turn_cell = -1 if view.phase is _GAME_OVER else TURN_START + (view.current - me) % n
        self.rare = ()  # unlike any view's: the next update compares those fields one by one
        vector = encode_view(view)
        vector[TICKETS_START:OFFER_START] = 0.0
        if self.values is None:
            self.array[:] = vector
        else:
            self.values[:] = vector.tolist()
        cells = self.cells
        for ticket in view.tickets:
            cells[TICKETS_START + 2 * ticket] = 1.0
        self._write_completion(view)

    def _write_completion(self, view: AnyView) -> None:
        """Whether the player's network completes each of the player's tickets."""
        cells, network = self.cells, self.network
        ends = _ticket_ends(view.board)  # (city, city, completion cell) of each ticket
        for ticket in view.tickets:
            a, b, cell = ends[ticket]
            # The roots, found inline (a call per city would cost more than the walk).
            while network[a] != a:
                a = network[a]
            while network[b] != b:
                b = network[b]
            cells[cell] = 1.0 if a == b else 0.0


def _network(view: AnyView) -> list[int]:
    """Union-find parents over the cities joined by ``view.player``'s routes."""
    network = list(range(len(view.board.cities)))
    routes, me = view.board.routes, view.player
    for route in compress(_INDICES, map(eq, view.route_owner, repeat(me))):
        _join(network, routes[route].a, routes[route].b)
    return network


def _ticket_ends(board: Board) -> tuple[tuple[int, int, int], ...]:
    """The two cities of each ticket of ``board`` and the cell of its completion (remembered per board)."""
    return _per_board(_TICKET_ENDS, board, _make_ticket_ends)


def _make_ticket_ends(board: Board) -> tuple[tuple[int, int, int], ...]:
    return tuple((t.a, t.b, TICKETS_START + 2 * ticket + 1) for ticket, t in enumerate(board.tickets))


_TICKET_ENDS: dict[int, tuple[Board, tuple[tuple[int, int, int], ...]]] = {}


def _root(network: list[int], city: int) -> int:
    while network[city] != city:
        network[city] = network[network[city]]
        city = network[city]
    return city


def _join(network: list[int], a: int, b: int) -> None:
    ra, rb = _root(network, a), _root(network, b)
    if ra != rb:
        network[ra] = rb


_INDICES = range(1024)  # compress() stops at the shorter input


@cache
def _owner_bytes(routes: int) -> struct.Struct:
    """Packs the owners of ``routes`` routes (-1 for none, else a seat) one signed byte each."""
    return struct.Struct(f"{routes}b")


def _block_slice(start: int, length: int, block_kind: int) -> slice:
    """Where a block of ``length`` cells from ``start`` goes: in bytes of the array (kind 0) or in the list (kind 1)."""
    width = 4 if block_kind == 0 else 1  # float32
    return slice(start * width, (start + length) * width)


_HAND_SLICES = (_block_slice(HAND_START, NUM_KINDS, 0), _block_slice(HAND_START, NUM_KINDS, 1))
_DISCARD_SLICES = (_block_slice(PILES_START + 1, NUM_KINDS, 0), _block_slice(PILES_START + 1, NUM_KINDS, 1))
_DISPLAY_SLICES = (_block_slice(DISPLAY_START, 5 * NUM_KINDS, 0), _block_slice(DISPLAY_START, 5 * NUM_KINDS, 1))

_Block = tuple[bytes, tuple[float, ...]]
"""A block of cells: as packed float32 bytes (for an array) and as floats (for a list)."""

_COUNT_BLOCKS: dict[tuple[int, ...], _Block] = {}
_DISPLAY_BLOCKS: dict[tuple[int, ...], _Block] = {}
_BLOCK_LIMIT = 100_000


def _remember(table: dict[tuple[int, ...], _Block], key: tuple[int, ...], floats: tuple[float, ...]) -> _Block:
    """Store the block of ``floats`` under ``key`` (the table emptied at its limit first)."""
    if len(table) >= _BLOCK_LIMIT:
        table.clear()
    block = table[key] = (struct.pack(f"{len(floats)}f", *floats), floats)
    return block


def _count_block(counts: tuple[int, ...]) -> _Block:
    """The cells of nine card counts (each count / 12), remembered."""
    return _remember(_COUNT_BLOCKS, counts, tuple(map(_TWELFTHS.__getitem__, counts)))


def _display_block(display: tuple[int, ...]) -> _Block:
    """The one-hot cells of the five face-up slots (all zero for an empty slot), remembered."""
    cells = [0.0] * (5 * NUM_KINDS)
    for slot, card in enumerate(display):
        if card >= 0:
            cells[slot * NUM_KINDS + card] = 1.0
    return _remember(_DISPLAY_BLOCKS, display, tuple(cells))

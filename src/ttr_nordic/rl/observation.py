"""A fixed-size encoding of one player's view (``PlayerView``), built from the view only.

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

import numpy as np
from numpy.typing import NDArray

from ttr_nordic.engine import Phase, PlayerView

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


_STATUS_CACHE: dict[tuple[int, tuple[int, ...], int, tuple[int, ...]], list[tuple[int, bool]]] = {}


def _ticket_status(view: PlayerView) -> list[tuple[int, bool]]:
    """``view.ticket_status()``, remembered: routes change only on claims, so most steps repeat one."""
    key = (id(view.board), view.route_owner, view.player, view.tickets)
    status = _STATUS_CACHE.get(key)
    if status is None:
        if len(_STATUS_CACHE) >= 4096:
            _STATUS_CACHE.clear()
        status = _STATUS_CACHE[key] = view.ticket_status()
    return status


def encode_view(view: PlayerView) -> NDArray[np.float32]:
    """The observation vector of ``view`` (see the module docstring for the layout)."""
    out = np.zeros(SIZE, dtype=np.float32)
    n = view.num_players
    me = view.player

    def rel(seat: int) -> int:
        return (seat - me) % n

    i = 0
    owners = np.fromiter(view.route_owner, dtype=np.int64, count=NUM_ROUTES)
    claimed = np.flatnonzero(owners >= 0)
    out[i + claimed * SEATS + (owners[claimed] - me) % n] = 1.0
    i += NUM_ROUTES * SEATS
    out[i : i + NUM_KINDS] = np.asarray(view.hand, dtype=np.float32) / 12
    i += NUM_KINDS
    for seat in range(n):
        r = rel(seat)
        if r:
            out[i + (r - 1) * NUM_KINDS : i + r * NUM_KINDS] = np.asarray(view.known_cards[seat]) / 12
    i += 2 * NUM_KINDS
    for slot, card in enumerate(view.display):
        if card >= 0:
            out[i + slot * NUM_KINDS + card] = 1.0
    i += 5 * NUM_KINDS
    out[i] = view.deck_count / 157
    out[i + 1 : i + 10] = np.asarray(view.discard) / 12
    out[i + 10] = view.ticket_deck_count / NUM_TICKETS
    i += 11
    for ticket, done in _ticket_status(view):
        out[i + 2 * ticket] = 1.0
        out[i + 2 * ticket + 1] = float(done)
    i += 2 * NUM_TICKETS
    for ticket in view.offered_tickets:
        out[i + ticket] = 1.0
    i += NUM_TICKETS
    for seat in range(n):
        base = i + rel(seat) * 5
        out[base] = view.trains[seat] / 40
        out[base + 1] = view.scores[seat] / 100
        out[base + 2] = view.hand_sizes[seat] / 40
        out[base + 3] = view.ticket_counts[seat] / NUM_TICKETS
        out[base + 4] = view.offer_counts[seat] / 5
    i += SEATS * 5
    out[i + PHASES.index(view.phase)] = 1.0
    i += len(PHASES)
    if view.phase is not Phase.GAME_OVER:
        out[i + rel(view.current)] = 1.0
    i += SEATS
    if view.final_round_trigger >= 0:
        out[i] = 1.0
        out[i + 1] = view.final_turns_left / 3
    i += 2
    tunnel = view.tunnel
    if tunnel is not None:
        out[i : i + NUM_KINDS] = np.asarray(tunnel.base) / 12
        for card in tunnel.revealed:
            out[i + NUM_KINDS + card] += 1 / 3
        out[i + 2 * NUM_KINDS] = tunnel.needed / 3
        out[i + 2 * NUM_KINDS + 1] = float(tunnel.locomotive_only)
    i += 2 * NUM_KINDS + 2
    assert i == SIZE
    return out

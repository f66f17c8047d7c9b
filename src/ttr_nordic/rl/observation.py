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


ROUTES_END = NUM_ROUTES * SEATS
"""The route-owner part is ``out[:ROUTES_END]``."""
TICKETS_START = ROUTES_END + NUM_KINDS + 2 * NUM_KINDS + 5 * NUM_KINDS + 11
TICKETS_END = TICKETS_START + NUM_TICKETS * 3
"""Own tickets and the offer are ``out[TICKETS_START:TICKETS_END]``."""

_ROUTE_PARTS: dict[tuple[int, tuple[int, ...], int, int], NDArray[np.float32]] = {}
_TICKET_PARTS: dict[tuple[int, tuple[int, ...], int, tuple[int, ...], tuple[int, ...]], NDArray[np.float32]] = {}
_COMPLETED: dict[tuple[int, int, tuple[int, ...]], dict[int, bool]] = {}
_CACHE_LIMIT = 4096
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


def _ticket_status(view: PlayerView) -> list[tuple[int, bool]]:
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


def _route_part(view: PlayerView) -> NDArray[np.float32]:
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


def _ticket_part(view: PlayerView) -> NDArray[np.float32]:
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


def encode_view(view: PlayerView) -> NDArray[np.float32]:
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
    phase_and_turn[_PHASE_INDEX[view.phase]] = 1.0
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

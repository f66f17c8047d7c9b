"""Claim candidates: which claims a hand can pay for, cached per hand and shared by all games.

The legal-move listing asks, for the current hand, which routes it could pay for and with
which payments; the answer does not depend on the rest of the state, so it is worked out once
per distinct hand (see :func:`claim_candidates`) and filtered by ownership and trains per call.
Ferries and Murmansk–Lieksa have many payments for a big hand: those are worked out only when
the route is claimable (:func:`expensive_claims`).
"""

from __future__ import annotations

import threading
from operator import itemgetter
from typing import Final, NamedTuple

from .actions import Claim, KeepTickets
from .board import GRAY, Board, RouteKind
from .cards import COLORS, FULL_DECK_COUNTS, LOCOMOTIVE, NUM_KINDS, Counts, to_counts
from .core import FERRY_CODE, KIND_CODE, REGULAR_CODE, SPECIAL_CODE, TUNNEL_CODE, RouteInfo
from .payments import ferry_options, special_options, tunnel_options

# The one Claim per (route, payment), by route then payment (no key tuple to build and hash).
_CLAIMS_BY_ROUTE: dict[int, dict[Counts, Claim]] = {}
# The claim candidates of one hand: (route, length, twin, claim set id) per route the hand
# might pay for, plus a slot per ferry or Murmansk–Lieksa whose many payments are worked out
# only once it is claimable (claim set id -1 - slot). The entries are plain integers, so the
# garbage collector stops tracking them: with lists of claims per route, 200,000 cached
# hands made a full collection take seconds (hence also the smaller bound).
RouteClaims = tuple[tuple[int, int, int, int], ...]
LazySlots = list[tuple[Claim, ...] | None] | tuple[()]
Candidates = dict[Counts, tuple[RouteClaims, LazySlots]]
# By route, per color: the id in CLAIM_SETS of the regular route's claim in that color (one or none).
SimpleIds = tuple[tuple[int, ...], ...]
# Claim candidates per hand, shared by all games on one board (see claim_candidates).
_CANDIDATE_CACHE_SIZE: Final = 50_000
# Ferry payments are many for a big hand: once the ferry claims held pass this count, the
# older half of the hands is dropped (5,000 random games stay below it), which keeps a full
# collection under about a second.
_LAZY_CLAIM_LIMIT: Final = 1_200_000
_lazy_claim_count = 0
# Claim sets by id: the few distinct tuples of claims that regular routes and tunnels offer.
CLAIM_SETS: list[tuple[Claim, ...]] = [()]
_CLAIM_SET_IDS: dict[tuple[Claim, ...], int] = {(): 0}
_KEEP_CACHE: dict[tuple[int, ...], KeepTickets] = {}
# Claim set ids of gray regular routes by (route, length, colors held in enough number) and of
# tunnels by the route and the counts that matter capped at the length (one int for a colored
# tunnel, see claim_candidates): a new hand then finds them without building and hashing tuples
# of claims.
# (The gray key names the route and its length, which fix its claims on any board; a tunnel's
# key does not name its color and length, so the tunnel ids are kept per board, in its tables.)
_GRAY_IDS: dict[tuple[int, int, int], int] = {}
# The caches above are shared by all games, also games on other threads (expert AIs think
# in threads): lookups and inserts are single dict operations, atomic in CPython; the rare
# multi-step changes (a new claim set id, dropping old hands) hold this lock.
_CACHE_LOCK = threading.Lock()


def _claim_set_id(claims: tuple[Claim, ...]) -> int:
    cid = _CLAIM_SET_IDS.get(claims)
    if cid is None:
        # A miss is rare after warm-up; the lock keeps an id and its entry together when
        # games on other threads add claim sets at the same time.
        with _CACHE_LOCK:
            cid = _CLAIM_SET_IDS.get(claims)
            if cid is None:
                CLAIM_SETS.append(claims)
                cid = _CLAIM_SET_IDS[claims] = len(CLAIM_SETS) - 1
    return cid


def claim_action(route: int, payment: Counts) -> Claim:
    """The one shared :class:`Claim` of ``route`` with ``payment`` (actions are immutable)."""
    return _claims(route, [payment])[0]


def _claims(route: int, payments: list[Counts]) -> tuple[Claim, ...]:
    by_payment = _CLAIMS_BY_ROUTE.get(route)
    if by_payment is None:
        by_payment = _CLAIMS_BY_ROUTE.setdefault(route, {})
    get = by_payment.get
    out: list[Claim] = []
    for payment in payments:
        action = get(payment)
        if action is None:
            action = by_payment[payment] = Claim(route, payment)
        out.append(action)
    return tuple(out)


def keep_action(tickets: tuple[int, ...]) -> KeepTickets:
    """The one shared :class:`KeepTickets` of ``tickets``."""
    action = _KEEP_CACHE.get(tickets)
    if action is None:
        action = _KEEP_CACHE[tickets] = KeepTickets(tickets)
    return action


def route_tables(board: Board) -> tuple[tuple[RouteInfo, ...], SimpleIds, Candidates]:
    """The per-board tables every game on ``board`` shares: route numbers, the claim set id
    of each regular route per color, and the per-hand candidate cache."""
    cached = _TABLES.get(id(board))
    if cached is not None and cached[0] is board:
        return cached[1], cached[2], cached[3]
    infos = tuple(
        RouteInfo(r.id, r.length, r.color, KIND_CODE[r.kind], -1 if r.twin is None else r.twin) for r in board.routes
    )
    simple: list[tuple[tuple[Claim, ...], ...]] = []
    for r in board.routes:
        row: list[tuple[Claim, ...]] = []
        for color in COLORS:
            if r.kind is RouteKind.REGULAR and r.color in (GRAY, color):
                payment = [0] * NUM_KINDS
                payment[color] = r.length
                row.append((claim_action(r.id, to_counts(payment)),))
            else:
                row.append(())
        simple.append(tuple(row))
    ids = tuple(tuple(_claim_set_id(claims) for claims in row) for row in simple)
    candidates: Candidates = {}
    _TABLES[id(board)] = (board, infos, ids, candidates)
    return infos, ids, candidates


Entry = tuple[int, int, int, int]


class _CandidateTables(NamedTuple):
    """Per board, the routes grouped by what decides whether a hand might pay for them."""

    board: Board
    cap: int  # counts above it decide nothing more
    capped: tuple[tuple[int, ...], ...]  # length -> count -> the count capped at the length
    # By a count (any count a hand can have), the entries of the routes no longer than it, in
    # route order (runs that the final sort merges cheaply):
    regular: tuple[tuple[tuple[Entry, ...], ...], ...]  # color -> cards of it -> its regular routes
    ferries: tuple[tuple[Entry, ...], ...]  # cards -> ferries, each with its own lazy slot
    special: tuple[tuple[Entry, ...], ...]  # cards -> Murmansk–Lieksa, with its lazy slot
    lazy_slots: int
    gray: tuple[tuple[int, int, int], ...]  # gray regular routes: (route, length, twin)
    tunnels: tuple[tuple[int, int, int, int], ...]  # (route, length, color, twin)
    tunnel_ids: dict[tuple[int, ...] | int, int]  # claim set ids of the tunnels (see _GRAY_IDS)
    ferry_spare: int  # cards beyond a ferry's length that a hand without locomotives needs (a group's)


_CANDIDATE_TABLES: dict[int, _CandidateTables] = {}


def _candidate_tables(board: Board, routes: tuple[RouteInfo, ...], simple: SimpleIds) -> _CandidateTables:
    cached = _CANDIDATE_TABLES.get(id(board))
    if cached is not None and cached.board is board:
        return cached
    if [r.id for r in routes] != list(range(len(routes))):
        raise ValueError("routes must be listed by id")
    cap = max(r.length for r in routes) + 2
    # Tables indexed by a count are as long as any count can be (all cards), so that a count
    # is looked up as it is (min() calls cost more than the lookups).
    most = sum(FULL_DECK_COUNTS)

    def upto(entries: list[Entry]) -> tuple[tuple[Entry, ...], ...]:
        by_count: dict[tuple[Entry, ...], tuple[Entry, ...]] = {}  # one tuple per distinct set
        return tuple(
            by_count.setdefault(short, short)
            for short in (tuple(e for e in entries if e[1] <= count) for count in range(most + 1))
        )

    regular = [
        [(r.id, r.length, r.twin, simple[r.id][color]) for r in routes if r.kind == REGULAR_CODE and r.color == color]
        for color in COLORS
    ]
    lazy = [r for r in routes if r.kind in (FERRY_CODE, SPECIAL_CODE)]
    slot = {r.id: -1 - i for i, r in enumerate(lazy)}
    ferries = [(r.id, r.length, r.twin, slot[r.id]) for r in routes if r.kind == FERRY_CODE]
    special = [(r.id, r.length, r.twin, slot[r.id]) for r in routes if r.kind == SPECIAL_CODE]
    tables = _CandidateTables(
        board=board,
        cap=cap,
        capped=tuple(tuple(min(n, length) for n in range(most + 1)) for length in range(cap + 1)),
        regular=tuple(upto(entries) for entries in regular),
        ferries=upto(ferries),
        special=upto(special),
        lazy_slots=len(lazy),
        gray=tuple((r.id, r.length, r.twin) for r in routes if r.kind == REGULAR_CODE and r.color == GRAY),
        tunnels=tuple((r.id, r.length, r.color, r.twin) for r in routes if r.kind == TUNNEL_CODE),
        tunnel_ids={},
        # The smallest group of any ferry (all have the same in a variant): a bound, never too high.
        ferry_spare=min((route.group - 1 for route in board.routes if route.kind is RouteKind.FERRY), default=2),
    )
    _CANDIDATE_TABLES[id(board)] = tables
    return tables


_ROUTE_ORDER: Final = itemgetter(0)


def claim_candidates(
    board: Board, routes: tuple[RouteInfo, ...], simple: SimpleIds, cache: Candidates, hand: Counts
) -> tuple[RouteClaims, LazySlots]:
    """Every claim ``hand`` can pay for, by route, ignoring ownership and trains (cached
    in ``cache`` per hand: hands recur often, and this is the hot path of random play)."""
    tables = _candidate_tables(board, routes, simple)
    locos = hand[LOCOMOTIVE]
    hand_total = sum(hand)
    # Regular routes of a color, ferries and Murmansk–Lieksa are looked up by the count that
    # decides, each a run in route order; then every route's entry is put in route order.
    found: list[Entry] = []
    regular = tables.regular
    for c in COLORS:
        found += regular[c][hand[c]]
    ferry_cards = hand_total if locos else hand_total - tables.ferry_spare
    if ferry_cards > 0:
        found += tables.ferries[ferry_cards]
    found += tables.special[hand_total]
    best_color = max(hand[0], hand[1], hand[2], hand[3], hand[4], hand[5], hand[6], hand[7])
    colors_from: dict[int, int] = {}  # length -> the colors held that many times or more, as bits
    for rid, length, twin in tables.gray:
        if best_color >= length:
            # The colors held in enough number decide the claims: look their set up by them.
            mask = colors_from.get(length)
            if mask is None:
                mask = 0
                for c in COLORS:
                    if hand[c] >= length:
                        mask |= 1 << c
                colors_from[length] = mask
            gray_key = (rid, length, mask)
            cid = _GRAY_IDS.get(gray_key)
            if cid is None:
                row = simple[rid]
                claims = tuple([CLAIM_SETS[row[c]][0] for c in COLORS if hand[c] >= length])
                cid = _GRAY_IDS[gray_key] = _claim_set_id(claims)
            found.append((rid, length, twin, cid))
    board_routes = board.routes
    capped = tables.capped
    tunnel_ids = tables.tunnel_ids
    for rid, length, color, twin in tables.tunnels:
        top = best_color if color == GRAY else hand[color]
        if top + locos >= length:
            # A tunnel's payments depend on the counts only up to its length.
            upto = capped[length]
            if color == GRAY:
                tunnel_key: tuple[int, ...] | int = (rid, *[upto[n] for n in hand])
            else:
                # An int key (cheaper to hash than a tuple): the route, its color's cards
                # and the locomotives, each capped at the length (tunnels are short).
                tunnel_key = (rid << 16) | (upto[hand[color]] << 8) | upto[locos]
            cid = tunnel_ids.get(tunnel_key)
            if cid is None:
                payments = tunnel_options(board_routes[rid], hand)
                cid = tunnel_ids[tunnel_key] = _claim_set_id(_claims(rid, payments))
            found.append((rid, length, twin, cid))
    found.sort(key=_ROUTE_ORDER)
    # Every ferry and Murmansk–Lieksa has its slot, claimable with this hand or not.
    lazy: LazySlots = [None] * tables.lazy_slots if tables.lazy_slots else ()
    candidates = (tuple(found), lazy)
    if len(cache) >= _CANDIDATE_CACHE_SIZE:
        drop_candidates(cache)
    cache[hand] = candidates
    return candidates


def expensive_claims(board: Board, cache: Candidates, rid: int, hand: Counts) -> tuple[Claim, ...]:
    """The claims of a ferry or of Murmansk–Lieksa for ``hand`` (many for a big hand)."""
    global _lazy_claim_count
    route = board.routes[rid]
    if route.kind is RouteKind.FERRY:
        claims = _claims(rid, ferry_options(route, hand))
    else:
        claims = _claims(rid, special_options(route, hand))
    _lazy_claim_count += len(claims)
    if _lazy_claim_count > _LAZY_CLAIM_LIMIT:
        drop_candidates(cache)
    return claims


def drop_candidates(cache: Candidates) -> None:
    """Forget the older half of the cached hands (insertion order), and their ferry claims."""
    global _lazy_claim_count
    with _CACHE_LOCK:
        # Snapshots (list() of a dict is one C call): other threads may insert meanwhile,
        # and another drop may have removed a hand already.
        hands = list(cache)
        for hand in hands[: (len(hands) + 1) // 2]:
            cache.pop(hand, None)
        _CLAIMS_BY_ROUTE.clear()  # ferry payments of the dropped hands; the claim sets keep the rest
        _lazy_claim_count = sum(
            len(claims) for _, lazy in list(cache.values()) for claims in lazy if claims is not None
        )


_TABLES: dict[int, tuple[Board, tuple[RouteInfo, ...], SimpleIds, Candidates]] = {}

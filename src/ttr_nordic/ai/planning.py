"""Route planning from a player's view: the graph work shared by the baseline agents.

Everything here reads only a :class:`~ttr_nordic.engine.PlayerView` (or plain
tuples taken from one) and precomputed board tables, so an agent built on it
never sees hidden information.

* :func:`board_tables` -- per-board arrays (route ends, lengths, colors, twins,
  adjacency, tickets), computed once per process and cached.
* :func:`route_status` -- for each route, whether it is the player's own
  (``OWN``), one the player could still claim (``FREE``) or out of reach
  (``BLOCKED``: owned by someone else, the closed twin of a claimed double in a
  2-player game, the twin of one's own route, or longer than the trains left).
* :func:`dijkstra` / :func:`shortest_path` -- shortest paths where own routes
  cost 0, free routes cost their planning weight and blocked routes are
  impassable.
* :func:`plan_tickets` -- the routes still needed for a set of tickets (one
  shortest path per ticket, routes planned for earlier tickets reused for free).
* :func:`card_deficits` / :func:`card_wants` -- the cards still missing for a
  list of target routes, per card kind, and how much each kind is wanted.
* :func:`payment_cost` -- how much of the hand's future usefulness a payment
  throws away (locomotives and cards of still-needed colors are dear).

>>> from ttr_nordic.engine import GameState
>>> game = GameState.new(players=2, seed=3)
>>> view = game.view(0)
>>> tables = board_tables(view.board)
>>> status = route_status(view)
>>> status.count(FREE)
81
>>> oslo, stockholm = view.board.city("Oslo").id, view.board.city("Stockholm").id
>>> cost, path = shortest_path(tables, costs_for(status, tables.train_cost), oslo, stockholm)
>>> cost, [view.board.routes[r].name for r in path]
(4.0, ['Oslo–Örebro', 'Stockholm–Örebro'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from itertools import compress, repeat
from math import nextafter
from operator import eq, ne, sub
from typing import Final

from ..engine import GRAY, LOCOMOTIVE, Board, PlayerView, RouteKind
from ..engine.cards import FULL_DECK_COUNTS, NUM_KINDS

OWN: Final = 0
FREE: Final = 1
BLOCKED: Final = 2
INF: Final = float("inf")

_REGULAR: Final = 0
_FERRY: Final = 1
_TUNNEL: Final = 2
_SPECIAL: Final = 3
_KIND_CODE: Final = {RouteKind.REGULAR: _REGULAR, RouteKind.FERRY: _FERRY, RouteKind.TUNNEL: _TUNNEL}


@dataclass(frozen=True, slots=True)
class BoardTables:
    """Plain per-route and per-ticket arrays of one board (see :func:`board_tables`)."""

    board: Board
    num_cities: int
    route_a: tuple[int, ...]
    route_b: tuple[int, ...]
    length: tuple[int, ...]
    color: tuple[int, ...]  # a card color or GRAY
    kind: tuple[int, ...]  # 0 regular, 1 ferry, 2 tunnel, 3 special
    ferry_locos: tuple[int, ...]
    twin: tuple[int, ...]  # -1 when none
    points: tuple[int, ...]
    adjacency: tuple[tuple[tuple[int, int], ...], ...]  # city -> ((route, other city), ...)
    ticket_a: tuple[int, ...]
    ticket_b: tuple[int, ...]
    ticket_points: tuple[int, ...]
    train_cost: tuple[float, ...]  # planning weight: trains, plus a little for ferries/tunnels/special
    long_cost: tuple[float, ...]  # planning weight that favours long routes (length**2 / points)
    held_slot: tuple[int, ...]  # where hand_weights() finds the cards a route can use (see there)
    route_ends: tuple[int, ...]  # route_a ^ route_b: one end of a route XOR it gives the other
    route_bits: tuple[int, ...]  # 1 << route: a set of routes is the sum of its routes' bits
    group: tuple[int, ...]  # cards of any colors that stand for one space (Route.group; 0: none)

    @property
    def num_routes(self) -> int:
        return len(self.length)

    def ferry_or_tunnel(self, route: int) -> bool:
        return self.kind[route] in (_FERRY, _TUNNEL)

    def is_tunnel(self, route: int) -> bool:
        return self.kind[route] == _TUNNEL


_TABLES: dict[int, BoardTables] = {}


def board_tables(board: Board) -> BoardTables:
    """The tables of ``board``, built once per process."""
    cached = _TABLES.get(id(board))
    if cached is not None and cached.board is board:
        return cached
    routes = board.routes
    adjacency: list[list[tuple[int, int]]] = [[] for _ in board.cities]
    for r in routes:
        adjacency[r.a].append((r.id, r.b))
        adjacency[r.b].append((r.id, r.a))
    kind = tuple(_KIND_CODE.get(r.kind, _SPECIAL) for r in routes)
    train_cost = []
    for r, k in zip(routes, kind, strict=True):
        extra = 0.0
        if k == _FERRY:
            extra = 0.35 * r.ferry_locomotives  # locomotives are scarce
        elif k == _TUNNEL:
            extra = 0.3  # the extra-card risk
        elif k == _SPECIAL:
            extra = 2.0  # nine cards of one color, or groups of four
        train_cost.append(r.length + extra)
    tables = BoardTables(
        board=board,
        num_cities=len(board.cities),
        route_a=tuple(r.a for r in routes),
        route_b=tuple(r.b for r in routes),
        length=tuple(r.length for r in routes),
        color=tuple(r.color for r in routes),
        kind=kind,
        ferry_locos=tuple(r.ferry_locomotives for r in routes),
        twin=tuple(-1 if r.twin is None else r.twin for r in routes),
        points=tuple(r.points for r in routes),
        adjacency=tuple(tuple(a) for a in adjacency),
        ticket_a=tuple(t.a for t in board.tickets),
        ticket_b=tuple(t.b for t in board.tickets),
        ticket_points=tuple(t.points for t in board.tickets),
        train_cost=tuple(train_cost),
        # (A variant may score a route 0 points: it counts as half a point here, not a division by 0.)
        long_cost=tuple(c * r.length / max(r.points, 0.5) for c, r in zip(train_cost, routes, strict=True)),
        held_slot=tuple(
            (LOCOMOTIVE if r.color == GRAY else r.color) + (NUM_KINDS if k in (_FERRY, _TUNNEL) else 0)
            for r, k in zip(routes, kind, strict=True)
        ),
        route_ends=tuple(r.a ^ r.b for r in routes),
        route_bits=tuple(1 << r.id for r in routes),
        group=tuple(r.group for r in routes),
    )
    _TABLES[id(board)] = tables
    return tables


# ---------------------------------------------------------------- route status

# The last status worked out per (player, player count, respect_trains, board): (owners, trains,
# status). A decision's status is mostly the last one (the same owners) or differs from it by a
# claim or two, worked out route by route. Replaced whole (one dict store: safe across threads).
_LAST_STATUS: dict[tuple[int, int, bool, int], tuple[tuple[int, ...], int, tuple[int, ...]]] = {}


def route_status(view: PlayerView, respect_trains: bool = True, player: int | None = None) -> tuple[int, ...]:
    """``OWN``, ``FREE`` or ``BLOCKED`` for each route, from ``view.player``'s side (or
    ``player``'s: owners and trains are public).

    With ``respect_trains``, a free route longer than the player's trains left is ``BLOCKED``.
    """
    me = view.player if player is None else player
    trains = view.trains[me] if respect_trains else 1_000
    tables = board_tables(view.board)
    owner = view.route_owner
    two = view.num_players == 2
    memo_key = (me, view.num_players, respect_trains, id(tables))
    last = _LAST_STATUS.get(memo_key)
    if last is not None and last[1] == trains:
        last_owner, _, last_status = last
        if owner == last_owner:
            return last_status
        changed = [*compress(range(len(owner)), map(ne, owner, last_owner))]
        if len(changed) <= 6:
            # A route's status depends on its owner and its twin's: those of the claimed
            # routes and of their twins change.
            status_list = list(last_status)
            lengths, twins = tables.length, tables.twin
            for claimed in changed:
                for r in (claimed, twins[claimed]):
                    if r >= 0:
                        holder, twin = owner[r], twins[r]
                        status_list[r] = (
                            OWN
                            if holder == me
                            else BLOCKED
                            if holder != -1
                            or lengths[r] > trains
                            or (twin >= 0 and (other := owner[twin]) != -1 and (other == me or two))
                            else FREE
                        )
            status = tuple(status_list)
            _LAST_STATUS[memo_key] = (owner, trains, status)
            return status
    # Own; else blocked if someone else's, too long, or the closed twin of a claimed double.
    status = tuple(
        [
            OWN
            if holder == me
            else BLOCKED
            if holder != -1 or length > trains or (twin >= 0 and (other := owner[twin]) != -1 and (other == me or two))
            else FREE
            for holder, length, twin in zip(owner, tables.length, tables.twin, strict=True)
        ]
    )
    _LAST_STATUS[memo_key] = (owner, trains, status)
    return status


def hand_weights(tables: BoardTables, weights: Sequence[float], hand: Sequence[int], beta: float = 0.25) -> list[float]:
    """``weights`` plus ``beta`` per card the hand still misses for each route.

    This breaks ties between twins and equal paths in favour of the colors held
    (locomotives count for ferries and tunnels).
    """
    # Called on every decision, so one comprehension over precomputed slots: a route's held
    # cards are looked up in the hand's counts (the best color in the locomotive slot, for
    # gray routes), with the locomotives added for ferries and tunnels (the second half).
    held = list(hand)
    locos = held[LOCOMOTIVE]
    held[LOCOMOTIVE] = max(held[:LOCOMOTIVE])
    held.extend([n + locos for n in held])
    # w + beta * max(0, length - h), written so that a route with no card missing keeps w as is.
    return [
        w + beta * (n - h) if n > (h := held[slot]) else w
        for w, slot, n in zip(weights, tables.held_slot, tables.length, strict=True)
    ]


def hand_costs(
    tables: BoardTables, weights: Sequence[float], hand: Sequence[int], beta: float, status: Sequence[int]
) -> list[float]:
    """``costs_for(status, hand_weights(tables, weights, hand, beta))`` in one pass."""
    held = list(hand)
    locos = held[LOCOMOTIVE]
    held[LOCOMOTIVE] = max(held[:LOCOMOTIVE])
    held.extend([n + locos for n in held])
    return [
        (w + beta * (n - h) if n > (h := held[slot]) else w) if s == FREE else (0.0 if s == OWN else INF)
        for w, slot, n, s in zip(weights, tables.held_slot, tables.length, status, strict=True)
    ]


class HandCosts:
    """:func:`hand_costs` for one player's successive hands and statuses, on one board with
    fixed ``weights`` and ``beta``: only the routes whose status or held cards changed since the
    last call are worked out again (a drawn card changes a few of the 18 counts, a claim the
    status of a route or two).
    The returned list is the object's own and changes with the next call: copy it to keep it."""

    __slots__ = (
        "_beta",
        "_cost",
        "_held",
        "_held_slot",
        "_positive",
        "_slot_routes",
        "_status",
        "_weights",
        "_zero",
        "_zero_status",
        "tables",
        "version",
    )

    def __init__(self, tables: BoardTables, weights: Sequence[float], beta: float) -> None:
        self.tables = tables
        self._weights = weights
        self._beta = beta
        slot_routes: list[list[int]] = [[] for _ in range(2 * NUM_KINDS)]
        for rid, slot in enumerate(tables.held_slot):
            slot_routes[slot].append(rid)
        self._slot_routes = slot_routes
        self._held_slot = tables.held_slot
        self._status: Sequence[int] | None = None
        self._held: list[int] = []
        self._cost: list[float] = []
        # With positive weights, a free route costs more than 0: the routes at cost 0 are the own ones.
        self._positive = min(weights, default=1.0) > 0.0 and beta >= 0.0
        self._zero_status: Sequence[int] | None = None
        self._zero = -1
        #: Counts the changes of the list: an unchanged version is the same list of costs.
        self.version = 0

    def zero_routes(self) -> int:
        """The routes at cost 0 in the last list, as bits (1 << route), or -1 if not known."""
        status = self._status
        if not self._positive or status is None:
            return -1
        if status is not self._zero_status:
            self._zero = sum(compress(self.tables.route_bits, map(eq, status, repeat(OWN))))
            self._zero_status = status
        return self._zero

    def __call__(self, hand: Sequence[int], status: Sequence[int]) -> list[float]:
        held = list(hand)
        locos = held[LOCOMOTIVE]
        held[LOCOMOTIVE] = max(held[:LOCOMOTIVE])
        held.extend([n + locos for n in held])
        old = self._held
        last = self._status
        if status is not last:
            self.version += 1
            if last is None:
                self._cost = hand_costs(self.tables, self._weights, hand, self._beta, status)
                self._status, self._held = status, held
                return self._cost
            # A claim changes the status of a route or two (its twin): those routes' costs are
            # worked out again (with the old counts, the loop below then updates the counts).
            cost, weights, length, beta = self._cost, self._weights, self.tables.length, self._beta
            slots = self._held_slot
            for r in compress(range(len(status)), map(ne, status, last)):
                s = status[r]
                if s == FREE:
                    w, n, h = weights[r], length[r], old[slots[r]]
                    cost[r] = w + beta * (n - h) if n > h else w
                else:
                    cost[r] = 0.0 if s == OWN else INF
            self._status = status
        if held != old:
            cost, weights, length, beta = self._cost, self._weights, self.tables.length, self._beta
            changed = False
            for slot, routes in enumerate(self._slot_routes):
                h = held[slot]
                if h == old[slot]:
                    continue
                # The expression of hand_costs, for the free routes (the others do not depend on the hand).
                for r in routes:
                    if status[r] == FREE:
                        w, n = weights[r], length[r]
                        value = w + beta * (n - h) if n > h else w
                        if cost[r] != value:
                            cost[r] = value
                            changed = True
            if changed:
                self.version += 1
            self._held = held
        return self._cost


def costs_for(status: Sequence[int], weights: Sequence[float]) -> list[float]:
    """Edge costs for path search: 0 for own routes, ``weights`` for free ones, INF if blocked."""
    return [w if s == FREE else (0.0 if s == OWN else INF) for w, s in zip(weights, status, strict=True)]


def components(tables: BoardTables, status: Sequence[int]) -> list[int]:
    """A connected-component label per city over the player's own routes."""
    parent = list(range(tables.num_cities))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for rid, s in enumerate(status):
        if s == OWN:
            ra, rb = find(tables.route_a[rid]), find(tables.route_b[rid])
            if ra != rb:
                parent[ra] = rb
    return [find(c) for c in range(tables.num_cities)]


# ---------------------------------------------------------------- shortest paths


def dijkstra(
    tables: BoardTables, cost: Sequence[float], source: int, target: int = -1
) -> tuple[list[float], list[int]]:
    """Distances from ``source`` and the route used to reach each city (-1 for none).

    Stops early once ``target`` (if given) is settled.
    """
    return _dijkstra_within(tables.adjacency, cost, source, target, INF)


def _dijkstra_within(
    adjacency: tuple[tuple[tuple[int, int], ...], ...], cost: Sequence[float], source: int, target: int, limit: float
) -> tuple[list[float], list[int]]:
    """:func:`dijkstra` to ``target`` with the cities farther than ``limit`` never queued
    (``limit`` INF: every city; ``target`` -1: no early stop).

    Given ``limit`` above the target's distance, the target's distance and routes are those
    of :func:`dijkstra`: an entry beyond the limit would be taken from the queue only after the
    target, and a city's improvements up to the limit are the same with or without the ones
    beyond it (each is below every earlier value). Unreached cities keep ``limit``.
    """
    dist = [limit] * len(adjacency)
    via = [-1] * len(adjacency)
    dist[source] = 0.0
    heap: list[tuple[float, int]] = [(0.0, source)]
    pop, push = heappop, heappush
    while heap:
        d, city = pop(heap)
        if d > dist[city]:
            continue
        if city == target:
            break
        for rid, other in adjacency[city]:
            nd = d + cost[rid]
            if nd < dist[other]:
                dist[other] = nd
                via[other] = rid
                push(heap, (nd, other))
    return dist, via


def shortest_path(tables: BoardTables, cost: Sequence[float], a: int, b: int) -> tuple[float, list[int]]:
    """The cheapest path from ``a`` to ``b``: its cost and its route ids (INF, [] if none)."""
    dist, via = dijkstra(tables, cost, a, b)
    if dist[b] == INF:
        return INF, []
    path: list[int] = []
    city = b
    while city != a:
        rid = via[city]
        path.append(rid)
        city = tables.route_a[rid] if tables.route_b[rid] == city else tables.route_b[rid]
    path.reverse()
    return dist[b], path


@dataclass(slots=True)
class Plan:
    """The routes still to claim for a set of tickets.

    ``routes`` are free routes in the order they were planned; ``use[r]`` is the
    number of tickets whose path runs over ``r``; ``remaining[t]`` is each
    feasible ticket's remaining cost when planned alone (0 once completed).
    """

    routes: list[int] = field(default_factory=list)
    use: dict[int, int] = field(default_factory=dict)
    remaining: dict[int, float] = field(default_factory=dict)
    completed: list[int] = field(default_factory=list)
    infeasible: list[int] = field(default_factory=list)
    trains: int = 0
    ticket_routes: dict[int, list[int]] = field(default_factory=dict)

    @property
    def pending(self) -> list[int]:
        """Tickets neither completed nor infeasible."""
        return [t for t in self.remaining if t not in self.completed]


def plan_tickets(
    tables: BoardTables,
    status: Sequence[int],
    weights: Sequence[float],
    tickets: Sequence[int],
    trains_left: int | None = None,
    start: Plan | None = None,
) -> Plan:
    """Plan ``tickets`` in the given order, each along its cheapest path given the earlier ones.

    A ticket whose path would exceed ``trains_left`` (trains not yet planned) is
    infeasible, as is one with no path at all. ``start``, a plan of earlier tickets
    made with the same tables, status, weights and ``trains_left``, is extended
    (not changed): the same plan as planning its tickets and then ``tickets``, for
    less work when many ticket choices share the tickets already held.
    """
    cost = costs_for(status, weights)
    budget = INF if trains_left is None else float(trains_left)
    if start is None:
        plan = Plan()
    else:
        plan = _copy_plan(start)
        budget -= start.trains
        twin = tables.twin
        for r in start.routes:
            cost[r] = 0.0
            if twin[r] >= 0:
                cost[twin[r]] = INF
    _plan_onto(tables, status, cost, plan, tickets, budget)
    return plan


def plan_for_costs(
    tables: BoardTables,
    status: Sequence[int],
    cost: Sequence[float],
    tickets: Sequence[int],
    trains_left: int | None = None,
    hints: dict[int, list[int]] | None = None,
    zero: int = -1,
) -> Plan:
    """``plan_tickets(tables, status, weights, tickets, trains_left)`` given the edge costs
    ``cost = costs_for(status, weights)`` (for callers that build them in one pass: :func:`hand_costs`).

    ``hints``, tickets' paths from earlier plans (of any costs on the same board), make the
    searches cheaper, not different; the paths found are written back into it. ``zero``, the
    routes at cost 0 in ``cost`` as bits (:meth:`HandCosts.zero_routes`), if the caller knows them.
    """
    plan = Plan([], {}, {}, [], [], 0, {})  # no default factories to call
    budget = INF if trains_left is None else float(trains_left)
    _plan_onto(tables, status, list(cost), plan, tickets, budget, hints, zero)
    return plan


def _copy_plan(plan: Plan) -> Plan:
    return Plan(
        routes=list(plan.routes),
        use=dict(plan.use),
        remaining=dict(plan.remaining),
        completed=list(plan.completed),
        infeasible=list(plan.infeasible),
        trains=plan.trains,
        ticket_routes=dict(plan.ticket_routes),
    )


def plan_choices(
    tables: BoardTables,
    status: Sequence[int],
    weights: Sequence[float],
    held: Sequence[int],
    choices: Sequence[Sequence[int]],
    trains_left: int | None = None,
    hints: dict[int, list[int]] | None = None,
) -> list[Plan]:
    """For each ticket order in ``choices``, the plan of ``held`` and then its tickets.

    Each plan is ``plan_tickets(tables, status, weights, choice, trains_left, start=plan_tickets(
    tables, status, weights, held, trains_left))``; choices that start with the same tickets
    share the planning of those (ticket offers are planned as every subset of the offer).
    ``hints`` as for :func:`plan_for_costs` (the paths found are written back into it).
    """
    cost = costs_for(status, weights)
    root = Plan()
    # Each ticket's path, once found, bounds its later searches (after other prefixes).
    if hints is None:
        hints = {}
    budget = _plan_onto(tables, status, cost, root, held, INF if trains_left is None else float(trains_left), hints)
    # A planned prefix of choice tickets -> its plan, its edge costs and the trains left.
    planned: dict[tuple[int, ...], tuple[Plan, list[float], float]] = {(): (root, cost, budget)}
    out: list[Plan] = []
    for choice in choices:
        order = tuple(choice)
        size = len(order)
        while order[:size] not in planned:
            size -= 1
        plan, cost, budget = planned[order[:size]]
        for end in range(size + 1, len(order) + 1):
            plan, cost = _copy_plan(plan), list(cost)
            budget = _plan_onto(tables, status, cost, plan, order[end - 1 : end], budget, hints)
            planned[order[:end]] = (plan, cost, budget)
        out.append(plan)
    return out


# The paths of searches bounded at cost 0, by board, then by (start, end, the routes at cost 0 as
# bits): such a search follows the routes at cost 0 only (see _plan_onto). Shared by all games
# on a board; lookups and inserts are single dict operations (safe across threads).
_ZERO_PATHS: dict[int, dict[tuple[int, int, int], list[int]]] = {}
_ZERO_PATHS_SIZE: Final = 20_000
_ZERO_LIMIT: Final = nextafter(0.0, INF)


def _plan_onto(
    tables: BoardTables,
    status: Sequence[int],
    cost: list[float],
    plan: Plan,
    tickets: Sequence[int],
    budget: float,
    hints: dict[int, list[int]] | None = None,
    zero: int = -1,
) -> float:
    """Add ``tickets`` to ``plan`` in order (the work of :func:`plan_tickets`); returns the budget left.

    ``cost`` is updated as routes get planned (0 for them, INF for their twins). ``hints`` maps
    tickets to a path (all its routes, in order from the ticket's first city) known from an
    earlier search: its cost bounds the search (the same result, fewer cities queued; a hint that
    does not lead to the ticket's end only costs an unbounded search); each ticket's path found
    here is written back into it. ``zero``: the routes at cost 0 in ``cost``
    as bits, -1 to work them out if needed.
    """
    # One loop, no comprehensions or helper calls: this runs for every ticket of every decision.
    ticket_a, ticket_b, ends, length, twin = (
        tables.ticket_a,
        tables.ticket_b,
        tables.route_ends,
        tables.length,
        tables.twin,
    )
    adjacency = tables.adjacency
    use, routes, remaining = plan.use, plan.routes, plan.remaining
    zero_paths = _ZERO_PATHS.get(id(tables))
    if zero_paths is None:
        zero_paths = _ZERO_PATHS[id(tables)] = {}
    for t in tickets:
        a, b = ticket_a[t], ticket_b[t]
        path: list[int] | None = None
        zero_key: tuple[int, int, int] | None = None
        if hints is None:
            dist, via = dijkstra(tables, cost, a, b)
            total = dist[b]
        else:
            hint = hints.get(t)
            limit = INF
            if hint is not None:
                # The hint's cost summed from its start, as the search sums it, and the next
                # float above: no shortest distance exceeds it.
                limit = 0.0
                for r in hint:
                    limit += cost[r]
                limit = nextafter(limit, INF)
            if limit == _ZERO_LIMIT:
                # A path at cost 0 (a completed ticket, most often): the search follows only
                # the routes at cost 0 (any other costs more than the limit), so its path
                # depends on those alone; it is looked up by them.
                if zero < 0:
                    zero = sum(compress(tables.route_bits, map(eq, cost, repeat(0.0))))
                zero_key = (a, b, zero)
                path = zero_paths.get(zero_key)
            if path is None:
                dist, via = _dijkstra_within(adjacency, cost, a, b, limit)
                total = dist[b]
                if total == limit != INF:
                    # Not reached within the bound (a hint that is no path from a to b): unbounded.
                    zero_key = None
                    dist, via = _dijkstra_within(adjacency, cost, a, b, INF)
                    total = dist[b]
            else:
                total = 0.0
        if total == INF:
            plan.infeasible.append(t)
            continue
        if path is None:
            # The path, traced back from b (one end of a route XOR route_ends gives the other).
            path = []
            city = b
            while city != a:
                rid = via[city]
                path.append(rid)
                city ^= ends[rid]
            path.reverse()
            if zero_key is not None:
                if len(zero_paths) >= _ZERO_PATHS_SIZE:
                    zero_paths.clear()
                zero_paths[zero_key] = path
        if hints is not None:
            hints[t] = path
        needed: list[int] = []
        new: list[int] = []  # own routes cost 0: the new routes are among the needed ones
        trains = 0
        for r in path:
            if status[r] != OWN:
                needed.append(r)
                if cost[r] > 0.0:
                    new.append(r)
                    trains += length[r]
        if trains > budget:
            plan.infeasible.append(t)
            continue
        remaining[t] = total
        if not needed:
            plan.completed.append(t)  # then no route is new either
        plan.ticket_routes[t] = needed
        for r in needed:
            use[r] = use.get(r, 0) + 1
        for r in new:
            routes.append(r)
            cost[r] = 0.0
            if twin[r] >= 0:
                if zero >= 0 and cost[twin[r]] == 0.0:
                    zero &= ~(1 << twin[r])
                cost[twin[r]] = INF
            if zero >= 0:
                zero |= 1 << r
        plan.trains += trains
        budget -= trains
    return budget


# ---------------------------------------------------------------- cards


def card_deficits(
    tables: BoardTables, routes: Sequence[int], hand: Sequence[int], tunnel_margin: int = 1
) -> tuple[list[list[int]], list[int]]:
    """For each route in priority order, the cards still missing to claim it.

    The hand is allocated route by route (earlier routes first). A gray route
    takes the color with the most cards left. Returns the per-route deficits
    (nine counts each) and the color assumed for each route.
    """
    rem = list(hand)
    out: list[list[int]] = []
    colors_used: list[int] = []
    lengths, route_colors, kinds = tables.length, tables.color, tables.kind
    for r in routes:
        need = [0] * NUM_KINDS
        n = lengths[r]
        color = route_colors[r]
        if color == GRAY:
            color = _most_held_color(rem)
        kind = kinds[r]
        if kind == _REGULAR:
            use = min(rem[color], n)
            rem[color] -= use
            need[color] = n - use
        elif kind == _FERRY:
            locos = tables.ferry_locos[r]
            use = min(rem[color], n - locos)
            rem[color] -= use
            loco_use = min(rem[LOCOMOTIVE], locos)
            rem[LOCOMOTIVE] -= loco_use
            need[color] = n - locos - use
            need[LOCOMOTIVE] = locos - loco_use
        elif kind == _TUNNEL:
            want = n + tunnel_margin
            use = min(rem[color], want)
            rem[color] -= use
            need[color] = want - use
        else:  # Murmansk–Lieksa: singles of one color, or any 4 cards per space
            use = min(rem[color], n)
            rem[color] -= use
            others = sum(rem)
            groups = min(n - use, others // tables.group[r])
            need[color] = n - use - groups
        out.append(need)
        colors_used.append(color)
    return out, colors_used


def card_wants(
    tables: BoardTables, routes: Sequence[int], hand: Sequence[int], decay: float = 0.25, tunnel_margin: int = 1
) -> list[float]:
    """How much each card kind is wanted for ``routes`` (in priority order), 0 when not at all.

    A kind missing for the first route is worth 1; for the i-th route 1 / (1 + decay * i).
    Locomotives are also worth something when a ferry or tunnel misses color cards.
    """
    # The deficits of card_deficits, worked out route by route here: a route misses at most
    # its color and (a ferry) locomotives, so only those two kinds are looked at, color first
    # (min and max written out: builtin calls cost more here; the same numbers).
    rem = list(hand)
    wants = [0.0] * NUM_KINDS
    lengths, route_colors, kinds, ferry_locos = tables.length, tables.color, tables.kind, tables.ferry_locos
    for i, r in enumerate(routes):
        n = lengths[r]
        color = route_colors[r]
        if color == GRAY:
            color = _most_held_color(rem)
        kind = kinds[r]
        missing_locos = 0
        if kind == _REGULAR:
            use = held if (held := rem[color]) < n else n
            rem[color] -= use
            missing = n - use
        elif kind == _FERRY:
            locos = ferry_locos[r]
            use = held if (held := rem[color]) < n - locos else n - locos
            rem[color] -= use
            loco_use = held if (held := rem[LOCOMOTIVE]) < locos else locos
            rem[LOCOMOTIVE] -= loco_use
            missing = n - locos - use
            missing_locos = locos - loco_use
        elif kind == _TUNNEL:
            want = n + tunnel_margin
            use = held if (held := rem[color]) < want else want
            rem[color] -= use
            missing = want - use
        else:  # Murmansk–Lieksa: singles of one color, or any 4 cards per space
            use = held if (held := rem[color]) < n else n
            rem[color] -= use
            groups = n - use if n - use < (spare := sum(rem) // tables.group[r]) else spare
            missing = n - use - groups
        if not missing and not missing_locos:
            continue
        weight = 1.0 / (1.0 + decay * i)
        if missing:
            wants[color] = (w if (w := wants[color]) >= weight * 1.0 else weight * 1.0) + 0.02 * missing
            if kind in (_FERRY, _TUNNEL):
                if wants[LOCOMOTIVE] < 0.6 * weight:
                    wants[LOCOMOTIVE] = 0.6 * weight
        if missing_locos:
            wants[LOCOMOTIVE] = (
                w if (w := wants[LOCOMOTIVE]) >= weight * 1.15 else weight * 1.15
            ) + 0.02 * missing_locos
    return wants


def _most_held_color(counts: Sequence[int]) -> int:
    """The color with most cards in ``counts``, the first (lowest) of several with as many."""
    top = max(counts[:LOCOMOTIVE])
    # The colors are the kinds 0-7, before the locomotives: the first index is the lowest color.
    return counts.index(top)


def unseen_counts(view: PlayerView) -> list[int]:
    """Cards the player has not seen (draw pile plus unknown parts of other hands)."""
    # Whole counts subtracted kind by kind (map in C: the same integers as a loop).
    unseen = [*map(sub, FULL_DECK_COUNTS, view.hand)]
    unseen = [*map(sub, unseen, view.discard)]
    known, me = view.known_cards, view.player
    for q in range(view.num_players):
        if q != me:
            unseen = [*map(sub, unseen, known[q])]
    for card in view.display:
        if card >= 0:
            unseen[card] -= 1
    if view.tunnel is not None:
        for k in range(NUM_KINDS):
            unseen[k] -= view.tunnel.base[k]
        for card in view.tunnel.revealed:
            unseen[card] -= 1
    return [c if c > 0 else 0 for c in unseen]


def reserved_kinds(tables: BoardTables, routes: Sequence[int], hand: Sequence[int]) -> list[int]:
    """How many cards of each kind in ``hand`` are earmarked for ``routes``."""
    rem = list(hand)
    reserved = [0] * NUM_KINDS
    for r in routes:
        n = tables.length[r]
        color = tables.color[r]
        if color == GRAY:
            color = _most_held_color(rem)
        kind = tables.kind[r]
        locos = tables.ferry_locos[r] if kind == _FERRY else 0
        use = min(rem[color], n - locos)
        rem[color] -= use
        reserved[color] += use
        if kind in (_FERRY, _TUNNEL):
            loco_use = min(rem[LOCOMOTIVE], locos if kind == _FERRY else max(0, n - use))
            rem[LOCOMOTIVE] -= loco_use
            reserved[LOCOMOTIVE] += loco_use
    return reserved


def payment_cost(payment: Sequence[int], reserved: Sequence[int], loco_weight: float = 2.5) -> float:
    """The future value a payment gives up: 1 per card, more for reserved colors and locomotives.

    Counts are whole numbers: each color adds its count and 1.5 times the reserved part of it.
    """
    # Sums of whole and half numbers are exact in any order, so the colors are summed in C.
    colors = payment[:LOCOMOTIVE]
    total = float(sum(colors)) + 1.5 * sum(map(min, colors, reserved))
    locos = payment[LOCOMOTIVE]
    if locos:
        total += locos * (loco_weight + (1.0 if reserved[LOCOMOTIVE] else 0.0))
    return total

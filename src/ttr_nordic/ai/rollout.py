"""A fast ticket-driven playing policy for rollouts inside search.

It works on a full :class:`~ttr_nordic.engine.GameState`, which inside search is
always a *determinized* sample of the searcher's view (never the real state).
Each player aims at the routes on shortest paths for its uncompleted tickets,
claims them when it can pay, draws the colors they need, and otherwise claims
long routes to score. Once its tickets are done it draws new ones while enough trains remain.

>>> import random
>>> from ttr_nordic.engine import GameState
>>> from ttr_nordic.ai.rollout import RolloutPolicy
>>> game = GameState.new(players=2, seed=4)
>>> RolloutPolicy(random.Random(0)).play_out(game)
>>> game.is_over
True
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence

from ..engine import (
    Action,
    Board,
    Claim,
    GameState,
    KeepTickets,
    PayTunnelExtra,
    Phase,
    load_board,
)
from ..engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, FACE_UP_DRAWS
from ..engine.board import GRAY, Route, RouteKind
from ..engine.cards import LOCOMOTIVE

INF = 10**9
COLOR_RANGE = tuple(range(8))
#: A player takes new tickets only while it has this many trains, and everyone else
#: ``TICKET_OTHERS_MIN_TRAINS``: later tickets are seldom completed.
TICKET_MIN_TRAINS = 15
TICKET_OTHERS_MIN_TRAINS = 12
#: The two numbers above are for 40 trains each: a variant's are in proportion to its trains.
OFFICIAL_TRAINS = 40


class BoardTables:
    """Per-board lookups built once: adjacency, route ends, lengths, twins."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.num_cities = len(board.cities)
        self.route_ends = [(r.a, r.b) for r in board.routes]
        self.lengths = [r.length for r in board.routes]
        self.colors = [r.color for r in board.routes]
        self.points = [r.points for r in board.routes]
        self.twins = [-1 if r.twin is None else r.twin for r in board.routes]
        self.needs_locos = [
            (r.kind is RouteKind.FERRY and r.ferry_locomotives > 0) or r.kind is RouteKind.TUNNEL for r in board.routes
        ]
        self.adjacency: list[list[tuple[int, int]]] = [[] for _ in board.cities]
        for r in board.routes:
            self.adjacency[r.a].append((r.id, r.b))
            self.adjacency[r.b].append((r.id, r.a))
        self.loco_spaces = [r.ferry_locomotives for r in board.routes]
        self.ticket_ends = [(t.a, t.b) for t in board.tickets]
        self.ticket_points = [t.points for t in board.tickets]


# By the board's identity (hashing a whole board per decision would cost more than the
# lookups it saves); a variant's board is one object per distinct board (the engine interns them).
_TABLES: dict[int, BoardTables] = {}


def board_tables(board: Board | None = None) -> BoardTables:
    """The :class:`BoardTables` of ``board`` (default the official board), built once."""
    board = board or load_board()
    tables = _TABLES.get(id(board))
    if tables is None or tables.board is not board:
        if len(_TABLES) >= 16:
            _TABLES.clear()
        tables = _TABLES[id(board)] = BoardTables(board)
    return tables


def route_cost(tables: BoardTables, owner: Sequence[int], player: int, two_players: bool, rid: int) -> int:
    """0 for own routes, the length for claimable ones, INF for blocked ones."""
    who = owner[rid]
    if who == player:
        return 0
    if who != -1:
        return INF
    twin = tables.twins[rid]
    if twin >= 0 and owner[twin] != -1 and (two_players or owner[twin] == player):
        return INF
    return tables.lengths[rid]


def shortest_path(
    tables: BoardTables,
    owner: Sequence[int],
    player: int,
    two_players: bool,
    start: int,
    goal: int,
    planned: set[int] | frozenset[int] = frozenset(),
    extra: Sequence[float] | None = None,
) -> tuple[float, list[int]]:
    """The cheapest path from ``start`` to ``goal``: cost (trains still to place, plus
    ``extra[route]`` if given) and route ids. Routes in ``planned`` cost nothing."""
    dist: list[float] = [INF] * tables.num_cities
    via = [-1] * tables.num_cities
    dist[start] = 0
    heap: list[tuple[float, int]] = [(0, start)]
    adjacency = tables.adjacency
    while heap:
        d, city = heapq.heappop(heap)
        if city == goal:
            break
        if d > dist[city]:
            continue
        for rid, other in adjacency[city]:
            if rid in planned:
                cost: float = 0
            else:
                cost = route_cost(tables, owner, player, two_players, rid)
                if cost >= INF:
                    continue
                if extra is not None and cost:
                    cost += extra[rid]
            nd = d + cost
            if nd < dist[other]:
                dist[other] = nd
                via[other] = rid
                heapq.heappush(heap, (nd, other))
    if dist[goal] >= INF:
        return INF, []
    routes: list[int] = []
    city = goal
    while city != start:
        rid = via[city]
        routes.append(rid)
        a, b = tables.route_ends[rid]
        city = a if city == b else b
    return dist[goal], routes


def hand_penalty(tables: BoardTables, hand: Sequence[int]) -> list[float]:
    """Per route, half a point per card the hand still lacks to pay for it: plans then
    prefer routes the player is already collecting for."""
    locos = hand[LOCOMOTIVE]
    best_color = max(hand[:8])
    out = []
    for rid, length in enumerate(tables.lengths):
        color = tables.colors[rid]
        usable = best_color if color == GRAY else hand[color]
        lacking = tables.loco_spaces[rid] - locos if tables.loco_spaces[rid] > locos else 0
        if tables.needs_locos[rid]:
            usable += locos
        out.append(0.5 * (max(0, length - usable) + lacking))
    return out


def ticket_targets(
    tables: BoardTables,
    owner: Sequence[int],
    player: int,
    two_players: bool,
    tickets: Sequence[int],
    trains_left: int = INF,
    hand: Sequence[int] | None = None,
) -> tuple[set[int], int]:
    """A joint plan for the player's uncompleted, reachable tickets: the free routes to
    claim and the trains they need. Tickets are planned most valuable first, each reusing
    the routes already planned for free; a ticket whose path would take the plan past
    ``trains_left`` is left out (it is lost anyway)."""
    targets: set[int] = set()
    trains = 0
    extra = None if hand is None else hand_penalty(tables, hand)
    lengths = tables.lengths
    for ticket in sorted(tickets, key=lambda t: -tables.ticket_points[t]):
        a, b = tables.ticket_ends[ticket]
        cost, routes = shortest_path(tables, owner, player, two_players, a, b, targets, extra)
        if 0 < cost < INF:
            new = [r for r in routes if owner[r] == -1 and r not in targets]
            needed = sum(lengths[r] for r in new)
            if trains + needed <= trains_left:
                targets.update(new)
                trains += needed
    return targets, trains


def payment_waste(payment: Sequence[int]) -> int:
    """How much a payment costs beyond the bare minimum: locomotives count triple."""
    return sum(payment) + 2 * payment[LOCOMOTIVE]


def _fill(hand: Sequence[int], taken: list[int], need: int, color: int) -> bool:
    """Add ``need`` more cards to ``taken`` for groups: other colors (fewest held first),
    then ``color``, then locomotives. False if the hand is too small."""
    rest = [hand[k] - taken[k] for k in range(9)]
    order = sorted((k for k in range(8) if k != color and rest[k]), key=lambda k: rest[k])
    for card in (*order, color, LOCOMOTIVE):
        if need == 0:
            break
        if card < 0:
            continue
        take = min(rest[card], need)
        taken[card] += take
        need -= take
    return need == 0


def cheapest_payment(route: Route, hand: Sequence[int]) -> tuple[int, ...] | None:
    """A payment for ``route`` from ``hand`` using the fewest cards, then the fewest
    locomotives; None if the hand cannot pay. (A choice among valid payments: the
    engine still checks every claim.)"""
    n = route.length
    kind = route.kind
    colors = COLOR_RANGE if route.color == GRAY else (route.color,)
    locos = hand[LOCOMOTIVE]
    best: list[int] | None = None
    best_key = (INF, INF)
    for color in colors:
        have = hand[color]
        payment: list[int] | None = None
        if kind is RouteKind.REGULAR:
            if have >= n:
                payment = [0] * 9
                payment[color] = n
        elif kind is RouteKind.TUNNEL:
            if have + locos >= n:
                payment = [0] * 9
                payment[color] = min(have, n)
                payment[LOCOMOTIVE] = n - payment[color]
        elif kind is RouteKind.FERRY:
            loco_spaces = route.ferry_locomotives
            for groups in range(n + 1):
                singles = n - groups
                color_cards = min(have, n - loco_spaces, singles)
                loco_cards = singles - color_cards
                if loco_cards > locos:
                    continue
                taken = [0] * 9
                taken[color] = color_cards
                taken[LOCOMOTIVE] = loco_cards
                if _fill(hand, taken, route.group * groups, color):
                    payment = taken
                break
        else:
            groups = max(0, n - have)
            taken = [0] * 9
            taken[color] = n - groups
            if _fill(hand, taken, route.group * groups, color):
                payment = taken
        if payment is not None:
            key = (sum(payment), payment[LOCOMOTIVE])
            if key < best_key:
                best, best_key = payment, key
    return None if best is None else tuple(best)


class RolloutPolicy:
    """Plays a determinized game to its end quickly with the ticket-driven heuristic."""

    def __init__(self, rng: random.Random, board: Board | None = None) -> None:
        self.rng = rng
        self.tables = board_tables(board)
        self._targets: dict[int, set[int]] = {}

    def _board_of(self, state: GameState) -> None:
        # A policy made without the board learns it from the first state it plays (a variant's
        # board is another object): one identity test per decision.
        if self.tables.board is not state.board:
            self.tables = board_tables(state.board)
            self._targets.clear()

    def targets(self, state: GameState, player: int) -> set[int]:
        cached = self._targets.get(player)
        owner = state.route_owner
        if cached is not None and all(owner[r] == -1 for r in cached):
            return cached
        targets, _ = ticket_targets(
            self.tables,
            owner,
            player,
            state.num_players == 2,
            state.tickets[player],
            state.trains[player],
            state.hands[player],
        )
        self._targets[player] = targets
        return targets

    def play_out(self, state: GameState, max_actions: int = 2000) -> None:
        """Apply policy actions until the game ends."""
        self._targets.clear()
        for _ in range(max_actions):
            if state.is_over:
                return
            state.apply_unchecked(self.choose(state))
        raise RuntimeError("rollout did not finish")

    def choose(self, state: GameState) -> Action:
        if self.tables.board is not state.board:
            self._board_of(state)
        phase = state.phase
        if phase is Phase.CHOOSE_ACTION:
            return self._choose_action(state)
        if phase is Phase.SECOND_CARD:
            return self._draw(state, state.current)
        if phase is Phase.TUNNEL_EXTRA:
            legal = state.legal_action_list()
            pays = [a for a in legal if isinstance(a, PayTunnelExtra)]
            if pays:
                return min(pays, key=lambda a: a.cards[LOCOMOTIVE])
            return DECLINE_TUNNEL
        legal = state.legal_action_list()
        if phase is Phase.KEEP_TICKETS or phase is Phase.INITIAL_TICKETS:
            return self._keep(state, legal)
        return legal[0]

    def _keep(self, state: GameState, legal: Sequence[Action]) -> Action:
        """Keep the allowed set that scores best: ticket points minus half a point per
        train the joint plan needs, and no set whose plan needs more than about two
        thirds of the trains left."""
        player = state.current
        owner = state.route_owner
        two = state.num_players == 2
        tables = self.tables
        held = state.tickets[player]
        _, base_trains = ticket_targets(tables, owner, player, two, held)
        budget = max(4, (state.trains[player] * 2) // 3)
        best: Action | None = None
        best_score = -1e9
        for action in legal:
            if not isinstance(action, KeepTickets):
                continue
            plan, trains = ticket_targets(tables, owner, player, two, [*held, *action.tickets])
            points = sum(tables.ticket_points[t] for t in action.tickets)
            unreachable = sum(
                tables.ticket_points[t]
                for t in action.tickets
                if shortest_path(tables, owner, player, two, *tables.ticket_ends[t], plan)[0] >= INF
            )
            score = points - 2 * unreachable - 0.5 * (trains - base_trains)
            if trains > budget:
                score -= 3 * (trains - budget) + 10
            if score > best_score:
                best_score, best = score, action
        return best if best is not None else legal[0]

    def claimable(self, state: GameState, player: int, rid: int) -> bool:
        """Whether ``player`` may claim route ``rid`` (ownership, doubles, trains), cards aside."""
        tables = self.tables
        return (
            route_cost(tables, state.route_owner, player, state.num_players == 2, rid) == tables.lengths[rid]
            and tables.lengths[rid] <= state.trains[player]
            and state.route_owner[rid] == -1
        )

    def best_claim(self, state: GameState, player: int, targets: set[int]) -> Claim | None:
        """The longest target route the player can pay for. Without targets, or when the
        game is about to end, the longest other route it can pay for within the trains not
        needed by the plan (length ≥ 3 unless the end is near)."""
        routes = self.tables.board.routes
        lengths = self.tables.lengths
        hand = state.hands[player]
        total = sum(hand)
        others_trains = min(t for q, t in enumerate(state.trains) if q != player)
        closing = state.final_turns_left >= 0 or others_trains <= 4 or state.trains[player] <= 4
        endgame = closing or state.trains[player] <= 8 or others_trains <= 8
        spare = state.trains[player] - sum(lengths[r] for r in targets)
        owner = state.route_owner
        best: Claim | None = None
        best_key: tuple[int, int, int] = (-1, 0, 0)
        for rid in targets:
            length = lengths[rid]
            if owner[rid] != -1 or length > total or not self.claimable(state, player, rid):
                continue
            payment = cheapest_payment(routes[rid], hand)
            if payment is not None:
                key = (2, length, -payment_waste(payment))
                if key > best_key:
                    best_key, best = key, Claim(rid, payment)  # type: ignore[arg-type]
        if best is not None or (targets and not endgame):
            return best
        limit = state.trains[player] if (closing or not targets) else spare
        for rid in range(len(routes)):
            length = lengths[rid]
            if owner[rid] != -1 or length > total or length > limit or rid in targets:
                continue
            if length < 3 and not closing:
                continue
            if not self.claimable(state, player, rid):
                continue
            payment = cheapest_payment(routes[rid], hand)
            if payment is not None:
                key = (1, length, -payment_waste(payment))
                if key > best_key:
                    best_key, best = key, Claim(rid, payment)  # type: ignore[arg-type]
        return best

    def _choose_action(self, state: GameState) -> Action:
        player = state.current
        targets = self.targets(state, player)
        if (
            not targets
            and state.ticket_deck
            and state.trains[player] * OFFICIAL_TRAINS >= TICKET_MIN_TRAINS * state.variant.trains_per_player
            and min(state.trains) * OFFICIAL_TRAINS >= TICKET_OTHERS_MIN_TRAINS * state.variant.trains_per_player
        ):
            return DRAW_TICKETS
        best = self.best_claim(state, player, targets)
        if best is not None:
            return best
        if state.deck or any(state.discard) or any(c >= 0 for c in state.display):
            return self._draw(state, player)
        # No cards left to draw: take whatever the rules allow.
        legal = state.legal_action_list()
        claims = [a for a in legal if isinstance(a, Claim)]
        if claims:
            return max(claims, key=lambda a: self.tables.lengths[a.route])
        return legal[0]

    def _draw(self, state: GameState, player: int) -> Action:
        display = state.display
        targets = self.targets(state, player)
        hand = state.hands[player]
        wanted = [0] * 9
        most = max(range(8), key=lambda c: hand[c])
        for rid in targets:
            color = self.tables.colors[rid]
            length = self.tables.lengths[rid]
            if self.tables.loco_spaces[rid] > hand[LOCOMOTIVE]:
                wanted[LOCOMOTIVE] += self.tables.loco_spaces[rid] - hand[LOCOMOTIVE]
            if color == GRAY:
                color = most
            if hand[color] < length:
                wanted[color] += length - hand[color]
        best_slot = -1
        best_want = 0
        for slot, card in enumerate(display):
            if card >= 0 and wanted[card] > best_want:
                best_slot, best_want = slot, wanted[card]
        if best_slot >= 0:
            return FACE_UP_DRAWS[best_slot]
        if state.deck or any(state.discard):
            return DRAW_BLIND
        for slot, card in enumerate(display):
            if card >= 0:
                return FACE_UP_DRAWS[slot]
        return state.legal_action_list()[0]


__all__ = ["RolloutPolicy", "board_tables", "shortest_path", "ticket_targets"]

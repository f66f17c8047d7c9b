"""What a playtest learns from one game: its record replayed through the engine, action by action.

Nothing here re-implements a rule: every fact is read from the engine's state and log while the
record replays (who was offered which ticket, what each claim paid, what a tunnel revealed, when
a pile ran out) or from the engine's final scoring. Two facts are judgements about routes, made
on the true state (a designer's view, not a player's):

* a claimed route **decides a ticket** when its owner completed a ticket at the end that would be
  incomplete without that route (the route is a bridge of the ticket's connection);
* a claim **blocks** when the claimer holds no incomplete ticket that needs the route while an
  opponent does. A player *needs* a route for an incomplete ticket when the route lies on a
  shortest completion of it: the fewest trains still to place, counting the player's own routes
  as free and routes another player owns (or a double route's closed lane) as unusable.

>>> from ttr_nordic.sim.schedule import schedule
>>> from ttr_nordic.sim.play import play_spec
>>> row = play_spec(schedule(["random", "random"], players=2, games=1, seed=3)[0])
>>> facts = game_facts(row.record, row.labels, row.agents, game=row.game)
>>> facts.scores == row.scores, facts.turns == row.turns
(True, True)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import (
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameRecord,
    GameState,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    RouteKind,
    parse_action,
)
from ..engine.cards import LOCOMOTIVE
from ..engine.scoring import connected_components

#: States the rules leave to a convention, by key: what the report calls them.
EDGE_CASES: dict[str, str] = {
    "pass": "a player could do nothing and passed",
    "ended_by_passes": "the game ended after a full round of passes (nobody could act)",
    "train_cards_exhausted": "draw pile and discard pile both empty",
    "display_slot_empty": "a face-up slot stayed empty",
    "ticket_deck_empty": "the ticket deck ran out",
    "short_ticket_draw": "a ticket draw offered fewer tickets than the rules draw",
    "short_tunnel_reveal": "a tunnel revealed fewer cards than the rules turn over",
    "no_globetrotter": "nobody completed a ticket, so nobody got the Globetrotter",
    "shared_win": "a tie the tie-breaks leave standing (shared win)",
    "tie_break": "the winner decided by a tie-break (tickets, then longest path)",
}


@dataclass(frozen=True, slots=True)
class ClaimFact:
    """One route placed on the board."""

    route: int
    seat: int
    turn: int  # the game's turn count when it was claimed (0 = the first turn)
    third: int  # 0, 1, 2: early, mid or late third of the game's turns
    cards: int  # cards paid, tunnel extras included
    locomotives: int  # locomotives among them
    decides: bool  # the owner's completed ticket would fail without it
    blocks: bool  # needed by an opponent's incomplete ticket, not by the claimer's
    needed_by_claimer: bool


@dataclass(frozen=True, slots=True)
class TicketFact:
    """One ticket kept by a seat, and what it was worth at the end."""

    ticket: int
    seat: int
    initial: bool  # kept from the opening deal
    completed: bool
    value: int  # +points completed, -points failed


@dataclass
class GameFacts:
    """Everything a playtest report counts about one game. Tuples hold one value per seat."""

    game: int
    seed: int
    players: int
    labels: tuple[str, ...]
    agents: tuple[str, ...]
    scores: tuple[int, ...]
    route_points: tuple[int, ...]
    ticket_gain: tuple[int, ...]
    ticket_loss: tuple[int, ...]  # positive: points lost on failed tickets
    globetrotter: tuple[int, ...]
    longest_path_bonus: tuple[int, ...]  # a variant's bonus (none in the official rules)
    win_shares: tuple[float, ...]
    decided_by: str
    turns: int
    actions: int
    offered: list[tuple[int, int]] = field(default_factory=list)  # (seat, ticket) every offer
    tickets: list[TicketFact] = field(default_factory=list)
    claims: list[ClaimFact] = field(default_factory=list)
    tunnel_attempts: int = 0
    tunnel_free: int = 0  # no extra card asked
    tunnel_paid: int = 0
    tunnel_declined: int = 0
    tunnel_extra_cards: int = 0
    ferry_claims: int = 0
    ferry_locomotives: int = 0  # locomotives paid on ferries
    ferry_substitutes: int = 0  # groups of cards (3 in Nordic) standing for a locomotive or a space
    locomotives_face_up: int = 0
    locomotives_blind: int = 0
    locomotives_spent: int = 0
    edges: dict[str, int] = field(default_factory=dict)  # EDGE_CASES key -> times seen
    record: str = ""


def _lane_usable(state: GameState, player: int, route: int) -> bool:
    """Whether ``player`` may still use this lane in a completion: its own, or claimable by it."""
    owner = state.route_owner[route]
    if owner == player:
        return True
    if owner >= 0:
        return False
    twin = state.board.routes[route].twin
    if twin is None:
        return True
    twin_owner = state.route_owner[twin]
    # Two players: a claimed lane closes its twin. Three: a player may not hold both lanes.
    return twin_owner < 0 or (state.num_players > 2 and twin_owner != player)


def _distances(state: GameState, player: int, start: int, costs: Sequence[float]) -> list[float]:
    board = state.board
    dist = [math.inf] * len(board.cities)
    dist[start] = 0.0
    heap = [(0.0, start)]
    adjacency = _adjacency(board)
    while heap:
        d, city = heapq.heappop(heap)
        if d > dist[city]:
            continue
        for rid, other in adjacency[city]:
            cost = costs[rid]
            if cost < math.inf and d + cost < dist[other]:
                dist[other] = d + cost
                heapq.heappush(heap, (d + cost, other))
    return dist


_ADJACENCY: dict[int, tuple[Board, list[list[tuple[int, int]]]]] = {}


def _adjacency(board: Board) -> list[list[tuple[int, int]]]:
    cached = _ADJACENCY.get(id(board))
    if cached is not None and cached[0] is board:
        return cached[1]
    table: list[list[tuple[int, int]]] = [[] for _ in board.cities]
    for r in board.routes:
        table[r.a].append((r.id, r.b))
        table[r.b].append((r.id, r.a))
    _ADJACENCY[id(board)] = (board, table)
    return table


def needs_route(state: GameState, player: int, route: int) -> bool:
    """Whether ``route`` (unclaimed) lies on a shortest completion of one of ``player``'s incomplete tickets.

    >>> game = GameState.new(players=2, seed=1)
    >>> needs_route(game, 0, 0)  # nobody holds a ticket before the opening choice
    False
    """
    board = state.board
    tickets = state.tickets[player]
    if not tickets:
        return False
    own = [r for r, owner in enumerate(state.route_owner) if owner == player]
    labels = connected_components(((board.routes[r].a, board.routes[r].b) for r in own), len(board.cities))
    open_tickets = [board.tickets[t] for t in tickets if labels[board.tickets[t].a] != labels[board.tickets[t].b]]
    if not open_tickets:
        return False
    costs = [
        (0.0 if state.route_owner[r.id] == player else float(r.length))
        if _lane_usable(state, player, r.id)
        else math.inf
        for r in board.routes
    ]
    lane = board.routes[route]
    length = costs[route]
    if length == math.inf:
        return False
    for ticket in open_tickets:
        from_a = _distances(state, player, ticket.a, costs)
        total = from_a[ticket.b]
        if total == math.inf:
            continue
        from_b = _distances(state, player, ticket.b, costs)
        if min(from_a[lane.a] + length + from_b[lane.b], from_a[lane.b] + length + from_b[lane.a]) == total:
            return True
    return False


def _deciding_routes(board: Board, owned: list[int], completed: list[int]) -> set[int]:
    """The routes of ``owned`` without which one of the ``completed`` tickets would fail."""
    deciding: set[int] = set()
    for route in owned:
        rest = [board.routes[r] for r in owned if r != route]
        labels = connected_components(((r.a, r.b) for r in rest), len(board.cities))
        if any(labels[board.tickets[t].a] != labels[board.tickets[t].b] for t in completed):
            deciding.add(route)
    return deciding


def game_facts(record_json: str, labels: Sequence[str], agents: Sequence[str], game: int = 0) -> GameFacts:
    """Replay ``record_json`` through the engine and collect the game's facts."""
    record = GameRecord.from_json(record_json)
    state = GameState.from_config(record.config)
    board = state.board
    variant = record.config.variant
    n = state.num_players
    edges: dict[str, int] = {}
    offered: list[tuple[int, int]] = [(seat, t) for seat in range(n) for t in state.offers[seat]]
    initial_kept: set[tuple[int, int]] = set()
    pending: list[tuple[int, int, int, int, int, bool, bool]] = []  # route, seat, turn, cards, locos, blocks, needed
    facts_counts = {
        "tunnel_attempts": 0,
        "tunnel_free": 0,
        "tunnel_paid": 0,
        "tunnel_declined": 0,
        "tunnel_extra_cards": 0,
        "ferry_claims": 0,
        "ferry_locomotives": 0,
        "ferry_substitutes": 0,
        "locomotives_face_up": 0,
        "locomotives_blind": 0,
        "locomotives_spent": 0,
    }
    tunnel_base: tuple[int, int, bool, bool] | None = None  # cards, locomotives, blocks, needed

    def seen(kind: str) -> None:
        edges[kind] = edges.get(kind, 0) + 1

    for text in record.actions:
        action = parse_action(text, board, variant.face_up_cards)
        player = state.current
        turn = state.turn
        initial = state.phase.name == "INITIAL_TICKETS"
        blocks = needed = False
        if isinstance(action, Claim):
            needed = needs_route(state, player, action.route)
            blocks = not needed and any(needs_route(state, o, action.route) for o in range(n) if o != player)
        state.apply(action)
        entry = state.log[-1]
        if isinstance(action, DrawFaceUp | DrawBlind) and entry.card == LOCOMOTIVE:
            facts_counts["locomotives_face_up" if isinstance(action, DrawFaceUp) else "locomotives_blind"] += 1
        elif isinstance(action, DrawTickets):
            offer = state.offers[player]
            offered.extend((player, t) for t in offer)
            if len(offer) < variant.tickets_drawn:
                seen("short_ticket_draw")
        elif isinstance(action, KeepTickets) and initial:
            initial_kept.update((player, t) for t in action.tickets)
        elif isinstance(action, Claim):
            route = board.routes[action.route]
            cards, locos = sum(action.payment), action.payment[LOCOMOTIVE]
            if route.kind is RouteKind.TUNNEL:
                facts_counts["tunnel_attempts"] += 1
                if len(entry.revealed) < variant.tunnel_reveal:
                    seen("short_tunnel_reveal")
                if entry.claimed:
                    facts_counts["tunnel_free"] += 1
                else:
                    tunnel_base = (cards, locos, blocks, needed)
            if route.kind is RouteKind.FERRY:
                facts_counts["ferry_claims"] += 1
                facts_counts["ferry_locomotives"] += locos
                facts_counts["ferry_substitutes"] += (cards - route.length) // max(1, variant.ferry_substitution - 1)
            if entry.claimed:
                facts_counts["locomotives_spent"] += locos
                pending.append((action.route, player, turn, cards, locos, blocks, needed))
        elif isinstance(action, PayTunnelExtra) and tunnel_base is not None:
            tunnel = state.log[-2].action
            assert isinstance(tunnel, Claim)
            base_cards, base_locos, base_blocks, base_needed = tunnel_base
            extra, extra_locos = sum(action.cards), action.cards[LOCOMOTIVE]
            facts_counts["tunnel_paid"] += 1
            facts_counts["tunnel_extra_cards"] += extra
            facts_counts["locomotives_spent"] += base_locos + extra_locos
            pending.append(
                (tunnel.route, player, turn, base_cards + extra, base_locos + extra_locos, base_blocks, base_needed)
            )
            tunnel_base = None
        elif isinstance(action, DeclineTunnel):
            facts_counts["tunnel_declined"] += 1
            tunnel_base = None
        elif isinstance(action, Pass):
            seen("pass")
        if not state.deck and not any(state.discard):
            seen("train_cards_exhausted")
        if -1 in state.display:
            seen("display_slot_empty")
        if not state.ticket_deck:
            seen("ticket_deck_empty")
    if not state.is_over:
        raise ValueError(f"game {game}: the record ends before the game does")
    if state.consecutive_passes >= n:
        seen("ended_by_passes")
    result = state.result()
    if all(p.tickets_completed == 0 for p in result.players):
        seen("no_globetrotter")
    if result.decided_by == "shared":
        seen("shared_win")
    elif result.decided_by in ("tickets", "longest path"):
        seen("tie_break")

    turns = state.turn
    deciding: set[int] = set()
    tickets: list[TicketFact] = []
    for p in result.players:
        owned = [r for r, owner in enumerate(state.route_owner) if owner == p.player]
        deciding |= _deciding_routes(board, owned, [t.ticket for t in p.tickets if t.completed])
        tickets.extend(
            TicketFact(t.ticket, p.player, (p.player, t.ticket) in initial_kept, t.completed, t.value)
            for t in p.tickets
        )
    claims = [
        ClaimFact(route, seat, turn, min(2, 3 * turn // max(1, turns)), cards, locos, route in deciding, blocks, needed)
        for route, seat, turn, cards, locos, blocks, needed in pending
    ]
    share = 1.0 / len(result.winners)
    return GameFacts(
        game=game,
        seed=record.config.seed,
        players=n,
        labels=tuple(labels),
        agents=tuple(agents),
        scores=result.totals,
        route_points=tuple(p.route_points for p in result.players),
        ticket_gain=tuple(sum(t.points for t in p.tickets if t.completed) for p in result.players),
        ticket_loss=tuple(sum(t.points for t in p.tickets if not t.completed) for p in result.players),
        globetrotter=tuple(p.globetrotter for p in result.players),
        longest_path_bonus=tuple(p.longest_path_bonus for p in result.players),
        win_shares=tuple(share if seat in result.winners else 0.0 for seat in range(n)),
        decided_by=result.decided_by,
        turns=turns,
        actions=len(record.actions),
        offered=offered,
        tickets=tickets,
        claims=claims,
        edges=edges,
        record=record_json,
        **facts_counts,
    )

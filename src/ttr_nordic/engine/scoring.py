"""Final scoring (spec §9): tickets, Globetrotter, longest path tie-break, winners.

A variant may change the Globetrotter bonus (0: none) and add a longest-path bonus (the
official rules have none): every player whose longest continuous path is the longest
(and not empty) gains it.

>>> from ttr_nordic.engine.scoring import longest_path
>>> longest_path([(0, 1, 3), (1, 2, 2), (1, 3, 4)])  # a star: the two longest arms
7
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from .board import Board
from .transitions import GameCore

GLOBETROTTER_BONUS: Final = 10  # the official bonus; a game scores its variant's


def connected_components(edges: Iterable[tuple[int, int]], num_cities: int) -> list[int]:
    """A component label per city (union–find over the given edges)."""
    parent = list(range(num_cities))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(c) for c in range(num_cities)]


def player_routes(state: GameCore, player: int) -> list[int]:
    """The ids of the routes ``player`` owns."""
    return [rid for rid, owner in enumerate(state.route_owner) if owner == player]


def ticket_completed(board: Board, route_ids: Iterable[int], ticket_id: int) -> bool:
    """Whether the routes connect the ticket's two cities (R9.2)."""
    routes = board.routes
    labels = connected_components(((routes[r].a, routes[r].b) for r in route_ids), len(board.cities))
    ticket = board.tickets[ticket_id]
    return labels[ticket.a] == labels[ticket.b]


def longest_path(edges: Sequence[tuple[int, int, int]]) -> int:
    """The longest trail (no route used twice, cities may repeat) in trains (R9.7).

    ``edges`` are ``(city_a, city_b, length)``.
    """
    if not edges:
        return 0
    adjacency: dict[int, list[tuple[int, int, int]]] = {}
    for index, (a, b, length) in enumerate(edges):
        adjacency.setdefault(a, []).append((index, b, length))
        adjacency.setdefault(b, []).append((index, a, length))
    used = [False] * len(edges)
    best = 0

    def walk(city: int, total: int) -> None:
        nonlocal best
        if total > best:
            best = total
        for index, other, length in adjacency[city]:
            if not used[index]:
                used[index] = True
                walk(other, total + length)
                used[index] = False

    for city in adjacency:
        walk(city, 0)
    return best


@dataclass(frozen=True, slots=True)
class TicketResult:
    ticket: int
    name: str
    points: int
    completed: bool

    @property
    def value(self) -> int:
        """The signed contribution: +points if completed, -points if not."""
        return self.points if self.completed else -self.points


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player's final breakdown."""

    player: int
    route_points: int
    tickets: tuple[TicketResult, ...]
    globetrotter: int
    longest_path: int
    total: int
    # A variant's bonus for the longest continuous path (left out of the repr, which pinned
    # games hash, as the official rules have none).
    longest_path_bonus: int = field(default=0, repr=False)

    @property
    def tickets_completed(self) -> int:
        return sum(1 for t in self.tickets if t.completed)

    @property
    def tickets_failed(self) -> int:
        return sum(1 for t in self.tickets if not t.completed)

    @property
    def ticket_points(self) -> int:
        return sum(t.value for t in self.tickets)


@dataclass(frozen=True, slots=True)
class GameResult:
    """Every player's breakdown and the winner(s) (several share a tie that survives R9.6)."""

    players: tuple[PlayerResult, ...]
    winners: tuple[int, ...]
    decided_by: str  # "score", "tickets", "longest path" or "shared"

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(p.total for p in self.players)


def score_game(state: GameCore) -> GameResult:
    """Score ``state`` as if it ended now (R9)."""
    board = state.board
    variant = state.variant
    results: list[tuple[int, tuple[TicketResult, ...], int]] = []
    for p in range(state.num_players):
        owned = player_routes(state, p)
        labels = connected_components(((board.routes[r].a, board.routes[r].b) for r in owned), len(board.cities))
        tickets = tuple(
            TicketResult(
                t,
                board.tickets[t].name,
                board.tickets[t].points,
                labels[board.tickets[t].a] == labels[board.tickets[t].b],
            )
            for t in state.tickets[p]
        )
        edges = [(board.routes[r].a, board.routes[r].b, board.routes[r].length) for r in owned]
        results.append((state.scores[p], tickets, longest_path(edges)))
    most = max(sum(1 for t in tickets if t.completed) for _, tickets, _ in results)
    longest = max(path for _, _, path in results)
    players = []
    for p, (route_points, tickets, path) in enumerate(results):
        completed = sum(1 for t in tickets if t.completed)
        bonus = variant.globetrotter_bonus if most > 0 and completed == most else 0
        path_bonus = variant.longest_path_bonus if longest > 0 and path == longest else 0
        total = route_points + sum(t.value for t in tickets) + bonus + path_bonus
        players.append(PlayerResult(p, route_points, tickets, bonus, path, total, path_bonus))
    winners, decided_by = _winners(players)
    return GameResult(tuple(players), winners, decided_by)


def _winners(players: Sequence[PlayerResult]) -> tuple[tuple[int, ...], str]:
    """R9.6: highest total, then most completed tickets, then longest path, else shared."""
    best = max(p.total for p in players)
    tied = [p for p in players if p.total == best]
    if len(tied) == 1:
        return (tied[0].player,), "score"
    most = max(p.tickets_completed for p in tied)
    tied = [p for p in tied if p.tickets_completed == most]
    if len(tied) == 1:
        return (tied[0].player,), "tickets"
    longest = max(p.longest_path for p in tied)
    tied = [p for p in tied if p.longest_path == longest]
    if len(tied) == 1:
        return (tied[0].player,), "longest path"
    return tuple(p.player for p in tied), "shared"

"""Guessing other players' tickets from what they built, for determinized search.

A player's claims are public; players who build toward their tickets claim routes
that lie on shortest paths between their tickets' cities. :class:`TicketInference`
replays the public log of a :class:`~ttr_nordic.engine.PlayerView`: for each claim
another player made, it finds the tickets that the claim lies on a shortest path of
(from that player's side, with the board as it was just before the claim). A
ticket that explains many of a player's claims is likely one of its tickets.

:meth:`TicketInference.sample` draws a ticket set for one opponent, favouring
tickets that explain claims not yet explained by the tickets already drawn, and
:func:`assign_tickets` puts such a set into a determinized sample, keeping every
ticket in exactly one place. Only public information (the log, the board, the
counts of tickets) is used: never a hidden ticket.

>>> import random
>>> from ttr_nordic.engine import GameState
>>> from ttr_nordic.ai.baselines import RouteFocusAgent
>>> game = GameState.new(players=2, seed=5)
>>> agents = [RouteFocusAgent(seed=1), RouteFocusAgent(seed=2)]
>>> while game.turn < 30:
...     p = game.decision.player
...     game.apply(agents[p].choose(game.view(p), game.legal_action_list()), p)
>>> view = game.view(0)
>>> guess = TicketInference().sample(view, 1, random.Random(0))
>>> len(guess) == view.ticket_counts[1]
True
>>> sample = view.determinize(random.Random(1))
>>> assign_tickets(sample, 1, guess)
>>> sorted(sample.tickets[1]) == sorted(guess)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import GameState, PlayerView
from .planning import INF, BoardTables, board_tables, dijkstra


def claim_history(view: PlayerView) -> list[tuple[int, int, tuple[int, ...]]]:
    """The claims that stand, in order: ``(player, route, owners just before the claim)``.

    Read from the public log (a tunnel that was declined and claimed later counts once, at
    its last attempt).
    """
    attempts: list[tuple[int, int]] = []
    for entry in view.log:
        notation = entry.notation
        if notation and notation.startswith("C R"):
            attempts.append((entry.player, int(notation[3:5]) - 1))
    owner_now = view.route_owner
    last: dict[int, int] = {}
    for index, (player, route) in enumerate(attempts):
        if owner_now[route] == player:
            last[route] = index
    out: list[tuple[int, int, tuple[int, ...]]] = []
    owners = [-1] * len(owner_now)
    for index, (player, route) in enumerate(attempts):
        if last.get(route) == index:
            out.append((player, route, tuple(owners)))
            owners[route] = player
    return out


def _costs(tables: BoardTables, owners: Sequence[int], player: int, two_players: bool) -> list[float]:
    """Trains still to place per route from ``player``'s side: 0 for its own, INF when closed."""
    cost: list[float] = []
    for rid, holder in enumerate(owners):
        if holder == player:
            cost.append(0.0)
        elif holder != -1:
            cost.append(INF)
        else:
            twin = tables.twin[rid]
            if twin >= 0 and owners[twin] != -1 and (two_players or owners[twin] == player):
                cost.append(INF)
            else:
                cost.append(float(tables.length[rid]))
    return cost


class TicketInference:
    """Which tickets explain each claim of another player; samples ticket sets from that.

    Results for past claims are cached (the past does not change), so calling it on every
    decision of a game costs a few Dijkstra runs per new claim.
    """

    def __init__(self, beta: float = 6.0, floor: float = 0.02) -> None:
        #: How sharply sampling favours tickets that explain more claims.
        self.beta = beta
        #: Weight of a ticket that explains nothing (so that every ticket stays possible).
        self.floor = floor
        self._explains: dict[tuple[int, int, tuple[int, ...]], frozenset[int]] = {}
        # the last position's explanations per player: a search samples many times per decision
        self._last: dict[int, tuple[tuple[object, ...], tuple[dict[int, list[int]], int]]] = {}

    def _explained_by(self, view: PlayerView, player: int, route: int, owners: tuple[int, ...]) -> frozenset[int]:
        """Tickets (not yet completed then) with ``route`` on one of their shortest paths."""
        key = (player, route, owners)
        cached = self._explains.get(key)
        if cached is not None:
            return cached
        tables = board_tables(view.board)
        cost = _costs(tables, owners, player, view.num_players == 2)
        x, y, length = tables.route_a[route], tables.route_b[route], tables.length[route]
        dist: dict[int, list[float]] = {}
        found: list[int] = []
        for ticket, (a, b) in enumerate(zip(tables.ticket_a, tables.ticket_b, strict=True)):
            da = dist.get(a)
            if da is None:
                da = dist[a] = dijkstra(tables, cost, a)[0]
            total = da[b]
            if total == 0.0 or total == INF:
                continue
            db = dist.get(b)
            if db is None:
                db = dist[b] = dijkstra(tables, cost, b)[0]
            if min(da[x] + length + db[y], da[y] + length + db[x]) <= total + 1e-9:
                found.append(ticket)
        result = frozenset(found)
        self._explains[key] = result
        return result

    def explanations(self, view: PlayerView, player: int) -> tuple[dict[int, list[int]], int]:
        """For each ticket ``player`` may hold, the indices of its claims that ticket explains;
        and the number of its claims."""
        key = (len(view.log), view.route_owner, view.tickets, view.returned_tickets, view.offered_tickets)
        last = self._last.get(player)
        if last is not None and last[0] == key:
            return last[1]
        tables = board_tables(view.board)
        known = set(view.tickets) | set(view.returned_tickets) | set(view.offered_tickets)
        out: dict[int, list[int]] = {t: [] for t in range(len(tables.ticket_a)) if t not in known}
        claims = [(route, owners) for who, route, owners in claim_history(view) if who == player]
        for index, (route, owners) in enumerate(claims):
            for ticket in self._explained_by(view, player, route, owners):
                if ticket in out:
                    out[ticket].append(index)
        self._last[player] = (key, (out, len(claims)))
        return out, len(claims)

    def sample(self, view: PlayerView, player: int, rng: random.Random) -> list[int]:
        """A plausible set of ``player``'s tickets (as many as it holds)."""
        explains, num_claims = self.explanations(view, player)
        candidates = list(explains)
        chosen: list[int] = []
        unexplained = set(range(num_claims))
        for _ in range(min(view.ticket_counts[player], len(candidates))):
            weights = [
                0.0 if t in chosen else (self.floor + sum(1 for i in explains[t] if i in unexplained)) ** self.beta
                for t in candidates
            ]
            ticket = rng.choices(candidates, weights)[0]
            chosen.append(ticket)
            unexplained.difference_update(explains[ticket])
        return chosen


def assign_tickets(state: GameState, player: int, tickets: Sequence[int]) -> None:
    """Give ``player`` the kept ``tickets`` in a determinized ``state`` (as many as it holds).

    Each ticket moved in swaps places with one moved out (from the ticket pile, an offer or
    another player's hand; a ticket that was out of the game sends the replaced one out).
    """
    old = list(state.tickets[player])
    new = list(dict.fromkeys(tickets))[: len(old)]
    for t in old:
        if len(new) >= len(old):
            break
        if t not in new:
            new.append(t)
    incoming = [t for t in new if t not in old]
    outgoing = [t for t in old if t not in new]
    places = [state.ticket_deck, *state.offers, *(state.tickets[q] for q in range(state.num_players) if q != player)]
    for ticket_in, ticket_out in zip(incoming, outgoing, strict=True):
        for place in places:
            if ticket_in in place:
                place[place.index(ticket_in)] = ticket_out
                break
    state.tickets[player] = new


__all__ = ["TicketInference", "assign_tickets", "claim_history"]

"""Which waiting AI decision runs next: fair shares of the AI workers.

One :class:`FairQueue` orders the decisions of one lane of workers (see :mod:`.ai_workers`:
the quick levels and the searching ones have lanes of their own, so an easy game never waits
behind an expert's search). A waiting decision is a :class:`Ticket` of an *owner* (the client
address that created the game, or that asked for a hint) and of a game. When a worker is free:

* owners take turns: the one with the fewest decisions running goes first, then the one served
  least recently, so a client with ten games thinking gets the same share as a client with one;
* no owner runs more than ``owner_cap`` decisions at once (half the lane's workers), so one
  client never holds every worker;
* within an owner, its games' moves go in the order asked (each game waits for at most one);
* a hint waits while any game's move can go instead (a hint never delays a game), unless
  ``hint_patience`` moves went ahead of it (so a hint is not starved by busy games).

>>> queue = FairQueue(slots=1)
>>> heavy = [queue.push(Ticket("10.0.0.1", f"g{i}")) for i in range(3)]
>>> light = queue.push(Ticket("10.0.0.2", "h"))
>>> queue.next() is heavy[0]
True
>>> queue.done(heavy[0]); queue.next() is light  # the other client's turn, before g1 and g2
True
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field


@dataclass(eq=False)
class Ticket:
    """One decision waiting for (or holding) a worker of a lane."""

    owner: str
    game_id: str
    hint: bool = False
    order: int = field(default=0, compare=False)
    passed_over: int = 0  # moves dispatched while this hint waited
    running: bool = False


class FairQueue:
    """The waiting decisions of one lane of ``slots`` workers (see the module's docstring)."""

    def __init__(self, slots: int, owner_cap: int | None = None, hint_patience: int = 4) -> None:
        if slots < 1:
            raise ValueError("a lane needs at least one worker")
        self.slots = slots
        self.owner_cap = owner_cap or max(1, slots // 2)
        self.hint_patience = hint_patience
        self.running: dict[str, int] = {}
        self.moves: dict[str, deque[Ticket]] = {}
        self.hints: deque[Ticket] = deque()
        self.served: dict[str, int] = {}  # the dispatch count when each owner was last served
        self._orders = itertools.count()
        self._dispatched = 0

    @property
    def busy(self) -> int:
        """Decisions running now."""
        return sum(self.running.values())

    def waiting(self) -> int:
        """Decisions waiting for a worker."""
        return sum(len(q) for q in self.moves.values()) + len(self.hints)

    def push(self, ticket: Ticket) -> Ticket:
        """Queue ``ticket``; returns it."""
        ticket.order = next(self._orders)
        if ticket.hint:
            self.hints.append(ticket)
        else:
            self.moves.setdefault(ticket.owner, deque()).append(ticket)
        return ticket

    def withdraw(self, ticket: Ticket) -> None:
        """Forget a waiting ``ticket`` (its caller gave up), or free the worker a running one held."""
        if ticket.running:
            self.done(ticket)
            return
        if ticket.hint:
            if ticket in self.hints:
                self.hints.remove(ticket)
            return
        queue = self.moves.get(ticket.owner)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self.moves[ticket.owner]

    def done(self, ticket: Ticket) -> None:
        """``ticket``'s decision ended: its worker is free."""
        if not ticket.running:
            return
        ticket.running = False
        left = self.running[ticket.owner] - 1
        if left:
            self.running[ticket.owner] = left
        else:
            del self.running[ticket.owner]

    def _under_cap(self, owner: str) -> bool:
        return self.running.get(owner, 0) < self.owner_cap

    def _turn(self, owner: str) -> tuple[int, int]:
        return self.running.get(owner, 0), self.served.get(owner, -1)

    def next(self) -> Ticket | None:
        """The ticket to run now (marked running), or None (no worker free, or nothing may go)."""
        if self.busy >= self.slots:
            return None
        hint = next((t for t in self.hints if self._under_cap(t.owner)), None)
        owners = [owner for owner in self.moves if self._under_cap(owner)]
        ticket: Ticket | None = None
        if hint is not None and (not owners or hint.passed_over >= self.hint_patience):
            self.hints.remove(hint)
            ticket = hint
        elif owners:
            owner = min(owners, key=self._turn)
            queue = self.moves[owner]
            ticket = queue.popleft()
            if not queue:
                del self.moves[owner]
            for waiting in self.hints:
                waiting.passed_over += 1
        if ticket is None:
            return None
        ticket.running = True
        self.running[ticket.owner] = self.running.get(ticket.owner, 0) + 1
        self.served[ticket.owner] = self._dispatched
        self._dispatched += 1
        if len(self.served) > 4 * len(self.running) + 1000:  # forget owners long gone
            for owner in [o for o in self.served if o not in self.running and o not in self.moves][:500]:
                del self.served[owner]
        return ticket

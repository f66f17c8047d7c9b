"""A Route Focus that blocks: a sparring partner for the expert in two-player games.

Route Focus never looks at its opponent. This agent plays Route Focus's move, except on a turn
where Route Focus would only draw cards: then, in a two-player game, it claims the route its
opponent most likely needs (planned in at least half of :data:`BLOCK_SAMPLES` ticket sets
inferred from the opponent's claims), if the route is at least :data:`MIN_BLOCK_LENGTH` long and
it can pay for it and has the trains to spare.

Blocking every needed route (about 8 blocks a game) lost to Route Focus (0.26 of 100 games); blocking
only routes of 4 or more (0.8 blocks a game) it plays as well as Route Focus: 0.49 of 300
two-player games, mean margin −0.3 (SD 34; seats alternated, game seeds 5000–5299, 2026-11-26).

>>> from ttr_nordic.ai import play_game
>>> game = play_game([BlockingRouteFocusAgent(seed=1), BlockingRouteFocusAgent(seed=2)], seed=3)
>>> game.is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

from ..engine import Action, Claim, DrawBlind, DrawFaceUp, PlayerView
from .baselines import RouteFocusAgent
from .expert import status_for, top_claims
from .inference import TicketInference
from .planning import board_tables, plan_tickets

#: Inferred ticket sets of the opponent looked at on each turn that could block.
BLOCK_SAMPLES = 8
#: Shorter routes are not blocked: they cost a turn and are easily gone around.
MIN_BLOCK_LENGTH = 4
#: A block is made only while the blocker keeps at least this many trains beyond the block.
SPARE_TRAINS = 10


class BlockingRouteFocusAgent(RouteFocusAgent):
    """Route Focus that, in two-player games, claims the opponent's most needed route instead
    of drawing cards (see the module's description)."""

    name = "route_focus_blocking"
    #: Its ticket inference reads the claims and ticket draws in the log.
    reads_log: ClassVar[bool] = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed=seed)
        # its own stream, so that Route Focus's choices draw the same numbers as without blocking
        self.block_rng = random.Random(seed)
        self.inference = TicketInference()
        self.blocks = 0

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        action = super().choose(view, legal)
        drawing = isinstance(action, DrawBlind | DrawFaceUp)
        if view.num_players != 2 or view.phase.name != "CHOOSE_ACTION" or not drawing:
            return action
        block = self.blocking_claim(view, legal)
        if block is None:
            return action
        self.blocks += 1
        return block

    def blocking_claim(self, view: PlayerView, legal: Sequence[Action]) -> Claim | None:
        """The cheapest legal claim on the route the opponent's inferred tickets need most, or
        None when no legal claim is on a route planned in at least half of the samples."""
        tables = board_tables(view.board)
        trains = view.trains[view.player]
        claims = [
            c
            for c in top_claims(view, legal)
            if tables.length[c.route] >= MIN_BLOCK_LENGTH and trains - tables.length[c.route] >= SPARE_TRAINS
        ]
        if not claims:
            return None
        opponent = 1 - view.player
        status = status_for(view, opponent)
        need: dict[int, int] = {}
        for _ in range(BLOCK_SAMPLES):
            tickets = self.inference.sample(view, opponent, self.block_rng)
            plan = plan_tickets(tables, status, tables.train_cost, tickets, trains_left=view.trains[opponent])
            for route in set(plan.routes):
                need[route] = need.get(route, 0) + 1
        needed = [c for c in claims if need.get(c.route, 0) * 2 >= BLOCK_SAMPLES]
        if not needed:
            return None
        return min(needed, key=lambda c: (-need[c.route], -tables.points[c.route], c.route))

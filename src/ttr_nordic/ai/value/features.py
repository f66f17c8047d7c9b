"""Features of a position from one player's view (nothing hidden is read).

Each feature is from ``view.player``'s side; "opponent" figures take the strongest
opponent (highest score, fewest trains) because the margin is measured against the best
other player. Ticket progress is the train-distance still to build, from the same planner
the baseline agents use (:func:`~ttr_nordic.ai.planning.plan_tickets`).

>>> from ttr_nordic.engine import GameState
>>> game = GameState.new(players=2, seed=3)
>>> values = features(game.view(0))
>>> len(values) == len(FEATURE_NAMES), values[FEATURE_NAMES.index("trains_left")]
(True, 40.0)
"""

from __future__ import annotations

from typing import Final

from ...engine import PlayerView
from ..planning import BLOCKED, board_tables, plan_tickets, route_status

#: The feature names, in the order :func:`features` returns them (the model file records them).
FEATURE_NAMES: Final[tuple[str, ...]] = (
    "stage",  # fraction of the trains placed by the player who placed most (0 at the start, 1 at the end)
    "score_lead",  # own route score minus the best opponent's
    "trains_left",
    "opp_trains_left",  # the fewest trains any opponent has left (the end-game clock)
    "hand_size",
    "opp_hand_size",  # the largest opponent hand
    "completed_points",  # own tickets already connected
    "pending_points",  # own tickets still feasible, not yet connected
    "infeasible_points",  # own tickets that can no longer be connected (counted against)
    "planned_trains",  # trains still needed for the pending tickets
    "train_slack",  # trains left minus planned trains
    "pending_per_card_short",  # pending points x how far the hand is from the planned trains (0 if covered)
    "completed_count",  # Globetrotter race: own completed tickets
    "opp_ticket_count",  # the most tickets an opponent holds (their threat, unseen)
    "blocked_share",  # share of routes closed to the player
    "final_round",  # 1 once the last round is under way
)


def features(view: PlayerView) -> list[float]:
    """The :data:`FEATURE_NAMES` values of ``view`` as floats."""
    me = view.player
    n = view.num_players
    others = [q for q in range(n) if q != me]
    tables = board_tables(view.board)
    status = route_status(view)
    trains = view.trains[me]
    plan = plan_tickets(tables, status, tables.train_cost, view.tickets, trains_left=trains)
    points = tables.ticket_points
    completed = sum(points[t] for t in plan.completed)
    pending = sum(points[t] for t in plan.pending)
    infeasible = sum(points[t] for t in plan.infeasible)
    opp_trains = min(view.trains[q] for q in others)
    # Progress is measured against the trains each player starts with (40 in the official rules).
    start = view.variant.trains_per_player
    placed = start - min(trains, opp_trains)
    hand = view.hand_sizes[me]
    short = max(0, plan.trains - hand)
    return [
        placed / start,
        float(view.scores[me] - max(view.scores[q] for q in others)),
        float(trains),
        float(opp_trains),
        float(hand),
        float(max(view.hand_sizes[q] for q in others)),
        float(completed),
        float(pending),
        float(infeasible),
        float(plan.trains),
        float(trains - plan.trains),
        pending * short / start,
        float(len(plan.completed)),
        float(max(view.ticket_counts[q] for q in others)),
        status.count(BLOCKED) / len(status),
        1.0 if view.final_round_trigger >= 0 else 0.0,
    ]

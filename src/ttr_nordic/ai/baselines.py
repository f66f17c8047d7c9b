"""The four baseline agents of de Mesentier Silva, Lee, Togelius and Nealen (FDG 2017).

"AI-based Playtesting of Contemporary Board Games" (FDG 2017) defines four
hand-written Ticket to Ride agents, each embodying a playing style, and uses
them to compare maps and rule variants. Their published descriptions, in short:

* **Destination Hungry** (DEH) plays for destination tickets: it takes tickets
  early and keeps taking them, choosing ones it can complete (that share
  cities and routes with what it already holds), plans the routes that connect
  them, collects the train cards those routes need and claims them.
* **Route Focus** (RF) keeps the tickets it needs and concentrates on routes:
  it computes the shortest paths for its tickets, ranks the routes on them
  (most needed and most valuable first), claims the best one it can pay for and
  otherwise draws the cards that route needs; with its tickets done it goes for
  more tickets or for the most valuable routes.
* **One Step Thinking** (OST) is greedy: it looks only at the moves available
  now and picks the one that helps most this turn (a route that brings a
  ticket closer or completes it, the card it needs most), keeping the tickets
  that look easiest.
* **Long Route** (LRA) goes for long, high-scoring routes: it prefers claiming
  the longest routes it can, routes its tickets over long links, and collects
  the colors those long routes need.

This module re-implements them from those descriptions (not from the authors'
code, which targets the USA/Europe rules), adapted to Nordic Countries:

* locomotives are wild only on ferries and tunnels (and inside the groups of
  four on Murmansk–Lieksa), so a face-up locomotive is taken only when a
  ferry needs one or a ferry/tunnel misses color cards;
* ferries need locomotives or 3-card groups, tunnels may ask for extra cards:
  the agents pay the extra when the tunnel is on their plan (or costs at most
  one card) and decline otherwise;
* tickets: at setup keep at least 2 of 5, later at least 1 of 3 (or of what is
  left), chosen by planning all held tickets together (:mod:`.planning`);
* a claim picks, among the payments the engine offers, the one that wastes
  least: few locomotives and few cards of colors other planned routes need;
* in the final round (every player's last turn) the agents only claim, picking
  the claim worth most now (route points plus twice the value of any ticket it
  completes), and they stop taking tickets when the end is near.

Every agent handles every decision (initial tickets, action, second card,
ticket choice, tunnel extra), reads only its :class:`PlayerView`, always
returns one of the legal actions (an internal error falls back to a safe legal
action and is counted in ``fallbacks``), and is deterministic given its seed
(its own ``random.Random`` breaks ties).

>>> from ttr_nordic.ai import RandomAgent, play_game
>>> game = play_game([DestinationHungryAgent(seed=1), RandomAgent(seed=2)], seed=5)
>>> game.is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter, mul
from types import MemberDescriptorType
from typing import ClassVar, Final, cast

from ..engine import (
    LOCOMOTIVE,
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnelExtra,
    Phase,
    PlayerView,
)
from ..engine.legal import LegalSequence
from .base import is_listed
from .planning import (
    FREE,
    INF,
    OWN,
    BoardTables,
    HandCosts,
    Plan,
    board_tables,
    card_wants,
    components,
    costs_for,
    dijkstra,
    hand_weights,
    payment_cost,
    plan_choices,
    plan_for_costs,
    reserved_kinds,
    route_status,
    unseen_counts,
)

__all__ = [
    "BaselineAgent",
    "DestinationHungryAgent",
    "LongRouteAgent",
    "OneStepThinkingAgent",
    "RouteFocusAgent",
]


@dataclass(slots=True)
class Context:
    """What one decision needs, computed once from the view."""

    view: PlayerView
    tables: BoardTables
    status: tuple[int, ...]
    plan: Plan
    #: The legal claims by route (routes in listing order).
    claims: Mapping[int, Sequence[Claim]] = field(default_factory=dict)
    #: The legal actions the claims were taken from, and the other actions among them, in order.
    legal: Sequence[Action] = ()
    others: list[Action] = field(default_factory=list)

    @property
    def me(self) -> int:
        return self.view.player

    @property
    def trains(self) -> int:
        return self.view.trains[self.view.player]

    @property
    def opponent_trains(self) -> int:
        me = self.view.player
        return min(t for q, t in enumerate(self.view.trains) if q != me)

    def claim_candidates(self) -> Sequence[int]:
        """The routes of :attr:`claims` in order, and possibly other routes with no claim among
        them (from a LegalSequence, ferries whose claims are not worked out yet): for loops that
        look a route's claims up and skip a route without any."""
        claims = self.claims
        if type(claims) is _ClaimsByRoute:
            return claims.candidate_routes()
        return list(claims)


class BaselineAgent:
    """Shared machinery of the baselines: decision dispatch, ticket choice, card draws,
    payments, tunnels, the end game and the safety net. Subclasses set the knobs and
    :meth:`act` (the main action) and :meth:`targets` (the routes to collect cards for)."""

    name: str = "baseline"
    #: Planning weights: "train_cost" (trains) or "long_cost" (favours long routes).
    weights_name: ClassVar[str] = "train_cost"
    #: Ticket choice: opportunity cost per train, trains kept in reserve, cost per extra ticket.
    alpha: ClassVar[float] = 2.0
    margin: ClassVar[int] = 4
    size_penalty: ClassVar[float] = 4.0
    #: Share of the train budget a ticket plan may fill before its tickets start to look risky.
    safe_share: ClassVar[float] = 0.45
    #: Decay of card wants along the target list (high = focus on the first target).
    want_decay: ClassVar[float] = 0.25
    #: Hand size from which routes off the plan are claimed with spare trains and cards.
    surplus_hand: ClassVar[int] = 99
    #: Planning cost per card the hand misses for a route (prefers twins and paths in held colors).
    hand_beta: ClassVar[float] = 0.1
    #: Re-raise internal errors instead of falling back (for tests).
    strict: bool = False
    #: The baselines never read the view's log (play_game then skips building it) and read
    #: the legal actions as a sequence or through LegalSequence's methods (play_game may pass
    #: one, whose ferry claims are worked out only for the routes looked at).
    reads_log: ClassVar[bool] = False
    accepts_legal_sequence: ClassVar[bool] = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.fallbacks = 0
        self._plan_key: tuple[object, ...] | None = None
        self._plan: Plan | None = None
        self._hand_costs: HandCosts | None = None
        self._plan_basis: tuple[object, ...] = ()
        self._ordered: tuple[tuple[BoardTables | None, tuple[int, ...]], list[int]] = ((None, ()), [])
        # Tickets' paths of the last plans (on the board of _paths_tables): they bound the next
        # plans' searches (see plan_for_costs).
        self._paths: dict[int, list[int]] = {}
        self._paths_tables: BoardTables | None = None

    # ------------------------------------------------------------ entry point

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        action: Action | None
        try:
            action = self._decide(view, legal)
        except Exception:
            if self.strict:
                raise
            action = None
        if action is not None and (is_listed(action, legal) or action in legal):
            return action
        if self.strict:
            raise AssertionError(f"{self.name} chose {action!r}, not a legal action")
        self.fallbacks += 1
        return self._fallback(view, legal)

    def _fallback(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """A safe legal action, also the last resort when nothing planned is possible:
        the highest-scoring claim (tunnels included), else a blind draw, else the first."""
        claims = [a for a in legal if isinstance(a, Claim)]
        if claims:
            try:
                points = board_tables(view.board).points
                return max(claims, key=lambda c: (points[c.route], -c.payment[LOCOMOTIVE], -sum(c.payment)))
            except Exception:
                return claims[0]
        for action in legal:
            if isinstance(action, DrawBlind):
                return action
        return legal[0]

    def _decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        phase = view.phase
        if phase is Phase.INITIAL_TICKETS or phase is Phase.KEEP_TICKETS:
            return self.keep_tickets(view, legal)
        ctx = self._context(view, legal)
        if phase is Phase.CHOOSE_ACTION:
            return self.act(ctx, legal)
        if phase is Phase.SECOND_CARD:
            return self.draw(ctx, legal, self.targets(ctx))
        if phase is Phase.TUNNEL_EXTRA:
            return self.tunnel_extra(ctx, legal)
        return None

    # ------------------------------------------------------------ context

    def _weights(self, tables: BoardTables) -> tuple[float, ...]:
        return tables.long_cost if self.weights_name == "long_cost" else tables.train_cost

    def _order(self, tables: BoardTables, tickets: Sequence[int]) -> list[int]:
        """Tickets in planning order: most valuable first."""
        if len(tickets) < 2:
            return list(tickets)
        # The held tickets change rarely: their order is kept (with the board's tables).
        key = (tables, tuple(tickets))
        if key == self._ordered[0]:
            return [*self._ordered[1]]
        order = sorted(tickets, key=lambda t: (-tables.ticket_points[t], t))
        self._ordered = (key, order)
        return [*order]

    def _plan_inputs(self, view: PlayerView, status: Sequence[int]) -> tuple[object, ...]:
        """What the plan depends on: it is re-planned only when this changes."""
        return (view.route_owner, view.tickets, view.hand, view.trains[view.player], view.player, id(view.board))

    def _plan_weights(self, tables: BoardTables, view: PlayerView) -> Sequence[float]:
        """Planning cost per route: the agent's weights, plus a little per card the hand misses."""
        return hand_weights(tables, self._weights(tables), view.hand, self.hand_beta)

    def _path_hints(self, tables: BoardTables) -> dict[int, list[int]]:
        """The tickets' paths of earlier plans on the board of ``tables`` (to bound searches)."""
        if self._paths_tables is not tables:
            self._paths, self._paths_tables = {}, tables
        return self._paths

    def _context(self, view: PlayerView, legal: Sequence[Action]) -> Context:
        tables = board_tables(view.board)
        status = route_status(view)
        key = self._plan_inputs(view, status)
        if key != self._plan_key or self._plan is None:
            if type(self)._plan_weights is BaselineAgent._plan_weights:
                # The same costs as costs_for(status, self._plan_weights(...)), updated from the
                # last decision's where only the hand changed (plan_for_costs copies them).
                costs = self._hand_costs
                if costs is None or costs.tables is not tables:
                    costs = self._hand_costs = HandCosts(tables, self._weights(tables), self.hand_beta)
                cost = costs(view.hand, status)
                # The same costs (a card that no free route needed more of), tickets and trains:
                # the same plan.
                basis: tuple[object, ...] = (costs, costs.version, view.tickets, view.trains[view.player])
                if basis != self._plan_basis or self._plan is None:
                    self._plan = plan_for_costs(
                        tables,
                        status,
                        cost,
                        self._order(tables, view.tickets),
                        view.trains[view.player],
                        self._path_hints(tables),
                        costs.zero_routes(),
                    )
                    self._plan_basis = basis
            else:
                self._plan = plan_for_costs(
                    tables,
                    status,
                    costs_for(status, self._plan_weights(tables, view)),
                    self._order(tables, view.tickets),
                    view.trains[view.player],
                    self._path_hints(tables),
                )
            if type(self)._plan_inputs is not BaselineAgent._plan_inputs:
                key = self._plan_inputs(view, status)  # may depend on the new plan
            self._plan_key = key
        if type(legal) is LegalSequence:
            return Context(view, tables, status, self._plan, _ClaimsByRoute(legal), legal, legal.others)
        claims, others = _split_legal(legal)
        return Context(view, tables, status, self._plan, claims, legal, others)

    def _non_claims(self, ctx: Context, legal: Sequence[Action]) -> Sequence[Action]:
        """The actions of ``legal`` that are not claims, in order."""
        if legal is ctx.legal:
            return ctx.others
        return [a for a in legal if type(a) is not Claim]

    # ------------------------------------------------------------ tickets

    def train_budget(self, view: PlayerView) -> int:
        """Roughly how many trains the player can still lay before the game ends."""
        me = view.player
        mine = view.trains[me]
        others = min(t for q, t in enumerate(view.trains) if q != me)
        return min(mine, others + sum(view.hand) // 2 + 2)

    def keep_values(self, view: PlayerView, options: Sequence[KeepTickets]) -> list[float]:
        """:meth:`keep_value` of each ticket choice in ``options``, planned with the held tickets."""
        tables = board_tables(view.board)
        status = route_status(view)
        weights = hand_weights(tables, self._weights(tables), view.hand, self.hand_beta)
        held = self._order(tables, view.tickets)
        budget = self.train_budget(view) - self.margin
        smallest = min(len(a.tickets) for a in options)
        orders = [self._order(tables, option.tickets) for option in options]
        plans = plan_choices(tables, status, weights, held, orders, max(0, budget), self._path_hints(tables))
        return [
            self.keep_value(tables, plan, held, option.tickets, len(option.tickets) - smallest, budget)
            for option, plan in zip(options, plans, strict=True)
        ]

    def keep_tickets(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        options = [a for a in legal if isinstance(a, KeepTickets)]
        if not options:
            return None
        best: KeepTickets | None = None
        best_key: tuple[float, float] = (-INF, 0.0)
        for option, value in zip(options, self.keep_values(view, options), strict=True):
            key = (value, self.rng.random())
            if key > best_key:
                best, best_key = option, key
        return best

    def keep_value(
        self,
        tables: BoardTables,
        plan: Plan,
        held: Sequence[int],
        kept: Sequence[int],
        extra: int,
        budget: int,
    ) -> float:
        """How good keeping ``kept`` is, given the plan of the ``held`` tickets plus them.

        Each pending ticket counts its points times a success factor that falls as
        the plan's trains approach ``budget``; planned routes add their points less
        ``alpha`` per train; each ticket beyond the minimum costs ``size_penalty``.
        """
        infeasible = set(plan.infeasible)
        completed = set(plan.completed)
        factor = self.success_factor(plan.trains, budget)
        value = 0.0
        for t in (*held, *kept):
            points = tables.ticket_points[t]
            if t in infeasible:
                value -= points
            elif t in completed:
                value += points
            else:
                value += points * factor
        for r in plan.routes:
            value += tables.points[r] - self.alpha * tables.length[r]
        return value - self.size_penalty * extra

    def success_factor(self, trains: int, budget: int) -> float:
        """From 1 (a plan within ``safe_share`` of the budget) down to -0.2 (the whole budget)."""
        if budget <= 0:
            return -1.0
        share = trains / budget
        if share <= self.safe_share:
            return 1.0
        return 1.0 - 1.2 * min(1.0, (share - self.safe_share) / (1.0 - self.safe_share))

    def may_draw_tickets(self, ctx: Context, legal: Sequence[Action], spare: int) -> bool:
        """Whether taking tickets is sensible: deck not empty, end not near, ``spare`` trains free."""
        view = ctx.view
        if view.ticket_deck_count == 0 or view.final_turns_left >= 0:
            return False
        if not any(isinstance(a, DrawTickets) for a in self._non_claims(ctx, legal)):
            return False
        free = self.train_budget(view) - ctx.plan.trains
        return ctx.opponent_trains > 10 and free >= spare

    # ------------------------------------------------------------ actions

    def act(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        raise NotImplementedError

    def targets(self, ctx: Context) -> list[int]:
        """The routes to collect cards for, most important first."""
        return self.ranked_plan(ctx)

    def ranked_plan(self, ctx: Context) -> list[int]:
        """Planned routes, the most shared and longest first."""
        plan = ctx.plan
        index = {r: i for i, r in enumerate(plan.routes)}
        routes = [r for r in plan.routes if ctx.status[r] == FREE]
        return sorted(routes, key=lambda r: (-plan.use.get(r, 0), -ctx.tables.length[r], index[r]))

    def filler_targets(self, ctx: Context, minimum: int = 3) -> list[int]:
        """Free routes worth collecting for when no ticket needs anything: long ones first."""
        tables = ctx.tables
        routes = [
            r
            for r in range(tables.num_routes)
            if ctx.status[r] == FREE and tables.length[r] >= min(minimum, ctx.trains)
        ]
        hand = ctx.view.hand
        return sorted(routes, key=lambda r: (-tables.points[r], -_holding(tables, r, hand), r))[:4]

    def claim(self, ctx: Context, route: int, others: Sequence[int] = (), risky: bool = False) -> Claim | None:
        """The cheapest legal claim of ``route``, keeping cards reserved for ``others``.

        A tunnel is tried only with at least one card left to pay an extra
        (unless ``risky``, or on the player's last turn).
        """
        options = self._payable_claims(ctx, route, risky)
        if not options:
            return None
        if len(options) == 1:
            return options[0]  # the cheapest of one, whatever is reserved
        rest = [r for r in others if r != route and ctx.status[r] == FREE]
        reserved = reserved_kinds(ctx.tables, rest, ctx.view.hand)
        return min(options, key=lambda c: (payment_cost(c.payment, reserved), sum(c.payment), c.payment))

    def claim_first(self, ctx: Context, routes: Sequence[int]) -> Claim | None:
        """A claim of the first route in ``routes`` that the hand can pay for."""
        for r in routes:
            action = self.claim(ctx, r, routes)
            if action is not None:
                return action
        return None

    def immediate_value(self, ctx: Context, route: int, labels: Sequence[int]) -> float:
        """Points a claim of ``route`` is worth right now (route plus completed tickets, twice)."""
        tables = ctx.tables
        a, b = labels[tables.route_a[route]], labels[tables.route_b[route]]
        value = float(tables.points[route])
        if a != b:
            for t in ctx.view.tickets:
                ta, tb = labels[tables.ticket_a[t]], labels[tables.ticket_b[t]]
                if (ta == a and tb == b) or (ta == b and tb == a):
                    value += 2 * tables.ticket_points[t]
        return value

    def best_immediate_claim(self, ctx: Context, minimum: float = 0.0) -> Claim | None:
        """The claim worth most right now (at least ``minimum``), or None."""
        routes = ctx.claim_candidates()
        if not routes:
            return None
        labels = components(ctx.tables, ctx.status)
        targets = self.targets(ctx)
        best: Claim | None = None
        best_key: tuple[float, float] = (-INF, 0.0)
        # A route worth less than the best so far cannot win: with the claim chosen as claim()
        # chooses it, only whether it has one matters (its tie-break is drawn all the same).
        shortcut = type(self).claim is BaselineAgent.claim
        rng = self.rng
        for route in routes:
            value = self.immediate_value(ctx, route, labels)
            if value < minimum:
                continue
            if shortcut and value < best_key[0]:
                if self._has_claim(ctx, route):
                    rng.random()
                continue
            action = self.claim(ctx, route, targets)
            if action is None:
                continue
            key = (value, -sum(action.payment) - 0.01 * rng.random())
            if key > best_key:
                best, best_key = action, key
        return best

    def _payable_claims(self, ctx: Context, route: int, risky: bool = False) -> Sequence[Claim]:
        """The claims of ``route`` that :meth:`claim` chooses from: a tunnel's only with at least
        one card left to pay an extra (unless ``risky``, or on the player's last turn)."""
        options = ctx.claims.get(route)
        if options and ctx.tables.is_tunnel(route) and not risky and ctx.view.final_turns_left < 0:
            hand = ctx.view.hand
            return [c for c in options if _tunnel_spare(hand, c.payment) >= 1]
        return options or ()

    def _has_claim(self, ctx: Context, route: int) -> bool:
        """Whether ``self.claim(ctx, route)`` (as :meth:`claim` is here) returns a claim."""
        return bool(self._payable_claims(ctx, route))

    def surplus_claim(self, ctx: Context, min_points: int = 2) -> Claim | None:
        """With a big hand (``surplus_hand`` cards or more), a claim of a route off the plan
        that the plan's trains can spare, worth most points for the cards it costs."""
        if sum(ctx.view.hand) < self.surplus_hand:
            return None
        tables = ctx.tables
        spare = ctx.trains - ctx.plan.trains - 2
        targets = self.targets(ctx)
        reserved = reserved_kinds(tables, targets, ctx.view.hand)
        best: Claim | None = None
        best_key = (-INF, 0.0)
        for route in ctx.claim_candidates():
            if tables.length[route] > spare or tables.points[route] < min_points or route in ctx.plan.use:
                continue
            action = self.claim(ctx, route, targets)
            if action is None:
                continue
            key = (tables.points[route] - 0.5 * payment_cost(action.payment, reserved), self.rng.random())
            if key > best_key:
                best, best_key = action, key
        return best

    def end_game(self, ctx: Context) -> bool:
        """This is the player's last turn, or the end may come before its next one."""
        return ctx.view.final_turns_left >= 0 or ctx.opponent_trains <= 3 or ctx.trains <= 2

    # ------------------------------------------------------------ cards

    def draw(self, ctx: Context, legal: Sequence[Action], targets: Sequence[int]) -> Action | None:
        """A face-up card the targets want, else a blind draw; None if no draw is legal."""
        view = ctx.view
        hand = view.hand
        if not targets:
            targets = self.filler_targets(ctx)
        wants = card_wants(ctx.tables, targets, hand, decay=self.want_decay)
        face_up: list[DrawFaceUp] = []
        blind: DrawBlind | None = None
        for a in self._non_claims(ctx, legal):
            kind = type(a)  # actions are never subclassed
            if kind is DrawFaceUp:
                face_up.append(a)  # type: ignore[arg-type]
            elif kind is DrawBlind and blind is None:
                blind = a  # type: ignore[assignment]
        best: DrawFaceUp | None = None
        best_key = (0.0, 0.0)
        for action in face_up:
            card = view.display[action.slot]
            if card < 0:
                continue
            key = (wants[card], self.rng.random())
            if key > best_key:
                best, best_key = action, key
        unseen = unseen_counts(view)
        total = sum(unseen)
        blind_value = sum(map(mul, unseen, wants)) / total if total else 0.0
        if best is not None and (best_key[0] > blind_value or blind is None):
            return best
        if blind is not None:
            return blind
        if face_up:
            return max(face_up, key=lambda a: (wants[view.display[a.slot]], -a.slot))
        return None

    # ------------------------------------------------------------ tunnels

    def tunnel_extra(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        """Pay the extra when the tunnel is on the plan, costs at most one card, or it is the last turn."""
        tunnel = ctx.view.tunnel
        pays = [a for a in legal if isinstance(a, PayTunnelExtra)]
        decline = next((a for a in legal if isinstance(a, DeclineTunnel)), None)
        if tunnel is None or not pays:
            return decline
        targets = self.targets(ctx)
        wanted = tunnel.route in targets or tunnel.route in ctx.plan.use
        if wanted or tunnel.needed <= 1 or ctx.view.final_turns_left >= 0 or self.pay_tunnel(ctx, tunnel.route):
            reserved = reserved_kinds(ctx.tables, [r for r in targets if r != tunnel.route], ctx.view.hand)
            return min(pays, key=lambda a: (payment_cost(a.cards, reserved), a.cards))
        return decline

    def pay_tunnel(self, ctx: Context, route: int) -> bool:
        """Whether to pay more than one extra card for a tunnel that is not on the plan."""
        return False


class DestinationHungryAgent(BaselineAgent):
    """Destination Hungry: many tickets, planned together; builds and collects for them.

    Keeps the ticket set of best planned value (it counts trains cheaply and
    accepts fuller plans than the others), claims planned routes as soon as it can
    pay (most shared, longest first) and collects the cards its plan misses. It
    draws more tickets in the opening (before its first route) while its plan
    fills at most half of its trains, and again whenever its plan is nearly done
    (4 trains or fewer) with 10 or more trains to spare.
    """

    name = "destination_hungry"
    alpha = 1.5
    margin = 3
    size_penalty = 0.5
    safe_share = 0.55

    def act(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        targets = self.targets(ctx)
        if self.end_game(ctx):
            action = self.best_immediate_claim(ctx, minimum=1.0 if ctx.view.final_turns_left < 0 else 0.0)
            if action is not None:
                return action
        claim = self.claim_first(ctx, targets)
        if claim is not None:
            return claim
        opening = OWN not in ctx.status
        budget = self.train_budget(ctx.view)
        if (opening and ctx.plan.trains <= budget // 2) or ctx.plan.trains <= 4:
            if self.may_draw_tickets(ctx, legal, spare=10):
                return next(a for a in legal if isinstance(a, DrawTickets))
        if not targets and sum(ctx.view.hand) >= 8:
            action = self.best_immediate_claim(ctx, minimum=4.0)
            if action is not None:
                return action
        surplus = self.surplus_claim(ctx)
        if surplus is not None:
            return surplus
        return self.draw(ctx, legal, targets) or self.best_immediate_claim(ctx) or self._fallback(ctx.view, legal)


class RouteFocusAgent(BaselineAgent):
    """Route Focus: claims the most valuable route on its tickets' shortest paths.

    Keeps few tickets (extra ones only when nearly free), ranks its planned
    routes by how many tickets use them and their points, claims the best it can
    pay for and otherwise draws for the top-ranked route. With its tickets done
    it takes new ones while 15 or more trains are free, else claims the most
    valuable routes it can.
    """

    name = "route_focus"
    alpha = 2.0
    margin = 5
    size_penalty = 3.0
    want_decay = 1.0

    def targets(self, ctx: Context) -> list[int]:
        plan = ctx.plan
        routes = [r for r in plan.routes if ctx.status[r] == FREE]
        return sorted(routes, key=lambda r: (-plan.use.get(r, 0), -ctx.tables.points[r], r))

    def act(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        targets = self.targets(ctx)
        if self.end_game(ctx):
            action = self.best_immediate_claim(ctx, minimum=1.0 if ctx.view.final_turns_left < 0 else 0.0)
            if action is not None:
                return action
        claim = self.claim_first(ctx, targets)
        if claim is not None:
            return claim
        if not targets:
            if self.may_draw_tickets(ctx, legal, spare=15):
                return next(a for a in legal if isinstance(a, DrawTickets))
            action = self.best_immediate_claim(ctx, minimum=4.0)
            if action is not None:
                return action
        surplus = self.surplus_claim(ctx)
        if surplus is not None:
            return surplus
        return self.draw(ctx, legal, targets) or self.best_immediate_claim(ctx) or self._fallback(ctx.view, legal)


class OneStepThinkingAgent(BaselineAgent):
    """One Step Thinking: scores every move available now and plays the best.

    A claim scores its route points plus, for each pending ticket, the share of
    the ticket's remaining distance it removes (times the ticket's value), or
    twice the ticket's value if it completes it; a claim that helps no ticket
    costs 1.5 points per train while tickets are pending (1 per train once all
    are done). Drawing cards (the most wanted face-up card, else blind) scores
    0.5, new tickets 2.5 once every ticket is done. Keeps the easiest tickets:
    fewest planned trains, a ticket's points counting half.
    """

    name = "one_step"
    margin = 6
    #: Ticket choice: points of a kept ticket against the trains its plan needs.
    ticket_weight: ClassVar[float] = 0.5

    def keep_value(
        self,
        tables: BoardTables,
        plan: Plan,
        held: Sequence[int],
        kept: Sequence[int],
        extra: int,
        budget: int,
    ) -> float:
        infeasible = set(plan.infeasible)
        value = -float(plan.trains) - 0.5 * extra
        for t in kept:
            points = tables.ticket_points[t]
            value += -2.0 * points if t in infeasible else self.ticket_weight * points
        return value

    def act(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        view = ctx.view
        tables = ctx.tables
        last = view.final_turns_left >= 0
        pending = [] if last else ctx.plan.pending
        cost = costs_for(ctx.status, tables.train_cost)
        dists: list[tuple[int, list[float], list[float]]] = []
        for t in pending:
            da, _ = dijkstra(tables, cost, tables.ticket_a[t])
            db, _ = dijkstra(tables, cost, tables.ticket_b[t])
            dists.append((t, da, db))
        labels = components(tables, ctx.status)
        targets = self.targets(ctx)
        best: Action | None = None
        best_key = (-INF, 0.0)

        def consider(action: Action | None, score: float) -> None:
            nonlocal best, best_key
            if action is None:
                return
            key = (score, self.rng.random())
            if key > best_key:
                best, best_key = action, key

        reserved = reserved_kinds(tables, targets, view.hand)
        for route in ctx.claim_candidates():
            action = self.claim(ctx, route, targets)
            if action is None:
                continue
            u, v = tables.route_a[route], tables.route_b[route]
            score = self.immediate_value(ctx, route, labels)
            progress = False
            for t, da, db in dists:
                d = da[tables.ticket_b[t]]
                if d <= 0.0 or d == INF:
                    continue
                after = min(d, da[u] + db[v], da[v] + db[u])
                if after < d - 1e-9:
                    progress = True
                    if after > 1e-9:
                        score += tables.ticket_points[t] * (d - after) / d
            if pending and not progress:
                score -= 1.5 * tables.length[route]
            elif not pending and not last:
                score -= tables.length[route]
            consider(action, score - 0.1 * payment_cost(action.payment, reserved))
        end = self.end_game(ctx)
        if not pending and not end and self.may_draw_tickets(ctx, legal, spare=6):
            consider(next(a for a in legal if isinstance(a, DrawTickets)), 2.5)
        draw = self.draw(ctx, legal, targets)
        if draw is not None:
            consider(draw, 0.5 if isinstance(draw, DrawFaceUp) else 0.3)
        if best is None:
            return self.best_immediate_claim(ctx) or self._fallback(view, legal)
        return best


class LongRouteAgent(BaselineAgent):
    """Long Route: goes for long, high-scoring routes.

    Plans its tickets over long links (path weight length² / points), keeps few
    tickets, claims the best long route (length 4 or more; ferries and tunnels
    included) it can pay for, then routes on its ticket paths, and collects the
    colors of its top long routes first. Pays tunnel extras for long routes.
    """

    name = "long_route"
    weights_name = "long_cost"
    alpha = 1.8
    margin = 6
    size_penalty = 4.0
    safe_share = 0.4
    surplus_hand = 12

    def long_targets(self, ctx: Context) -> list[int]:
        tables = ctx.tables
        on_plan = ctx.plan.use
        hand = ctx.view.hand
        spare = ctx.trains - ctx.plan.trains - 2  # trains not needed by the tickets
        routes = [
            r
            for r in range(tables.num_routes)
            if ctx.status[r] == FREE and tables.length[r] >= 4 and (r in on_plan or tables.length[r] <= spare)
        ]
        return sorted(
            routes,
            key=lambda r: (-(tables.points[r] + (8 if r in on_plan else 0)), -_holding(tables, r, hand), r),
        )

    def targets(self, ctx: Context) -> list[int]:
        long = self.long_targets(ctx)[:2]
        rest = [r for r in self.ranked_plan(ctx) if r not in long]
        return long + rest

    def pay_tunnel(self, ctx: Context, route: int) -> bool:
        return ctx.tables.length[route] >= 4

    def act(self, ctx: Context, legal: Sequence[Action]) -> Action | None:
        if self.end_game(ctx):
            action = self.best_immediate_claim(ctx, minimum=1.0 if ctx.view.final_turns_left < 0 else 0.0)
            if action is not None:
                return action
        targets = self.targets(ctx)
        claim = self.claim_first(ctx, self.long_targets(ctx))
        if claim is None:
            claim = self.claim_first(ctx, self.ranked_plan(ctx))
        if claim is not None:
            return claim
        if not ctx.plan.pending and self.may_draw_tickets(ctx, legal, spare=15):
            return next(a for a in legal if isinstance(a, DrawTickets))
        surplus = self.surplus_claim(ctx)
        if surplus is not None:
            return surplus
        return self.draw(ctx, legal, targets) or self.best_immediate_claim(ctx) or self._fallback(ctx.view, legal)


def _route_key() -> Callable[[Action], int]:
    """The route of a claim, raising TypeError for any other action (C speed: Claim's slot)."""
    slot = getattr(Claim, "route", None)
    if isinstance(slot, MemberDescriptorType):
        return cast(Callable[[Action], int], slot.__get__)
    get_route = attrgetter("route")

    def route(action: Action) -> int:
        if type(action) is not Claim:
            raise TypeError("not a claim")
        return cast(int, get_route(action))

    return route


_ROUTE_OF: Final = _route_key()


class _ClaimsByRoute(Mapping[int, Sequence[Claim]]):
    """The claims of a :class:`LegalSequence` by route, as :func:`_split_legal` groups them:
    a route's claims are worked out when looked up, all of them when iterated."""

    __slots__ = ("_legal", "_routes")

    def __init__(self, legal: LegalSequence) -> None:
        self._legal = legal
        self._routes: list[int] | None = None

    def _claim_routes(self) -> list[int]:
        routes = self._routes
        if routes is None:
            routes = self._routes = self._legal.claim_routes()
        return routes

    def candidate_routes(self) -> list[int]:
        """The routes of the listing, some of them perhaps without claims (nothing worked out)."""
        return self._legal.candidate_routes()

    def get(self, route: int, default: Sequence[Claim] | None = None) -> Sequence[Claim] | None:  # type: ignore[override]
        return self._legal.claims_of(route) or default

    def __getitem__(self, route: int) -> Sequence[Claim]:
        claims = self._legal.claims_of(route)
        if not claims:
            raise KeyError(route)
        return claims

    def __contains__(self, route: object) -> bool:
        return type(route) is int and bool(self._legal.claims_of(route))

    def __iter__(self) -> Iterator[int]:
        return iter(self._claim_routes())

    def __len__(self) -> int:
        return len(self._claim_routes())


def _split_legal(legal: Sequence[Action]) -> tuple[dict[int, list[Claim]], list[Action]]:
    """The claims in ``legal`` by route (routes in order of first appearance), and the other actions."""
    claims: dict[int, list[Claim]] = {}
    # The engine lists the draws first and then each route's claims together (hundreds of
    # them for big hands): those are grouped in runs; any other listing claim by claim.
    start = 0
    while start < len(legal) and type(legal[start]) is not Claim:
        start += 1
    if type(legal) is list:
        try:
            # Any other action than a claim raises here, and is listed below.
            for route, run in groupby(legal[start:], _ROUTE_OF):
                group = claims.get(route)
                if group is None:
                    claims[route] = list(run)
                else:
                    group.extend(run)
            return claims, legal[:start]
        except TypeError:
            claims = {}
    others: list[Action] = []
    for action in legal:
        if type(action) is Claim:  # a hot loop in rollouts; actions are never subclassed
            group = claims.get(action.route)
            if group is None:
                claims[action.route] = [action]
            else:
                group.append(action)
        else:
            others.append(action)
    return claims, others


def _tunnel_spare(hand: Sequence[int], payment: Sequence[int]) -> int:
    """Cards left in ``hand`` after a tunnel's base ``payment`` that could pay an extra."""
    locos = hand[LOCOMOTIVE] - payment[LOCOMOTIVE]
    if sum(payment) == payment[LOCOMOTIVE]:
        return locos
    color = next(k for k in range(LOCOMOTIVE) if payment[k])
    return locos + hand[color] - payment[color]


def _holding(tables: BoardTables, route: int, hand: Sequence[int]) -> int:
    """How many cards of the hand fit the route's color (the best color for a gray one)."""
    color = tables.color[route]
    if color < 0:
        return max(hand[:LOCOMOTIVE])
    return hand[color]

"""The expert agent: Route Focus improved by determinized search where lookahead pays.

:class:`RolloutSearchAgent` plays like :class:`~.baselines.RouteFocusAgent` (the
strongest baseline) on routine decisions (card draws, claims on its plan) and
searches the decisions where looking ahead changes most:

* which tickets to keep (at setup and after drawing tickets),
* whether to draw new tickets instead of the Route Focus move,
* whether to pay a tunnel's extra cards or decline,
* optionally (``search_actions``), which of the claims and draws to play each turn.

A search is information-set Monte Carlo over determinized samples of the agent's
own view (:meth:`PlayerView.determinize`): every candidate action is played on
the *same* samples, followed by the *same* rollout (every player, the agent
included, plays Route Focus to the end, its randomness fixed per sample), and
scored by its objective (:func:`rollout_value`: with two players the final margin plus a
win bonus, with more its own score). This is one step of policy
improvement over Route Focus, with common random numbers so that candidates are
compared on equal luck. Successive halving drops the worse half of the
candidates after each round, so most rollouts go to the close calls.

The agent reads only its view (the samples are its own); with a rollout budget it is
deterministic given its seed; ``time_limit`` caps each search on top of that.

>>> from ttr_nordic.ai import play_game
>>> from ttr_nordic.ai.baselines import RouteFocusAgent
>>> agent = RolloutSearchAgent(ticket_rollouts=8, action_rollouts=4, seed=1)
>>> play_game([agent, RouteFocusAgent(seed=2)], seed=3).is_over
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import cast

from .. import fast
from ..engine import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameState,
    KeepTickets,
    PayTunnelExtra,
    PlayerView,
)
from ..engine.variant import OFFICIAL
from .base import legal_listing
from .baselines import RouteFocusAgent
from .inference import TicketInference, assign_tickets
from .planning import BoardTables, board_tables, plan_tickets, route_status

#: At most this many ticket choices are searched (the best by Route Focus's own estimate).
MAX_KEEP_CANDIDATES = 8
#: At most this many actions are searched in a turn.
MAX_ACTION_CANDIDATES = 3
#: Points a win is worth on top of the score margin in a rollout's value.
WIN_BONUS = 20.0
#: The standard error given to a gain measured on fewer than two samples.
INF_ERROR = 1e9
#: At most this many actions are searched on an ordinary turn with ``search_turns``.
MAX_TURN_CANDIDATES = 6
#: Inferred ticket sets looked at to find the opponent's likely routes (``block``).
BLOCK_SAMPLES = 8


def leaf_value(state: GameState, player: int, all_seats: bool = False) -> float:
    """A position's value for ``player`` in the units of :func:`rollout_value`'s margin: the
    value model's expected margin plus :data:`WIN_BONUS` times its win probability (the real
    margin and win once the game is over).

    With two players (or ``all_seats``) the model judges the (determinized) position from every
    seat and two estimates are averaged: the player's own, and minus the best other seat's
    margin with one less the others' win probabilities. So the opponents' tickets in the sample
    count as much as the player's own. (With two players the best other margin is minus the
    player's; with three it is too whenever the player is first or second.)"""
    if state.is_over:
        return rollout_value(state, player, "margin")
    from .value.model import evaluate  # the model file is read once, on first use

    margin, p_win = evaluate(state.view(player, log=False))
    if state.num_players == 2 or all_seats:
        others = [evaluate(state.view(q, log=False)) for q in range(state.num_players) if q != player]
        best_other = max(m for m, _ in others)
        margin, p_win = (margin - best_other) / 2, (p_win + 1.0 - sum(w for _, w in others)) / 2
    return margin + WIN_BONUS * p_win


def core_leaf_value(game: fast.FastGame, player: int, all_seats: bool = False) -> float:
    """:func:`leaf_value` of a game in the compiled core: the same value model on the same
    features (``CoreGame.features``, equal to ``value.features.features`` of each view)."""
    if game.is_over:
        totals, winners = game.rollout_result()
        return outcome_value(totals, winners, player, "margin")
    from .value.model import default_model

    model = default_model()
    players = game.core.players
    margin, p_win = model.predict(players, game.core.features(player))
    if players == 2 or all_seats:
        others = [model.predict(players, game.core.features(q)) for q in range(players) if q != player]
        best_other = max(m for m, _ in others)
        margin, p_win = (margin - best_other) / 2, (p_win + 1.0 - sum(w for _, w in others)) / 2
    return margin + WIN_BONUS * p_win


def status_for(view: PlayerView, player: int) -> tuple[int, ...]:
    """``OWN``/``FREE``/``BLOCKED`` for each route from ``player``'s side, from public facts
    (owners and trains): what :func:`~.planning.route_status` gives in ``player``'s own view."""
    return route_status(view, player=player)


def rollout_value(state: GameState, player: int, objective: str = "margin") -> float:
    """A finished game's value for ``player``.

    ``"margin"``: the margin over the best other player, plus :data:`WIN_BONUS` times its
    share of the win. ``"score"``: the player's own final score. With three players the
    margin over the best other is a noisy target that also rewards hurting whichever
    opponent leads; the own score is what a winner maximizes.
    """
    result = state.result()
    return outcome_value(result.totals, result.winners, player, objective)


def outcome_value(totals: Sequence[int], winners: Sequence[int], player: int, objective: str = "margin") -> float:
    """:func:`rollout_value` from a game's final totals and winners (a rollout in the core)."""
    if objective == "score":
        return float(totals[player])
    best_other = max(t for q, t in enumerate(totals) if q != player)
    win = 1.0 / len(winners) if player in winners else 0.0
    return totals[player] - best_other + WIN_BONUS * win


#: The rollout policies the compiled core plays (ttr_nordic.fast): (light, long-route weights).
_CORE_POLICIES: dict[type[RouteFocusAgent], tuple[bool, bool]] = {}


def core_policies(seat_policies: Sequence[type[RouteFocusAgent]]) -> list[tuple[bool, bool]] | None:
    """The core's (light, long-route weights) flags of each seat's rollout policy, or None when
    the core is not available or plays one of them differently (then the rollouts run in Python)."""
    if not fast.AVAILABLE:
        return None
    if not _CORE_POLICIES:
        _CORE_POLICIES.update(
            {
                RouteFocusAgent: (False, False),
                LightRouteFocus: (True, False),
                LongRouteFocus: (False, True),
                LightLongRouteFocus: (True, True),
            }
        )
    flags = [_CORE_POLICIES.get(policy) for policy in seat_policies]
    if any(flag is None for flag in flags):
        return None
    return cast(list[tuple[bool, bool]], flags)


def core_plays(view: PlayerView) -> bool:
    """Whether the compiled core plays the samples of ``view``'s searches: what
    :func:`ttr_nordic.fast.supports` says of each (they keep the view's player count and variant).

    >>> from ttr_nordic.engine import GameState
    >>> core_plays(GameState.new(players=2, seed=1).view(0)) == fast.AVAILABLE
    True
    """
    return fast.AVAILABLE and view.num_players in (2, 3) and (view.variant is OFFICIAL or view.variant == OFFICIAL)


def top_claims(view: PlayerView, legal: Sequence[Action]) -> list[Claim]:
    """The legal claims, one per route (the one paying fewest cards, then fewest locomotives),
    highest-scoring route first: the claims worth searching against the Route Focus move.

    >>> from ttr_nordic.engine import GameState
    >>> game = GameState.new(players=2, seed=1)
    >>> top_claims(game.view(game.current), game.legal_action_list())  # still choosing tickets
    []
    """
    points = board_tables(view.board).points
    claims = sorted((a for a in legal if isinstance(a, Claim)), key=lambda c: (sum(c.payment), c.payment[-1]))
    by_route: dict[int, Claim] = {}
    for claim in claims:  # cheapest first; the sort is stable, so ties keep the legal order
        by_route.setdefault(claim.route, claim)
    return sorted(by_route.values(), key=lambda c: (-points[c.route], c.route))


class LightRouteFocus(RouteFocusAgent):
    """Route Focus for rollouts: its plan ignores the hand, so it is re-planned only when
    tickets or trains change or a route of the plan is taken (about twice as fast; as
    strong within noise).

    Another player's claim off the plan cannot make the plan's paths longer or another
    path shorter (it only removes edges), so the plan is kept then.
    """

    name = "route_focus_light"
    hand_beta = 0.0

    def _plan_inputs(self, view: PlayerView, status: Sequence[int]) -> tuple[object, ...]:
        planned = () if self._plan is None else tuple(status[r] for r in self._plan.routes)
        return (view.tickets, view.trains[view.player], view.player, id(view.board), planned)

    def _plan_weights(self, tables: BoardTables, view: PlayerView) -> Sequence[float]:
        return self._weights(tables)


class LightLongRouteFocus(LightRouteFocus):
    """:class:`LightRouteFocus` with the long-route weights of :class:`LongRouteFocus`: a
    searching seat's own rollouts with ``three_player_own_rollouts="long_cost"``."""

    name = "route_focus_light_long"
    weights_name = "long_cost"


class LongRouteFocus(RouteFocusAgent):
    """Route Focus planning with long-route weights: in three-player games it wins more
    often against two Route Focus than Route Focus itself (0.356 against 0.335 of 7,500
    games each), but as the expert's three-player default move it changed nothing that 638
    games could see (docs/ai-strength.md, 2026-11-27 (12))."""

    name = "route_focus_long"
    weights_name = "long_cost"


def play_out(
    state: GameState,
    seed: int,
    deadline: float | None = None,
    max_actions: int = 3000,
    policy: type[RouteFocusAgent] = RouteFocusAgent,
    horizon: int = 0,
    seat_policies: Sequence[type[RouteFocusAgent]] | None = None,
) -> bool:
    """Finish a (determinized) game with every player playing ``policy`` (Route Focus), its
    randomness fixed by ``seed`` (one agent per seat, seeded ``seed + seat``). False if
    ``deadline`` (a ``time.perf_counter()`` value) passed first, leaving the game unfinished.
    With ``horizon`` > 0, stop (True) after that many actions even if the game goes on. A game
    still going after ``max_actions`` (the policies going round in circles, e.g. a tunnel tried
    and declined again and again) stops there too (True): it is judged as it stands, as the core's
    rollouts judge it. ``seat_policies`` (one per seat) replaces ``policy`` where seats play
    differently."""
    if seat_policies is None:
        seat_policies = [policy] * state.num_players
    elif len(seat_policies) != state.num_players:
        raise ValueError(f"seat_policies needs one policy per seat ({state.num_players}), not {len(seat_policies)}")
    agents = [seat_policies[q](seed=seed + q) for q in range(state.num_players)]
    # The same listing as play_game gives the policy (the ferries' claims worked out when read).
    legal = legal_listing(state, seat_policies[0])
    for count in range(max_actions):
        if state.is_over or (horizon > 0 and count == horizon):
            return True
        if deadline is not None and count % 16 == 0 and time.perf_counter() > deadline:
            return False
        player = state.current
        action = agents[player].choose(state.view(player, log=False), legal())
        state.apply_unchecked(action)
    return True


class RolloutSearchAgent:
    """Route Focus with determinized rollout search on tickets, ticket draws and tunnels.

    ``ticket_rollouts`` and ``action_rollouts`` bound the rollouts of a ticket search and
    of an action (or tunnel) search; ``time_limit`` (seconds, or None) caps any one search.
    With ``ticket_inference``, the samples give each opponent tickets that explain the
    routes it claimed (:class:`~.inference.TicketInference`) instead of random ones; with
    ``light_rollouts``, rollouts play :class:`LightRouteFocus`. ``objective`` is what a
    rollout is worth (:func:`rollout_value`): ``"margin"``, ``"score"``, or ``"auto"`` (the
    margin with two players, where it decides the game; the own score with more, where the
    margin over the best other is noisy).

    With ``search_turns``, ordinary turns and second cards are searched too (Expert 2.0): the
    Route Focus move against the best claims, a blind draw, one face-up card of each colour
    on display and, with ``block`` in a two-player game, claims on the routes the opponent's
    inferred tickets need; ``turn_rollouts`` and ``turn_time`` bound such a search. With
    ``horizon`` > 0 every rollout stops after that many actions and the value model
    (:func:`leaf_value`) scores the position, so that a search affords more samples; with
    ``leaf_all_seats`` it is judged from every seat in three-player games too. With
    ``three_player_weights="long_cost"`` the default move of three-player games is that of
    :class:`LongRouteFocus`; with ``three_player_own_rollouts="long_cost"`` the searching
    seat plays long-route weights in its own rollouts of three-player games (the others keep
    the rollout policy). ``three_player_ticket_horizon`` replaces ``horizon`` in the ticket
    searches of three-player games (0: rollouts played to the end); early in a game the value
    model says little, and a ticket choice is judged by how the game ends. ``core_rollouts``
    (default on) plays the rollouts in the compiled core (:mod:`ttr_nordic.fast`) where it is
    built and the rollout policies are its Route Focus agents: the same values, many times as
    many rollouts in the same time. Where they run there, ``core_rollout_scale`` multiplies the
    rollout cap of every search whose rollouts are cut at a horizon, ``core_full_rollout_scale``
    (by default the same) that of a search playing them to the end (about five times as long each),
    so that the same time buys more rollouts; the time limits stay as they are. ``turn_candidates``
    caps the actions searched on an ordinary turn, ``core_turn_candidates`` (by default the same)
    where the rollouts run in the core. ``three_player_turn_candidates`` (for both) and
    ``three_player_core_rollout_scale`` replace them and ``core_rollout_scale`` in three-player
    games (None: the same).
    """

    def __init__(
        self,
        ticket_rollouts: int = 96,
        action_rollouts: int = 24,
        time_limit: float | None = None,
        search_actions: bool = False,
        confidence: float = 1.0,
        keep_candidates: int = MAX_KEEP_CANDIDATES,
        seed: int | None = None,
        name: str = "rollout_search",
        ticket_inference: bool = False,
        light_rollouts: bool = False,
        objective: str = "margin",
        search_turns: bool = False,
        turn_rollouts: int = 120,
        turn_time: float | None = 0.8,
        horizon: int = 0,
        block: bool = False,
        leaf_all_seats: bool = False,
        three_player_weights: str = "train_cost",
        three_player_own_rollouts: str = "train_cost",
        three_player_ticket_horizon: int | None = None,
        core_rollouts: bool = True,
        core_rollout_scale: float = 1.0,
        core_full_rollout_scale: float | None = None,
        turn_candidates: int = MAX_TURN_CANDIDATES,
        core_turn_candidates: int | None = None,
        three_player_turn_candidates: int | None = None,
        three_player_core_rollout_scale: float | None = None,
    ) -> None:
        if objective not in ("margin", "score", "auto"):
            raise ValueError(f"objective must be 'margin', 'score' or 'auto', not {objective!r}")
        self.objective = objective
        #: Play the searches' rollouts in the compiled core where it is built (the same values).
        self.core_rollouts = core_rollouts
        if core_full_rollout_scale is None:
            core_full_rollout_scale = core_rollout_scale
        if three_player_core_rollout_scale is None:
            three_player_core_rollout_scale = core_rollout_scale
        for label, scale in (
            ("core_rollout_scale", core_rollout_scale),
            ("core_full_rollout_scale", core_full_rollout_scale),
            ("three_player_core_rollout_scale", three_player_core_rollout_scale),
        ):
            if not (math.isfinite(scale) and scale > 0):
                raise ValueError(f"{label} must be a positive number, not {scale!r}")
        #: Multiply the rollout caps of a search whose rollouts run in the core (cut at a horizon, or played out).
        self.core_rollout_scale = float(core_rollout_scale)
        self.core_full_rollout_scale = float(core_full_rollout_scale)
        self.three_player_core_rollout_scale = float(three_player_core_rollout_scale)
        self.ticket_rollouts = ticket_rollouts
        self.action_rollouts = action_rollouts
        self.time_limit = time_limit
        self.search_actions = search_actions
        self.confidence = confidence
        self.keep_candidates = keep_candidates
        if core_turn_candidates is None:
            core_turn_candidates = turn_candidates
        for label, count in (
            ("turn_candidates", turn_candidates),
            ("core_turn_candidates", core_turn_candidates),
            ("three_player_turn_candidates", three_player_turn_candidates),
        ):
            if count is not None and count < 2:
                raise ValueError(f"{label} must be at least 2, not {count}")
        three = three_player_turn_candidates
        #: Actions searched on an ordinary turn with ``search_turns``, by table size and whether
        #: the rollouts run in the core; past the default six, half the extra places go to more of
        #: the best claims and the rest to draws.
        self.turn_caps = {
            (2, False): turn_candidates,
            (2, True): core_turn_candidates,
            (3, False): turn_candidates if three is None else three,
            (3, True): core_turn_candidates if three is None else three,
        }
        self.rng = random.Random(seed)
        if three_player_weights not in ("train_cost", "long_cost"):
            raise ValueError(f"three_player_weights must be 'train_cost' or 'long_cost', not {three_player_weights!r}")
        self.three_player_weights = three_player_weights
        if three_player_own_rollouts not in ("train_cost", "long_cost"):
            raise ValueError(
                f"three_player_own_rollouts must be 'train_cost' or 'long_cost', not {three_player_own_rollouts!r}"
            )
        self.three_player_own_rollouts = three_player_own_rollouts
        if three_player_ticket_horizon is not None and three_player_ticket_horizon < 0:
            raise ValueError(f"three_player_ticket_horizon must be None or >= 0, not {three_player_ticket_horizon}")
        self.three_player_ticket_horizon = three_player_ticket_horizon
        # The agents whose move is the default, by table size: Route Focus, and with
        # ``three_player_weights="long_cost"`` Long Route Focus for three-player games.
        self._bases = {2: RouteFocusAgent(seed=self.rng.getrandbits(32))}
        if three_player_weights == "long_cost":
            self._bases[3] = LongRouteFocus(seed=self.rng.getrandbits(32))
        self.base = self._bases[2]
        self.name = name
        self.inference = TicketInference() if ticket_inference else None
        self.policy: type[RouteFocusAgent] = LightRouteFocus if light_rollouts else RouteFocusAgent
        self.search_turns = search_turns
        self.turn_rollouts = turn_rollouts
        self.turn_time = turn_time
        self.horizon = horizon
        self.block = block
        self.leaf_all_seats = leaf_all_seats
        self.last_rollouts = 0
        self.searches = 0
        self._decision_start: float | None = None

    def sample(self, view: PlayerView) -> GameState:
        """A determinized state for a search: the view's unseen cards and tickets dealt at
        random, opponents' tickets guessed from their claims with ``ticket_inference``."""
        state = view.determinize(self.rng)
        if self.inference is not None:
            for q in range(view.num_players):
                if q != view.player:
                    assign_tickets(state, q, self.inference.sample(view, q, self.rng))
        return state

    # ------------------------------------------------------------ decisions

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.last_rollouts = 0
        # a search's time limit counts from here: choosing candidates and inferring tickets are
        # part of the decision's time (on a busy machine they took over a second)
        self._decision_start = time.perf_counter()
        self.base = self._bases.get(view.num_players, self._bases[2])
        default = self.base.choose(view, legal)
        if len(legal) == 1:
            return legal[0]
        phase = view.phase.name
        candidates: list[Action]
        in_core: bool | None = None  # whether the search plays its rollouts in the core, once asked
        budget = self.action_rollouts
        time_limit = self.time_limit
        horizon = self.horizon
        if phase in ("INITIAL_TICKETS", "KEEP_TICKETS"):
            candidates = self._keep_candidates(view, legal, default)
            budget = self.ticket_rollouts
            if view.num_players == 3 and self.three_player_ticket_horizon is not None:
                horizon = self.three_player_ticket_horizon
        elif phase == "TUNNEL_EXTRA":
            pays = [a for a in legal if isinstance(a, PayTunnelExtra)]
            decline = [a for a in legal if isinstance(a, DeclineTunnel)]
            candidates = [default]
            if pays and isinstance(default, DeclineTunnel):
                candidates.append(pays[0])
            elif decline and not isinstance(default, DeclineTunnel):
                candidates.append(decline[0])
        elif phase == "CHOOSE_ACTION" and self.search_turns:
            in_core = self.searches_in_core(view)
            candidates = self._turn_candidates(view, legal, default, in_core)
            budget, time_limit = self.turn_rollouts, self.turn_time
        elif phase == "CHOOSE_ACTION":
            candidates = self._action_candidates(view, legal, default)
        elif phase == "SECOND_CARD" and self.search_turns:
            candidates = self._draw_candidates(view, legal, [default])
            budget, time_limit = self.turn_rollouts, self.turn_time
        else:
            return default
        if len(candidates) <= 1:
            return default
        if horizon == 0:
            scale = self.core_full_rollout_scale
        else:
            scale = self.three_player_core_rollout_scale if view.num_players == 3 else self.core_rollout_scale
        if scale != 1.0 and (self.searches_in_core(view) if in_core is None else in_core):
            budget = max(1, round(budget * scale))
        best = self._search(view, candidates, budget, time_limit, horizon)
        return best if best in legal else default

    def searches_in_core(self, view: PlayerView) -> bool:
        """Whether this agent's searches at ``view`` play their rollouts in the compiled core
        (where the core scales multiply its rollout caps).

        >>> from ttr_nordic.engine import GameState
        >>> view = GameState.new(players=2, seed=1).view(0)
        >>> RolloutSearchAgent(core_rollouts=False).searches_in_core(view)
        False
        """
        return self.core_rollouts and core_policies(self._seat_policies(view)) is not None and core_plays(view)

    def _keep_candidates(self, view: PlayerView, legal: Sequence[Action], default: Action) -> list[Action]:
        """The ticket choices, best first by Route Focus's estimate, at most ``keep_candidates``."""
        options = [a for a in legal if isinstance(a, KeepTickets)]
        scored = list(zip(self.base.keep_values(view, options), options, strict=True))
        scored.sort(key=lambda item: (-item[0], item[1].tickets))
        out: list[Action] = [default]
        for _, option in scored:
            if option != default and len(out) < self.keep_candidates:
                out.append(option)
        return out

    def _action_candidates(self, view: PlayerView, legal: Sequence[Action], default: Action) -> list[Action]:
        """The Route Focus move, drawing tickets (when the plan is nearly done and trains
        are left) and, with ``search_actions``, the most valuable claims."""
        out: list[Action] = [default]
        draw = next((a for a in legal if isinstance(a, DrawTickets)), None)
        me = view.player
        others = min(t for q, t in enumerate(view.trains) if q != me)
        plan = self.base._plan
        plan_trains = plan.trains if plan is not None else 0
        if (
            draw is not None
            and draw != default
            and view.final_turns_left < 0
            and others >= 12
            and view.trains[me] - plan_trains >= 12
            and plan_trains <= 6
        ):
            out.append(draw)
        if self.search_actions:
            for claim in top_claims(view, legal):
                if len(out) >= MAX_ACTION_CANDIDATES:
                    break
                if claim not in out:
                    out.append(claim)
        return out

    def _draw_candidates(
        self, view: PlayerView, legal: Sequence[Action], out: list[Action], cap: int = MAX_TURN_CANDIDATES
    ) -> list[Action]:
        """``out`` plus one face-up draw per colour on display and a blind draw, in the engine's
        order of legal actions, while there is room (``cap`` actions in all)."""
        seen: set[int] = set()
        for action in out:
            if isinstance(action, DrawFaceUp):
                seen.add(view.display[action.slot])
        for action in legal:
            if len(out) >= cap:
                break
            if isinstance(action, DrawBlind) and action not in out:
                out.append(action)
            elif isinstance(action, DrawFaceUp) and view.display[action.slot] not in seen:
                seen.add(view.display[action.slot])
                out.append(action)
        return out

    def _turn_candidates(
        self, view: PlayerView, legal: Sequence[Action], default: Action, in_core: bool | None = None
    ) -> list[Action]:
        """Route Focus's move, a ticket draw (as without ``search_turns``), blocking claims, the
        two best claims, a blind draw and a face-up draw of each colour, at most
        :data:`MAX_TURN_CANDIDATES`; with a larger cap (``turn_caps``) more of the best claims
        and draws. ``in_core``: whether the search plays its rollouts in the core (None: ask)."""
        if in_core is None:
            in_core = self.searches_in_core(view)
        out = self._action_candidates(view, legal, default)
        claims = top_claims(view, legal)
        if self.block and view.num_players == 2 and claims:
            for claim in self._blocking_claims(view, claims):
                if claim not in out:
                    out.append(claim)
        cap = self.turn_caps[(3 if view.num_players == 3 else 2, in_core)]
        for claim in claims[: 2 + max(0, cap - MAX_TURN_CANDIDATES) // 2]:
            if len(out) < cap - 1 and claim not in out:
                out.append(claim)
        return self._draw_candidates(view, legal, out, cap)

    def _blocking_claims(self, view: PlayerView, claims: Sequence[Claim], opponent: int | None = None) -> list[Claim]:
        """At most one claim on a route that ``opponent``'s likely tickets need most (planned in
        at least half of :data:`BLOCK_SAMPLES` inferred ticket sets); by default the opponent
        of a two-player game."""
        inference = self.inference if self.inference is not None else TicketInference()
        self.inference = inference
        if opponent is None:
            opponent = 1 - view.player
        tables = board_tables(view.board)
        status = status_for(view, opponent)
        need: dict[int, int] = {}
        for _ in range(BLOCK_SAMPLES):
            tickets = inference.sample(view, opponent, self.rng)
            plan = plan_tickets(tables, status, tables.train_cost, tickets, trains_left=view.trains[opponent])
            for route in set(plan.routes):
                need[route] = need.get(route, 0) + 1
        scored = [(need.get(c.route, 0), c) for c in claims if need.get(c.route, 0) * 2 >= BLOCK_SAMPLES]
        scored.sort(key=lambda item: (-item[0], item[1].route))
        return [c for _, c in scored[:1]]

    # ------------------------------------------------------------ search

    def _search(
        self,
        view: PlayerView,
        candidates: list[Action],
        budget: int,
        time_limit: float | None = None,
        horizon: int | None = None,
    ) -> Action:
        """The Route Focus move (``candidates[0]``) unless another candidate beats it clearly
        (rollouts cut after ``horizon`` actions, by default ``self.horizon``).

        Successive halving over common samples (the first candidate always stays in);
        a challenger wins only if its mean paired gain over the first candidate exceeds
        ``confidence`` standard errors of that gain."""
        self.searches += 1
        me = view.player
        objective = self.objective
        if objective == "auto":
            objective = "margin" if view.num_players == 2 else "score"
        default = candidates[0]
        values: dict[Action, list[float]] = {a: [] for a in candidates}
        alive = list(candidates)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        start = self._decision_start if self._decision_start is not None else time.perf_counter()
        self._decision_start = None
        deadline = None if time_limit is None else start + time_limit
        if horizon is None:
            horizon = self.horizon
        seat_policies = self._seat_policies(view)
        flags = core_policies(seat_policies) if self.core_rollouts else None
        used = 0
        samples = 0
        out_of_time = False
        for round_index in range(rounds):
            per_candidate = max(2, budget // (len(alive) * (rounds - round_index)))
            for _ in range(per_candidate):
                if time_limit is not None:
                    elapsed = time.perf_counter() - start
                    if elapsed >= time_limit or (samples and elapsed * (samples + 1) / samples > time_limit):
                        out_of_time = True
                        break
                sample = self.sample(view)
                seed = self.rng.getrandbits(31)
                finished: list[float] = []
                if flags is not None and fast.supports(sample):
                    # The same rollouts in the compiled core (tests/fast/test_expert_rollouts.py).
                    self._core_rollouts(sample, me, alive, seed, deadline, horizon, flags, objective, finished)
                else:
                    for action in alive:
                        state = sample.clone()
                        state.apply_unchecked(action)
                        if not play_out(state, seed, deadline, horizon=horizon, seat_policies=seat_policies):
                            break
                        if horizon:
                            finished.append(leaf_value(state, me, self.leaf_all_seats))
                        else:
                            finished.append(rollout_value(state, me, objective))
                if len(finished) < len(alive):
                    out_of_time = True  # the sample is dropped: every candidate needs it
                    break
                for action, value in zip(alive, finished, strict=True):
                    values[action].append(value)
                used += len(alive)
                samples += 1
            budget -= per_candidate * len(alive)
            if out_of_time or len(alive) <= 2:
                break
            gains = {a: self._gain(values[a], values[default])[0] for a in alive}
            challengers = sorted((a for a in alive if a != default), key=lambda a: -gains[a])
            alive = [default, *challengers[: max(1, (len(alive) + 1) // 2 - 1)]]
        self.last_rollouts = used
        best = default
        best_gain = 0.0
        for action in alive:
            if action == default:
                continue
            gain, error = self._gain(values[action], values[default])
            if gain > self.confidence * error and gain > best_gain:
                best, best_gain = action, gain
        return best

    def _core_rollouts(
        self,
        sample: GameState,
        me: int,
        actions: Sequence[Action],
        seed: int,
        deadline: float | None,
        horizon: int,
        flags: list[tuple[bool, bool]],
        objective: str,
        finished: list[float],
    ) -> None:
        """The rollouts of :meth:`_search` for one sample in the core: each action, then
        :func:`play_out` there; the values appended to ``finished`` (fewer once ``deadline`` passed).
        The deadline is looked at before each rollout: in the core one takes about 0.2 ms cut after
        24 actions, about 1 ms played to the end."""
        start = fast.FastGame.from_state(sample)
        for action in actions:
            if deadline is not None and time.perf_counter() > deadline:
                return
            game = start.clone()
            game.apply(action)
            game.play_out(seed, horizon, flags)  # unfinished after its cap: judged as it stands
            if horizon:
                finished.append(core_leaf_value(game, me, self.leaf_all_seats))
            else:
                totals, winners = game.rollout_result()
                finished.append(outcome_value(totals, winners, me, objective))

    def _seat_policies(self, view: PlayerView) -> list[type[RouteFocusAgent]]:
        """The rollout policy of each seat: ``self.policy``, except the searching seat's own
        with ``three_player_own_rollouts="long_cost"`` in a three-player game."""
        policies = [self.policy] * view.num_players
        if view.num_players == 3 and self.three_player_own_rollouts == "long_cost":
            policies[view.player] = LightLongRouteFocus if self.policy is LightRouteFocus else LongRouteFocus
        return policies

    @staticmethod
    def _gain(values: Sequence[float], base: Sequence[float]) -> tuple[float, float]:
        """Mean paired difference of ``values`` over ``base`` (common samples) and its standard error."""
        n = min(len(values), len(base))
        if n < 2:
            return 0.0, INF_ERROR
        diffs = [values[i] - base[i] for i in range(n)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean, math.sqrt(var / n)


__all__ = [
    "LightLongRouteFocus",
    "LightRouteFocus",
    "LongRouteFocus",
    "RolloutSearchAgent",
    "core_plays",
    "leaf_value",
    "play_out",
    "rollout_value",
    "status_for",
    "top_claims",
]

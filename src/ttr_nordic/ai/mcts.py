"""Information-set Monte Carlo tree search (single-observer ISMCTS).

Each iteration samples a full state consistent with the agent's view
(:meth:`PlayerView.determinize`), walks one shared tree of actions, choosing
among the actions legal in that sample by UCB with availability counts, adds
one node, finishes the game with the ticket-driven :class:`RolloutPolicy`, and
backs up each player's reward (a win share plus a score-margin term) to the
nodes where that player acted. The move played is the most visited one.

The search only ever sees the view and its own samples; the real state never
reaches it. With an iteration budget the agent is deterministic given its seed.

>>> from ttr_nordic.ai.mcts import MCTSAgent
>>> from ttr_nordic.ai import RandomAgent, play_game
>>> game = play_game([MCTSAgent(iterations=20, seed=1), RandomAgent(seed=2)], seed=3)
>>> game.is_over
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from ..engine import (
    Action,
    Claim,
    GameState,
    PayTunnelExtra,
    Phase,
    PlayerView,
)
from ..engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, FACE_UP_DRAWS
from ..engine.cards import LOCOMOTIVE
from .rollout import RolloutPolicy, cheapest_payment

#: Claims of routes outside the ticket paths that the search still considers, longest first.
OTHER_CLAIMS = 4
#: Below this many trains a player no longer draws tickets in the search.
TICKET_DRAW_MIN_TRAINS = 12


class Node:
    """A tree node: statistics of the action that led here, for the player who took it."""

    __slots__ = ("actor", "available", "children", "reward", "visits")

    def __init__(self, actor: int) -> None:
        self.actor = actor
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[Action, Node] = {}


def candidate_actions(state: GameState, policy: RolloutPolicy) -> list[Action]:
    """The actions worth searching, best guess first (each one legal).

    Face-up slots of one color are one choice; a claim uses the route's cheapest
    payment; claims are limited to the player's ticket paths plus a few long
    routes; tunnels pay with the fewest locomotives or decline.
    """
    phase = state.phase
    if phase is Phase.TUNNEL_EXTRA:
        legal = state.legal_action_list()
        pays = [a for a in legal if isinstance(a, PayTunnelExtra)]
        out: list[Action] = []
        if pays:
            out.append(min(pays, key=lambda a: a.cards[LOCOMOTIVE]))
        out.append(DECLINE_TUNNEL)
        return out
    if phase is Phase.KEEP_TICKETS or phase is Phase.INITIAL_TICKETS:
        return state.legal_action_list()
    player = state.current
    draws: list[Action] = []
    seen_colors: set[int] = set()
    for slot, card in enumerate(state.display):
        if card >= 0 and card not in seen_colors:
            seen_colors.add(card)
            draws.append(FACE_UP_DRAWS[slot])
    if state.deck or any(state.discard):
        draws.append(DRAW_BLIND)
    if phase is Phase.SECOND_CARD:
        return draws
    targets = policy.targets(state, player)
    tables = policy.tables
    routes = tables.board.routes
    hand = state.hands[player]
    total = sum(hand)
    target_claims: list[Claim] = []
    other_claims: list[Claim] = []
    for rid in range(len(routes)):
        if tables.lengths[rid] > total or not policy.claimable(state, player, rid):
            continue
        payment = cheapest_payment(routes[rid], hand)
        if payment is None:
            continue
        claim = Claim(rid, payment)  # type: ignore[arg-type]
        (target_claims if rid in targets else other_claims).append(claim)
    target_claims.sort(key=lambda a: -tables.lengths[a.route])
    other_claims.sort(key=lambda a: -tables.lengths[a.route])
    out = [*target_claims, *other_claims[:OTHER_CLAIMS], *draws]
    if state.ticket_deck and (state.trains[player] >= TICKET_DRAW_MIN_TRAINS or not out):
        out.append(DRAW_TICKETS)
    if not out:
        return state.legal_action_list()
    return out


def rewards(state: GameState, margin_scale: float = 15.0, margin_weight: float = 0.4) -> list[float]:
    """Per-player reward in [0, 1]: a share of the win plus a squashed score margin."""
    result = state.result()
    totals = result.totals
    winners = result.winners
    out = []
    for player, total in enumerate(totals):
        best_other = max(t for q, t in enumerate(totals) if q != player)
        win = 1.0 / len(winners) if player in winners else 0.0
        margin = 1.0 / (1.0 + math.exp(-(total - best_other) / margin_scale))
        out.append((1.0 - margin_weight) * win + margin_weight * margin)
    return out


class MCTSAgent:
    """ISMCTS over determinized samples of the agent's view.

    ``iterations`` bounds the work (deterministic given ``seed``); ``time_limit``
    (seconds) is an optional cap on top of it, for interactive play.
    """

    def __init__(
        self,
        iterations: int = 400,
        time_limit: float | None = None,
        exploration: float = 0.7,
        seed: int | None = None,
        name: str = "mcts",
    ) -> None:
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.name = name
        self.last_iterations = 0

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        root = Node(-1)
        policy = RolloutPolicy(self.rng, view.board)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        legal_set = set(legal)
        done = 0
        while done < self.iterations:
            self._iterate(root, view, policy)
            done += 1
            if deadline is not None and time.perf_counter() > deadline:
                break
        self.last_iterations = done
        ranked = sorted(root.children.items(), key=lambda item: (item[1].visits, item[1].reward), reverse=True)
        for action, _ in ranked:
            if action in legal_set:
                return action
        # A claim's cheapest payment may fill its groups differently from the listed
        # options; it is legal all the same (the own hand and the board are known).
        check = view.determinize(self.rng)
        for action, _ in ranked:
            if check.is_legal(action):
                return action
        return legal[0]

    def _iterate(self, root: Node, view: PlayerView, policy: RolloutPolicy) -> None:
        state = view.determinize(self.rng)
        policy._targets.clear()
        node = root
        path: list[Node] = []
        while not state.is_over:
            actions = candidate_actions(state, policy)
            actor = state.current
            children = node.children
            untried = None
            for action in actions:
                child = children.get(action)
                if child is None:
                    if untried is None:
                        untried = action
                else:
                    child.available += 1
            if untried is not None:
                child = Node(actor)
                child.available = 1
                children[untried] = child
                state.apply_unchecked(untried)
                path.append(child)
                break
            best = None
            best_value = -1.0
            c = self.exploration
            for action in actions:
                child = children[action]
                value = child.reward / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                if value > best_value:
                    best_value, best = value, action
            assert best is not None
            node = children[best]
            state.apply_unchecked(best)
            path.append(node)
        if not state.is_over:
            policy.play_out(state)
        scores = rewards(state)
        for node in path:
            node.visits += 1
            node.reward += scores[node.actor]


class HeuristicAgent:
    """The rollout policy played directly from a determinized sample of the view.

    Every decision the policy makes depends only on the agent's own hand and
    tickets and on public information, so the sample's hidden parts do not matter.
    """

    def __init__(self, seed: int | None = None, name: str = "heuristic") -> None:
        self.rng = random.Random(seed)
        self.name = name

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        state = view.determinize(self.rng)
        action = RolloutPolicy(self.rng, view.board).choose(state)
        return action if action in legal else legal[0]


def margin_reward(state: GameState, player: int) -> float:
    """A finished game's value for ``player``: the score margin over the best other
    player, plus a bonus for winning (in points, so that averages stay meaningful)."""
    result = state.result()
    totals = result.totals
    best_other = max(t for q, t in enumerate(totals) if q != player)
    win = 1.0 / len(result.winners) if player in result.winners else 0.0
    return totals[player] - best_other + 20.0 * win


class PairedSearchAgent:
    """Determinized Monte Carlo search with paired samples and successive halving.

    Each round draws samples of the hidden information; every candidate action
    is evaluated on the *same* samples with the *same* rollout randomness, so the
    comparison between candidates sees the effect of the action rather than the
    luck of the draw. After each round the worse half of the candidates is
    dropped, so most rollouts go to the moves that matter. ``rollouts`` bounds
    the total work (deterministic given ``seed``); ``time_limit`` caps it.
    """

    def __init__(
        self,
        rollouts: int = 300,
        time_limit: float | None = None,
        max_candidates: int = 10,
        seed: int | None = None,
        name: str = "paired",
    ) -> None:
        self.rollouts = rollouts
        self.time_limit = time_limit
        self.max_candidates = max_candidates
        self.rng = random.Random(seed)
        self.name = name
        self.last_rollouts = 0

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        me = view.player
        probe = view.determinize(self.rng)
        policy = RolloutPolicy(self.rng, view.board)
        candidates = candidate_actions(probe, policy)
        if len(candidates) <= 1:
            return candidates[0] if candidates and probe.is_legal(candidates[0]) else legal[0]
        default = policy.choose(probe)
        if default in candidates:
            candidates.remove(default)
        candidates = [default, *candidates[: self.max_candidates - 1]]
        totals = dict.fromkeys(candidates, 0.0)
        counts = dict.fromkeys(candidates, 0)
        alive = list(candidates)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        budget = self.rollouts
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        used = 0
        for round_index in range(rounds):
            per_candidate = max(1, budget // (len(alive) * (rounds - round_index)))
            for _ in range(per_candidate):
                sample = view.determinize(self.rng)
                seed = self.rng.getrandbits(32)
                for action in alive:
                    state = sample.clone()
                    state.apply_unchecked(action)
                    if not state.is_over:
                        RolloutPolicy(random.Random(seed), view.board).play_out(state)
                    totals[action] += margin_reward(state, me)
                    counts[action] += 1
                used += len(alive)
                if deadline is not None and time.perf_counter() > deadline:
                    break
            budget -= per_candidate * len(alive)
            if deadline is not None and time.perf_counter() > deadline:
                break
            if len(alive) > 1:
                alive.sort(key=lambda a: totals[a] / counts[a], reverse=True)
                alive = alive[: max(1, (len(alive) + 1) // 2)]
        self.last_rollouts = used
        best = max(alive, key=lambda a: (totals[a] / counts[a], a is default))
        if best in legal or probe.is_legal(best):
            return best
        return legal[0]

"""Decision quality of the turn search, offline: regret against a deep estimate of each candidate.

Positions come from Route Focus games (an ordinary turn at a random point of each game, the seat
to move). At each position the turn search's candidates (``RolloutSearchAgent._turn_candidates``
with the ``turn_search`` settings) are valued deeply: ``--truth-samples`` samples of the seat's
view (unseen cards dealt at random, opponents' tickets inferred, as the search samples), every
candidate played on every sample and finished by Route Focus for every seat, scored by the margin
over the best other plus the win bonus (``rollout_value``). The best of those means is the
reference; a decision's regret is how far below it the chosen candidate's mean lies.

Each variant then runs the real search (``_search``) ``--reps`` times with a fixed rollout budget
(no clock, so the machine's load does not change the decisions) and its mean regret is printed
beside the regret of simply playing the Route Focus move (``candidates[0]``), with the standard
error of the paired difference over positions, and the CPU seconds a search took. Variants:

* ``own``: the shipped settings (with three players the leaf is the value model from the seat's
  own view);
* ``sym``: the leaf judged from every seat's view (own margin minus the best other's, halved;
  own win probability over the sum of all);
* ``h36``: rollouts cut after 36 actions instead of 24;
* ``c2``: a challenger must beat the Route Focus move by 2 standard errors instead of 1;
* ``h12``: rollouts cut after 12 actions (a less noisy, more biased leaf);
* ``h12x2``: the same with twice the rollouts (about the CPU of the shipped search);
* ``blk``: the shipped settings searching the candidates plus, with ``--block-candidates``, a
  claim per opponent on the route its inferred tickets need most (as the two-player search's
  blocking claim; with three players the agent does not look for these).

With ``--block-candidates`` those blocking claims are valued deeply too and every regret is taken
against the best of the larger set, so the Route Focus row shows the headroom they add; the other
variants still search the agent's own candidates.

The deep means are noisy too, so every regret, the Route Focus move's included, is biased up by
about the same amount: compare the variants' rows with each other and with the Route Focus row.

    .venv/bin/python benchmarks/turn_regret.py --players 3 --positions 40 --truth-samples 100
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable

import ttr_nordic.ai.expert as expert
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.registry import TURN_SEARCH_SETTINGS
from ttr_nordic.ai.value import evaluate
from ttr_nordic.engine import Action, GameState, PlayerView

Leaf = Callable[[GameState, int], float]
SHIPPED_LEAF: Leaf = expert.leaf_value


def every_side_leaf(state: GameState, player: int) -> float:
    """The value model from every seat's view: own margin minus the best other's, halved, plus
    the win bonus times the own win probability over the sum of all seats' (two players: the
    shipped leaf)."""
    if state.is_over:
        return expert.rollout_value(state, player, "margin")
    judged = [evaluate(state.view(q, log=False)) for q in range(state.num_players)]
    margin, p_win = judged[player]
    best_other = max(m for q, (m, _) in enumerate(judged) if q != player)
    return (margin - best_other) / 2 + expert.WIN_BONUS * p_win / sum(w for _, w in judged)


# name -> (leaf, horizon, confidence, rollouts as a multiple of --budget)
VARIANTS: dict[str, tuple[Leaf, int, float, int]] = {
    "own": (SHIPPED_LEAF, 24, 1.0, 1),
    "sym": (every_side_leaf, 24, 1.0, 1),
    "h36": (SHIPPED_LEAF, 36, 1.0, 1),
    "c2": (SHIPPED_LEAF, 24, 2.0, 1),
    "h12": (SHIPPED_LEAF, 12, 1.0, 1),
    "h12x2": (SHIPPED_LEAF, 12, 1.0, 2),
    "blk": (SHIPPED_LEAF, 24, 1.0, 1),
}


def positions(players: int, count: int, rng: random.Random) -> list[GameState]:
    """``count`` ordinary turns, one per Route Focus game, at a random turn of each."""
    out: list[GameState] = []
    while len(out) < count:
        state = GameState.new(players=players, seed=rng.getrandbits(32))
        agents = [RouteFocusAgent(seed=rng.getrandbits(32)) for _ in range(players)]
        first_turn = rng.randrange(10, 90)
        while not state.is_over:
            player = state.decision.player
            if state.phase.name == "CHOOSE_ACTION" and state.turn >= first_turn:
                out.append(state.clone())
                break
            state.apply(agents[player].choose(state.view(player), state.legal_action_list()), player)
    return out


def searcher(seed: int, horizon: int = 24, confidence: float = 1.0) -> expert.RolloutSearchAgent:
    settings = {**TURN_SEARCH_SETTINGS, "horizon": horizon}
    agent = expert.RolloutSearchAgent(seed=seed, name="turn_search", **settings)
    agent.confidence = confidence
    return agent


def blocking_claims(agent: expert.RolloutSearchAgent, view: PlayerView, legal: list[Action]) -> list[Action]:
    """Per opponent, the agent's blocking claim against it (the two-player search's
    ``_blocking_claims``), if any."""
    claims = expert.top_claims(view, legal)
    out: list[Action] = []
    for opponent in range(view.num_players):
        if opponent != view.player:
            out.extend(c for c in agent._blocking_claims(view, claims, opponent) if c not in out)
    return out


def deep_values(position: GameState, candidates: list[Action], samples: int, rng: random.Random) -> list[float]:
    """Each candidate's mean value over ``samples`` common samples, played to the end."""
    me = position.current
    view = position.view(me)
    agent = searcher(rng.getrandbits(32))
    totals = [0.0] * len(candidates)
    for _ in range(samples):
        sample = agent.sample(view)
        seed = rng.getrandbits(31)
        for index, action in enumerate(candidates):
            state = sample.clone()
            state.apply_unchecked(action)
            expert.play_out(state, seed, policy=expert.LightRouteFocus)
            totals[index] += expert.rollout_value(state, me, "margin")
    return [t / samples for t in totals]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3, choices=(2, 3))
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--truth-samples", type=int, default=100)
    parser.add_argument("--budget", type=int, default=TURN_SEARCH_SETTINGS["turn_rollouts"])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument(
        "--block-candidates", action="store_true", help="value blocking claims too (see the module docstring)"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rf_regrets: list[float] = []
    regrets: dict[str, list[float]] = {name: [] for name in args.variants}
    seconds: dict[str, list[float]] = {name: [] for name in args.variants}
    blocks_offered = blocks_best = 0
    for position in positions(args.players, args.positions, rng):
        view = position.view(position.current)
        legal = position.legal_action_list()
        agent = searcher(rng.getrandbits(32))
        candidates = agent._turn_candidates(view, legal, agent.base.choose(view, legal))
        extra: list[Action] = []
        if args.block_candidates:
            extra = [c for c in blocking_claims(agent, view, legal) if c not in candidates]
        everything = candidates + extra
        values = deep_values(position, everything, args.truth_samples, rng)
        deep = dict(zip(everything, values, strict=True))
        blocks_offered += bool(extra)
        blocks_best += bool(extra) and max(deep[c] for c in extra) > max(deep[c] for c in candidates)
        best = max(values)
        rf_regrets.append(best - values[0])
        for name in args.variants:
            leaf, horizon, confidence, budget_factor = VARIANTS[name]
            expert.leaf_value = leaf  # the search looks the leaf up in its module
            chosen: list[float] = []
            for _ in range(args.reps):
                variant = searcher(rng.getrandbits(32), horizon, confidence)
                variant.base.choose(view, legal)
                started = time.process_time()
                searched = everything if name == "blk" else candidates
                action = variant._search(view, list(searched), args.budget * budget_factor, None)
                seconds[name].append(time.process_time() - started)
                chosen.append(best - deep[action])
            expert.leaf_value = SHIPPED_LEAF
            regrets[name].append(statistics.fmean(chosen))
        print(
            f"position {len(rf_regrets)}: {len(candidates)} candidates, "
            f"the Route Focus move {rf_regrets[-1]:.2f} below the best",
            flush=True,
        )
    n = len(rf_regrets)
    print(f"positions {n}, players {args.players}, truth samples {args.truth_samples}, budget {args.budget}")
    print(f"route_focus_move regret {statistics.fmean(rf_regrets):.3f}")
    if args.block_candidates:
        print(f"positions with a blocking claim {blocks_offered}, where one is the best candidate {blocks_best}")
    for name in args.variants:
        diffs = [r - f for r, f in zip(regrets[name], rf_regrets, strict=True)]
        error = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")
        print(
            f"{name} regret {statistics.fmean(regrets[name]):.3f} "
            f"vs_route_focus_move {statistics.fmean(diffs):+.3f} (se {error:.3f}) "
            f"cpu_s {statistics.fmean(seconds[name]):.3f}"
        )


if __name__ == "__main__":
    main()

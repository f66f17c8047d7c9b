"""The value model against Route Focus rollouts, as predictors of the final margin.

    python scripts/value_vs_rollouts.py --players 2 --games 120 --seed 77 --workers 2

Positions come from fresh games of the data set's agent mix (``ai/value/data.py``; a seed the
training data did not use), a few per game from one seat's view. Each position is scored by

* the shipped model (``evaluate``: the expected margin), and
* the mean margin of k rollouts (k = 1, 6, 24): each a sample of the hidden cards and tickets
  consistent with the seat's view (``PlayerView.determinize``) played to the end by Route
  Focus for every player (``LightRouteFocus``, the expert's rollout policy),

and every predictor is compared with the margin the game really ended with: R² by game stage,
and the time one prediction costs. "Equal cost" is the model's row against a single rollout, the
cheapest a rollout predictor can be (about a hundred times slower).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from ttr_nordic.ai.expert import LightRouteFocus, play_out
from ttr_nordic.ai.registry import make_agent
from ttr_nordic.ai.value import evaluate
from ttr_nordic.ai.value.data import AGENT_MIX, DataConfig, NoisyAgent
from ttr_nordic.ai.value.features import FEATURE_NAMES, features
from ttr_nordic.engine import GameState

KS = (1, 6, 24)
STAGES = ((0.0, 0.33), (0.33, 0.66), (0.66, 1.01))
STAGE = FEATURE_NAMES.index("stage")


def one_game(args: tuple[int, int, int, int]) -> list[dict[str, float]]:
    """Play one game and score ``per_game`` of its positions: a dict per position."""
    players, seed, game, per_game = args
    config = DataConfig(players=players, seed=seed)
    rng = random.Random(f"{config.seed}/{config.players}/{game}/vs-rollouts")
    agents = [
        NoisyAgent(
            make_agent(rng.choice(AGENT_MIX), rng.getrandbits(32)), config.noise, random.Random(rng.getrandbits(32))
        )
        for _ in range(players)
    ]
    state = GameState.new(players=players, seed=rng.getrandbits(32))
    # A view is a snapshot (tuples): keep one per decision, from a random seat, and score a few.
    views = []
    while not state.is_over:
        views.append(state.view(rng.randrange(players), log=False))
        player = state.decision.player
        state.apply(agents[player].choose(state.view(player), state.legal_action_list()), player)
    totals = state.result().totals
    out = []
    for view in rng.sample(views, min(per_game, len(views))):
        seat = view.player
        best_other = max(t for q, t in enumerate(totals) if q != seat)
        row = {"actual": float(totals[seat] - best_other), "stage": features(view)[STAGE]}
        start = time.perf_counter()
        row["model"] = evaluate(view)[0]
        row["model_s"] = time.perf_counter() - start
        margins = []
        start = time.perf_counter()
        for _ in range(max(KS)):
            sample = view.determinize(random.Random(rng.getrandbits(64)))
            play_out(sample, seed=rng.getrandbits(31), policy=LightRouteFocus)
            final = sample.result().totals
            margins.append(final[seat] - max(t for q, t in enumerate(final) if q != seat))
        row["rollout_s"] = (time.perf_counter() - start) / max(KS)
        for k in KS:
            row[f"rollouts_{k}"] = statistics.fmean(margins[:k])
        out.append(row)
    return out


def r2(pairs: list[tuple[float, float]]) -> float:
    """The R² of ``predicted`` as a predictor of ``actual`` (1 - SSE / SST)."""
    actual = [a for a, _ in pairs]
    mean = statistics.fmean(actual)
    sst = sum((a - mean) ** 2 for a in actual)
    sse = sum((a - p) ** 2 for a, p in pairs)
    return 1.0 - sse / sst if sst else float("nan")


def r2_fitted(pairs: list[tuple[float, float]]) -> float:
    """The squared correlation: the R² after the best linear rescaling of the predictor (what a
    search that only compares positions needs)."""
    actual = [a for a, _ in pairs]
    predicted = [p for _, p in pairs]
    if statistics.pstdev(actual) == 0 or statistics.pstdev(predicted) == 0:
        return float("nan")
    return statistics.correlation(actual, predicted) ** 2


def table(
    rows: list[dict[str, float]], predictors: list[str], score: Callable[[list[tuple[float, float]]], float], title: str
) -> None:
    print(title)
    print(f"{'stage':<12}{'positions':>10}" + "".join(f"{p:>14}" for p in predictors))
    for low, high in (*STAGES, (0.0, 1.01)):
        part = [r for r in rows if low <= r["stage"] < high]
        if len(part) < 3:
            continue
        label = "all" if (low, high) == (0.0, 1.01) else f"{low:.2f}-{min(high, 1.0):.2f}"
        cells = "".join(f"{score([(r['actual'], r[p]) for r in part]):>14.3f}" for p in predictors)
        print(f"{label:<12}{len(part):>10}{cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--per-game", type=int, default=3)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    jobs = [(args.players, args.seed, g, args.per_game) for g in range(args.games)]
    rows: list[dict[str, float]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(one_game, jobs):
            rows.extend(part)
    predictors = ["model", *(f"rollouts_{k}" for k in KS)]
    print(f"{args.players} players, {args.games} games (seed {args.seed}), {len(rows)} positions")
    table(rows, predictors, r2, "R² as a predictor of the final margin (1 - SSE/SST, no fitting):")
    table(rows, predictors, r2_fitted, "R² after a linear fit (squared correlation):")
    model_ms = 1000 * statistics.median(r["model_s"] for r in rows)
    rollout_ms = 1000 * statistics.median(r["rollout_s"] for r in rows)
    print(
        f"cost per prediction (median): model {model_ms:.2f} ms; "
        + ", ".join(f"{k} rollouts {k * rollout_ms:.0f} ms" for k in KS)
    )


if __name__ == "__main__":
    main()

"""Time of the value model's inference: features from a view, and the whole evaluate().

    python benchmarks/value_speed.py [--positions 300]

Positions come from Route Focus games (2 and 3 players) at every stage; prints the mean and
the 99th percentile per call in microseconds: features, evaluate, and the calibrated chances of
every seat of a position (one view per seat, as the replay's chart computes them). Figures
depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from ttr_nordic.ai import RouteFocusAgent
from ttr_nordic.ai.value import evaluate, features, load_model
from ttr_nordic.ai.value.calibration import calibrated_chances
from ttr_nordic.engine import GameState, PlayerView


def positions(players: int, count: int, seed: int) -> list[PlayerView]:
    views: list[PlayerView] = []
    game = 0
    while len(views) < count:
        state = GameState.new(players=players, seed=seed + game)
        agents = [RouteFocusAgent(seed=seed + game * 7 + p) for p in range(players)]
        while not state.is_over and len(views) < count:
            p = state.decision.player
            views.append(state.view(p, log=False))
            state.apply(agents[p].choose(state.view(p), state.legal_action_list()), p)
        game += 1
    return views


def seat_views(players: int, count: int, seed: int) -> list[list[PlayerView]]:
    """``count`` positions of Route Focus games, each as every seat sees it."""
    out: list[list[PlayerView]] = []
    game = 0
    while len(out) < count:
        state = GameState.new(players=players, seed=seed + game)
        agents = [RouteFocusAgent(seed=seed + game * 7 + p) for p in range(players)]
        while not state.is_over and len(out) < count:
            out.append([state.view(q, log=False) for q in range(players)])
            p = state.decision.player
            state.apply(agents[p].choose(state.view(p), state.legal_action_list()), p)
        game += 1
    return out


def timed(fn: object, views: list[PlayerView], repeat: int) -> list[float]:
    out = []
    for view in views:
        start = time.perf_counter()
        for _ in range(repeat):
            fn(view)  # type: ignore[operator]
        out.append((time.perf_counter() - start) / repeat * 1e6)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    load_model()
    for players in (2, 3):
        views = positions(players, args.positions, seed=1000)
        for label, fn in (("features", features), ("evaluate", evaluate)):
            us = sorted(timed(fn, views, args.repeat))
            p99 = us[min(len(us) - 1, int(0.99 * len(us)))]
            mean = statistics.fmean(us)
            print(f"{players} players, {label:8s}: mean {mean:7.1f} us, p99 {p99:7.1f} us ({len(us)} positions)")
        seats = seat_views(players, args.positions, seed=1000)
        us = sorted(timed(calibrated_chances, seats, args.repeat))  # type: ignore[arg-type]
        p99 = us[min(len(us) - 1, int(0.99 * len(us)))]
        print(f"{players} players, chances : mean {statistics.fmean(us):7.1f} us, p99 {p99:7.1f} us (all seats)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Engine speed: uniform random games on one core.

Each run plays the same games (seeds ``0 .. games-1``): every decision lists
the legal actions with ``GameState.legal_action_list()`` and applies one chosen
uniformly at random with ``apply_unchecked``. The listing calls are timed on
their own (``time.perf_counter`` around each call; that timing is included in
the games/s figure, at well under 1% of it).

The engine caches claim candidates per hand across games (one cache per
board, shared by every game in the process), so the first run starts cold and later runs, which replay the same
games, find every hand cached. The first run's figure is printed and labelled
as cold; an extra run on seeds not played before (warm cache, new games) is
printed apart, as the figure that new games get; the medians are over the
``--runs`` runs. The last line is ``games_per_second <median of the runs>``.

    .venv/bin/python benchmarks/engine_speed.py [--games 300] [--runs 5] [--players 2]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import NamedTuple

_SRC = Path(__file__).resolve().parent.parent / "src"
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from ttr_nordic.engine import GameState  # noqa: E402


class RunResult(NamedTuple):
    seconds: float
    listing_seconds: float
    listings: int
    actions: int
    games: int

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def listing_us(self) -> float:
        return 1e6 * self.listing_seconds / self.listings


def run_games(seeds: range, players: int) -> RunResult:
    """Play one random game per seed and time them."""
    perf = time.perf_counter
    listing = 0.0
    listings = 0
    actions = 0
    start = perf()
    for seed in seeds:
        state = GameState.new(players=players, seed=seed)
        choose = random.Random(seed).choice
        apply = state.apply_unchecked
        legal_action_list = state.legal_action_list
        while not state.is_over:
            t0 = perf()
            legal = legal_action_list()
            listing += perf() - t0
            apply(choose(legal))
            listings += 1
        actions += len(state.history)
    return RunResult(perf() - start, listing, listings, actions, len(seeds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per run (default 300)")
    parser.add_argument("--runs", type=int, default=5, help="runs, each playing the same games (default 5)")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    parser.add_argument(
        "--no-unseen",
        action="store_true",
        help="skip the extra run on seeds not played before (reported apart, not in the medians)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")

    print(
        f"engine_speed: {args.runs} runs x {args.games} random {args.players}-player games, one process "
        f"(Python {platform.python_version()}, {platform.machine()})"
    )
    seeds = range(args.games)
    results = []
    for index in range(args.runs):
        result = run_games(seeds, args.players)
        results.append(result)
        label = "  (cold: first run, empty claim cache)" if index == 0 else ""
        print(
            f"run {index + 1}: {result.games_per_second:8.1f} games/s  "
            f"{result.listing_us:6.2f} us per legal_action_list  "
            f"({result.actions / result.games:.1f} actions/game, "
            f"{100 * result.listing_seconds / result.seconds:.0f}% of the time listing){label}"
        )
    rates = [r.games_per_second for r in results]
    listing = [r.listing_us for r in results]
    print(f"cold first run: {rates[0]:.1f} games/s, {listing[0]:.2f} us per legal_action_list")
    if len(results) > 1:
        warm = "warm run 2" if len(results) == 2 else f"median of the warm runs 2-{len(results)}"
        print(
            f"{warm}: {statistics.median(rates[1:]):.1f} games/s, "
            f"{statistics.median(listing[1:]):.2f} us per legal_action_list"
        )
    if not args.no_unseen:
        # Runs 2.. replay the very games of run 1, so every hand they meet is already cached:
        # new games with the cache warm show what search or simulation on fresh games gets.
        unseen = run_games(range(10**6, 10**6 + args.games), args.players)
        print(
            f"unseen seeds after the runs (warm cache, new games; not in the medians): "
            f"{unseen.games_per_second:.1f} games/s, {unseen.listing_us:.2f} us per legal_action_list"
        )
    print(
        f"median of all {len(results)} runs: {statistics.median(rates):.1f} games/s, "
        f"{statistics.median(listing):.2f} us per legal_action_list"
    )
    print(f"games_per_second {statistics.median(rates):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

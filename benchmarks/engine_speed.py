"""Engine speed: uniform random games on one core.

Every decision lists the legal actions with ``GameState.legal_action_list()``
and applies one chosen uniformly at random with ``apply_unchecked``. The
listing calls are also timed on their own (``time.perf_counter`` around each
call). Each run plays games never played before in this process (run k plays
seeds ``k*games .. (k+1)*games-1``). The engine caches claim candidates per
hand, so the first run starts with an empty cache; later runs benefit from
hands already met, as any long simulation does, but never replay a game.
Before each run the garbage collector's survivors so far (the board, the claim
caches) are moved to its permanent generation with ``gc.freeze()``, as a long
simulation would do after warming up: its full collections then stop rescanning
the caches. ``--no-freeze`` measures without it.
The last line is ``games_per_second <median of the runs>``.

    .venv/bin/python benchmarks/engine_speed.py [--games 1000] [--runs 5] [--players 2] [--no-freeze]

``--policy route_focus`` plays Route Focus against Route Focus instead, the way tournaments
play (``ai.base.play_game``: a view per decision, every action checked; Route Focus gets views
without the log and the legal actions as an engine ``LegalSequence``), default 100 games per
run; there the agents' thinking is part of the time.

``--variant FILE`` plays the games under a rule variant or on a custom board (see
docs/variants.md), e.g. ``--variant examples/variants/small-board.toml``.
"""

from __future__ import annotations

import argparse
import gc
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
from ttr_nordic.engine.variant import Variant, VariantError, load_variant  # noqa: E402


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


def run_games(seeds: range, players: int, variant: Variant | None = None) -> RunResult:
    """Play one random game per seed and time them."""
    perf = time.perf_counter
    listing = 0.0
    listings = 0
    actions = 0
    start = perf()
    for seed in seeds:
        state = GameState.new(players=players, seed=seed, variant=variant)
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


def run_route_focus_games(seeds: range, players: int, variant: Variant | None = None) -> RunResult:
    """Play one Route Focus game per seed as tournaments do, and time them."""
    # Imported here: the random-play figure needs only the engine.
    from ttr_nordic.ai.base import play_game
    from ttr_nordic.ai.baselines import RouteFocusAgent

    perf = time.perf_counter
    actions = 0
    start = perf()
    for seed in seeds:
        agents = [RouteFocusAgent(seed=seed * players + seat) for seat in range(players)]
        actions += len(play_game(agents, seed=seed, variant=variant).history)
    # The listings are not timed apart here (the agents' time is in the total).
    return RunResult(perf() - start, 0.0, 0, actions, len(seeds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--policy",
        choices=("random", "route_focus"),
        default="random",
        help="uniform random play (default) or Route Focus against Route Focus",
    )
    parser.add_argument("--games", type=int, help="games per run (default 1000 random, 100 Route Focus)")
    parser.add_argument("--runs", type=int, default=5, help="runs, each on new seeds (default 5)")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave the garbage collector alone (no gc.freeze() between runs)"
    )
    parser.add_argument("--variant", metavar="FILE", help="a variant file (.toml or .json): its rules and board")
    args = parser.parse_args(argv)
    variant = None
    if args.variant is not None:
        try:
            variant = load_variant(args.variant)
            variant.check_players(args.players)
        except VariantError as exc:
            parser.error(str(exc))
    if args.games is None:
        args.games = 1000 if args.policy == "random" else 100
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")

    print(
        f"engine_speed: {args.runs} runs x {args.games} {args.policy.replace('_', ' ')} {args.players}-player games, "
        "one process "
        f"(Python {platform.python_version()}, {platform.machine()}, "
        f"{'no gc.freeze' if args.no_freeze else 'gc.freeze() before each run'})"
        + ("" if variant is None else f", variant {variant.name}")
    )
    run = run_games if args.policy == "random" else run_route_focus_games
    results = []
    for index in range(args.runs):
        if not args.no_freeze:
            gc.collect()
            gc.freeze()
        # Every run plays games never played before in this process.
        seeds = range(index * args.games, (index + 1) * args.games)
        result = run(seeds, args.players, variant)
        results.append(result)
        label = "  (first run: the claim cache starts empty)" if index == 0 else ""
        if result.listings:
            detail = (
                f"{result.listing_us:6.2f} us per legal_action_list  "
                f"({result.actions / result.games:.1f} actions/game, "
                f"{100 * result.listing_seconds / result.seconds:.0f}% of the time listing)"
            )
        else:
            detail = f"({result.actions / result.games:.1f} actions/game)"
        print(f"run {index + 1}: {result.games_per_second:8.1f} games/s  {detail}{label}")
    rates = [r.games_per_second for r in results]
    if args.policy == "random":
        listing = [r.listing_us for r in results]
        print(f"median us per legal_action_list {statistics.median(listing):.2f}")
    print(f"games_per_second {statistics.median(rates):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

    .venv/bin/python benchmarks/engine_speed.py [--games N] [--runs 5] [--players 2] [--no-freeze]
        [--engine auto|core|python] [--cpu-time]

``--engine``: the games run on the compiled core (``ttr_nordic.fast``) where it is built
(``auto``, the default; default 20,000 random or 2,000 Route Focus games per run), else on the
Python engine (``python``; default 1,000 or 100). The core plays the very same games (same deals,
same ``random.Random(seed).choice`` over the same legal lists, or the same Route Focus choices;
``tests/fast/`` checks it), all in C: one call per run.
``--cpu-time`` divides by the process's CPU time instead of the wall clock (on a shared, loaded
machine the wall clock counts other programs' time too).

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
from collections.abc import Callable
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


def run_games(
    seeds: range, players: int, variant: Variant | None = None, clock: Callable[[], float] = time.perf_counter
) -> RunResult:
    """Play one random game per seed and time them."""
    perf = clock
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


def run_core_games(
    seeds: range, players: int, variant: Variant | None = None, clock: Callable[[], float] = time.perf_counter
) -> RunResult:
    """Play the same random games in the compiled core (one call) and time them."""
    from ttr_nordic.fast import play_random_games

    start = clock()
    actions, _ = play_random_games(players, seeds.start, len(seeds))
    return RunResult(clock() - start, 0.0, 0, actions, len(seeds))


def run_core_route_focus_games(
    seeds: range, players: int, variant: Variant | None = None, clock: Callable[[], float] = time.perf_counter
) -> RunResult:
    """Play the same Route Focus games in the compiled core (its Route Focus agents) and time them."""
    from ttr_nordic.fast import play_route_focus_games

    start = clock()
    actions, _ = play_route_focus_games(players, seeds.start, len(seeds))
    return RunResult(clock() - start, 0.0, 0, actions, len(seeds))


def run_route_focus_games(
    seeds: range, players: int, variant: Variant | None = None, clock: Callable[[], float] = time.perf_counter
) -> RunResult:
    """Play one Route Focus game per seed as tournaments do, and time them."""
    # Imported here: the random-play figure needs only the engine.
    from ttr_nordic.ai.base import play_game
    from ttr_nordic.ai.baselines import RouteFocusAgent

    perf = clock
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
    parser.add_argument(
        "--engine",
        choices=("auto", "core", "python"),
        default="auto",
        help="random games on the compiled core where built (auto, default), the core, or the Python engine",
    )
    parser.add_argument("--cpu-time", action="store_true", help="rates per CPU-second of this process")
    args = parser.parse_args(argv)
    variant = None
    if args.variant is not None:
        try:
            variant = load_variant(args.variant)
            variant.check_players(args.players)
        except VariantError as exc:
            parser.error(str(exc))
    from ttr_nordic import fast

    if args.engine == "core" and not fast.AVAILABLE:
        parser.error(
            "the compiled core is not available (build it: python hatch_build.py; TTR_NORDIC_PURE_PYTHON unset)"
        )
    if args.engine == "core" and variant is not None:
        parser.error("the compiled core plays the official rules only: use --engine python with --variant")
    core = args.engine != "python" and fast.AVAILABLE and variant is None
    if args.games is None:
        args.games = (20_000 if core else 1000) if args.policy == "random" else (2000 if core else 100)
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")

    print(
        f"engine_speed: {args.runs} runs x {args.games} {args.policy.replace('_', ' ')} {args.players}-player games, "
        "one process "
        f"(Python {platform.python_version()}, {platform.machine()}, "
        f"{'no gc.freeze' if args.no_freeze else 'gc.freeze() before each run'}; "
        f"{'the compiled core' if core else 'the Python engine'}; "
        f"{'CPU time' if args.cpu_time else 'wall clock'})" + ("" if variant is None else f", variant {variant.name}")
    )
    if args.policy == "random":
        run = run_core_games if core else run_games
    else:
        run = run_core_route_focus_games if core else run_route_focus_games
    clock = time.process_time if args.cpu_time else time.perf_counter
    results = []
    for index in range(args.runs):
        if not args.no_freeze:
            gc.collect()
            gc.freeze()
        # Every run plays games never played before in this process.
        seeds = range(index * args.games, (index + 1) * args.games)
        result = run(seeds, args.players, variant, clock)
        results.append(result)
        label = "  (first run: the claim cache starts empty)" if index == 0 and not core else ""
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
    if args.policy == "random" and not core:
        listing = [r.listing_us for r in results]
        print(f"median us per legal_action_list {statistics.median(listing):.2f}")
    print(f"games_per_second {statistics.median(rates):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

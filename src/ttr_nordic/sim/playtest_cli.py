"""The ``ttr-nordic playtest`` and ``ttr-nordic tune`` subcommands.

    ttr-nordic playtest --agents A,B[,C] [--variant FILE] [--games N] [--players 2|3|2,3] [--seed S] [--workers K]
        [--backend process|ray] [--address ADDR] [--out DIR] [--figures DIR] [--all-records] [-q]
    ttr-nordic playtest --compare DIR_A DIR_B [--out DIR]

The first form plays the games and writes ``report.html`` and the CSV files into ``--out`` (default
``./playtest-<seed>``); the second reads two such folders and writes ``compare.html`` and
``compare.csv`` (default ``./playtest-compare``).

    ttr-nordic tune --agents A,B[,C] [--variant FILE] [--players 2,3] [--games N] [--tolerance T]
        [--scales S,S,...] [--step F] [--rounds R] [--seed S] [--workers K] [--out DIR]

searches ticket values (see :mod:`.playtest_tune`). Bad arguments exit with status 2 and one line on
stderr, a failure while playing with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..engine.variant import OFFICIAL, VariantError, load_variant
from .backends import BACKENDS, import_ray
from .cli import agent_list, positive_int, progress_display
from .play import TournamentError
from .playtest import PlaytestConfig, run_playtest, write_outputs
from .playtest_tune import DEFAULT_SCALES, DEFAULT_STEP
from .plots import require_matplotlib


def player_counts(text: str) -> tuple[int, ...]:
    """``--players``: 2, 3, or both as ``2,3``.

    >>> player_counts("3,2")
    (2, 3)
    """
    parts = [part.strip() for part in text.split(",")]
    if not parts or any(part not in ("2", "3") for part in parts):
        raise argparse.ArgumentTypeError(f"expected 2, 3 or 2,3, got {text!r}")
    return tuple(sorted({int(part) for part in parts}))


def add_playtest_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the playtest options to ``parser`` (a subparser of ``ttr-nordic``)."""
    parser.description = (
        "Play many AI games and write a designer's report: win rates by agent, seat and player count, "
        "score sources, game length, tickets, route usage and contention, city heat maps, tunnels, ferries "
        "and locomotives, and the states the rules settle by a convention, each with records to replay. "
        "With --compare, put two earlier playtests side by side."
    )
    parser.add_argument("--agents", type=agent_list, metavar="A,B[,C]", help="the lineup, comma-separated")
    parser.add_argument(
        "--games", type=positive_int, default=100, metavar="N", help="games per player count (default 100)"
    )
    parser.add_argument(
        "--players",
        type=player_counts,
        default=(2,),
        metavar="2|3|2,3",
        help="players per game; 2,3 plays N games at each count (default 2)",
    )
    parser.add_argument(
        "--variant", type=Path, metavar="FILE", help="the rules: a variant file, TOML or JSON (default: official)"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="playtest seed (default 0)")
    parser.add_argument(
        "--workers", type=positive_int, default=1, metavar="K", help="parallel workers; 1 plays in-process (default 1)"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="process", help="process pool or Ray (default process)")
    parser.add_argument("--address", metavar="ADDR", help="Ray cluster to connect to (with --backend ray)")
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="output folder (default ./playtest-<seed>, or ./playtest-compare)"
    )
    parser.add_argument("--figures", type=Path, metavar="DIR", help="also write each figure of the report as PNG")
    parser.add_argument(
        "--all-records", action="store_true", help="keep every game's record (default: the edge cases' only)"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("DIR_A", "DIR_B"),
        help="compare two earlier playtest output folders instead of playing",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    parser.set_defaults(func=run_command, playtest_parser=parser)


def run_command(args: argparse.Namespace) -> int:
    """Run the playtest (or the comparison) the parsed arguments describe."""
    parser: argparse.ArgumentParser = args.playtest_parser
    if args.compare is not None:
        from .playtest_compare import CompareError, compare_command

        if args.agents is not None:
            parser.error("--compare reads two earlier playtests: it takes no --agents")
        try:
            return compare_command(args.compare[0], args.compare[1], args.out or Path("playtest-compare"))
        except CompareError as exc:
            parser.error(str(exc))
    if args.agents is None:
        parser.error("the following argument is required: --agents (or --compare DIR_A DIR_B)")
    try:
        variant = OFFICIAL if args.variant is None else load_variant(args.variant)
    except VariantError as exc:
        parser.error(f"--variant: {exc}")
    try:
        config = PlaytestConfig(
            agents=tuple(args.agents),
            games=args.games,
            players=args.players,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            variant=variant,
        )
        if args.address and args.backend != "ray":
            raise TournamentError("--address needs --backend ray")
        if args.backend == "ray":
            import_ray()
        require_matplotlib()
    except TournamentError as exc:
        parser.error(str(exc))  # exits with status 2
    out: Path = args.out if args.out is not None else Path(f"playtest-{config.seed}")
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file, not a folder")
    total = config.games * len(config.players)
    counts = " and ".join(str(p) for p in config.players)
    print(
        f"playtest: {config.games} games at {counts} players, agents {', '.join(config.agents)}, seed {config.seed}",
        file=sys.stderr,
    )
    start = time.perf_counter()
    try:
        with progress_display(total, enabled=not args.quiet) as advance:
            facts = run_playtest(config, on_games=advance)
    except TournamentError as exc:
        print(f"ttr-nordic playtest: {exc}", file=sys.stderr)
        return 1
    played = time.perf_counter() - start
    try:
        write_outputs(config, facts, out, args.figures, args.all_records)
    except OSError as exc:
        print(f"ttr-nordic playtest: error: cannot write to {out}: {exc}", file=sys.stderr)
        return 1
    print(f"{total} games in {played:.1f} s; report: {out / 'report.html'}", file=sys.stderr)
    print(out / "report.html")
    return 0


def scale_list(text: str) -> tuple[float, ...]:
    """``--scales``: positive factors separated by commas.

    >>> scale_list("0.8, 1, 1.25")
    (0.8, 1.0, 1.25)
    """
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not values or any(not 0.05 <= v <= 20 for v in values):
        raise argparse.ArgumentTypeError(f"each scale must lie between 0.05 and 20, got {text!r}")
    return values


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 0.5, got {value:g}")
    return value


def add_tune_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the tune options to ``parser`` (a subparser of ``ttr-nordic``)."""
    parser.description = (
        "Search ticket values so that every play style of the lineup wins about an even share: each "
        "participant's win rate within --tolerance of 1/players, at every player count of --players. "
        "Two knobs scale the short tickets (at most the median value) and the long ones; a grid of common "
        "scales (--scales) comes first, then each group is moved by --step for --rounds rounds. Every "
        "candidate plays the same seeds; the best is played again on fresh seeds. Writes "
        "tuned-variant.json (a variant file for --variant), tune.html (the report that justifies it), "
        "tune.csv (every candidate) and validation/ (a full playtest of the tuned rules) into --out."
    )
    parser.add_argument("--agents", required=True, type=agent_list, metavar="A,B[,C]", help="the play styles")
    parser.add_argument("--variant", type=Path, metavar="FILE", help="the rules to start from (default: official)")
    parser.add_argument(
        "--players", type=player_counts, default=(2, 3), metavar="2|3|2,3", help="player counts (default 2,3)"
    )
    parser.add_argument(
        "--games", type=positive_int, default=60, metavar="N", help="games per candidate and player count (default 60)"
    )
    parser.add_argument(
        "--tolerance", type=fraction, default=0.1, metavar="T", help="the band: 1/players ± T (default 0.1)"
    )
    parser.add_argument(
        "--scales",
        type=scale_list,
        default=DEFAULT_SCALES,
        metavar="S,S,...",
        help=f"common scales tried first (default {','.join(map(str, DEFAULT_SCALES))})",
    )
    parser.add_argument("--step", type=float, default=DEFAULT_STEP, metavar="F", help="refining factor (default 1.2)")
    parser.add_argument("--rounds", type=int, default=2, metavar="R", help="refining rounds (default 2; 0: none)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="search seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, metavar="K", help="parallel workers (default 1)")
    parser.add_argument("--backend", choices=BACKENDS, default="process", help="process pool or Ray (default process)")
    parser.add_argument("--address", metavar="ADDR", help="Ray cluster to connect to (with --backend ray)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="output folder (default ./tune-<seed>)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    parser.set_defaults(func=tune_command, tune_parser=parser)


def tune_command(args: argparse.Namespace) -> int:
    """Run the search the parsed arguments describe."""
    from .playtest_tune import TuneSettings, describe, search, settings_dict, write_tune

    parser: argparse.ArgumentParser = args.tune_parser
    if not 1 < args.step <= 3:
        parser.error(f"argument --step: must lie above 1 and at most 3, got {args.step:g}")
    if not 0 <= args.rounds <= 20:
        parser.error(f"argument --rounds: must lie from 0 to 20, got {args.rounds}")
    try:
        variant = OFFICIAL if args.variant is None else load_variant(args.variant)
    except VariantError as exc:
        parser.error(f"--variant: {exc}")
    try:
        playtest = PlaytestConfig(
            agents=tuple(args.agents),
            games=args.games,
            players=args.players,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            variant=variant,
        )
        if args.address and args.backend != "ray":
            raise TournamentError("--address needs --backend ray")
        if args.backend == "ray":
            import_ray()
        require_matplotlib()
    except TournamentError as exc:
        parser.error(str(exc))
    out: Path = args.out if args.out is not None else Path(f"tune-{args.seed}")
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file, not a folder")
    settings = TuneSettings(playtest, args.tolerance, args.scales, args.step, args.rounds)
    print(
        f"tune: ticket values for {', '.join(playtest.agents)} at {' and '.join(map(str, playtest.players))} players, "
        f"win rates within ±{args.tolerance:g} of an even share, {args.games} games per candidate and player count",
        file=sys.stderr,
    )

    def report(candidate: Any) -> None:
        if not args.quiet:
            print(describe(candidate), file=sys.stderr, flush=True)

    start = time.perf_counter()
    try:
        candidates = search(settings, report)
        best, validation = write_tune(settings, candidates, out)
        (out / "tune.json").write_text(json.dumps(settings_dict(settings), indent=1) + "\n", encoding="utf-8")
    except TournamentError as exc:
        print(f"ttr-nordic tune: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"ttr-nordic tune: error: cannot write to {out}: {exc}", file=sys.stderr)
        return 1
    rates = ", ".join(f"{r['players']}p {r['label']} {r['win_rate']:.3f}" for r in validation)
    print(
        f"{len(candidates)} candidates in {time.perf_counter() - start:.0f} s; chosen {best.index} "
        f"(short × {best.short:.3g}, long × {best.long:.3g}); validation: {rates}",
        file=sys.stderr,
    )
    print(out / "tuned-variant.json")
    return 0

"""The ``ttr-nordic ladder`` subcommand: rate agents together, and compare two versions sequentially.

    ttr-nordic ladder run  --db FILE --agents A,B,LABEL=module:factory,... [--players 2|3] [--games N]
                           [--seed S] [--workers K] [--backend process|ray] [--address ADDR] [--plot PNG]
    ttr-nordic ladder show --db FILE [--players 2|3] [--anchor LABEL] [--plot PNG] [--json FILE]
    ttr-nordic ladder sprt --db FILE --a LABEL=SPEC --b LABEL=SPEC [--h1 5] [--max-games N] [--workers K]

``run`` plays the games each table lacks (``--games`` per table), stores each batch as it comes
back, and prints the ratings; rerun it to resume or to extend. ``sprt`` plays A against B until the
sequential test on the mean margin decides (see :mod:`ttr_nordic.sim.sprt`). Bad arguments exit
with status 2, a failure while playing with status 1.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict
from pathlib import Path

from ..paths import data_dir
from .backends import BACKENDS
from .cli import positive_int, progress_display
from .ladder import Ladder, LadderError, format_table, parse_participant, plot_table, table_key
from .play import TournamentError
from .sprt import SequentialTest


def default_db() -> Path:
    """The ladder file when ``--db`` is not given: ``ladder.sqlite`` in the data folder."""
    return data_dir("ladder.sqlite")


def participant_list(text: str) -> list[tuple[str, str]]:
    try:
        entries = [parse_participant(part) for part in text.split(",") if part.strip()]
    except LadderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not entries:
        raise argparse.ArgumentTypeError(f"expected participants separated by commas, got {text!r}")
    labels = [label for label, _ in entries]
    if len(set(labels)) != len(labels):
        raise argparse.ArgumentTypeError("each participant needs its own label (LABEL=SPEC)")
    return entries


def participant(text: str) -> tuple[str, str]:
    try:
        return parse_participant(text)
    except LadderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


DB_HELP = "the ladder's SQLite file (default: ladder.sqlite in $XDG_DATA_HOME/ttr-nordic)"


def _backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, metavar="FILE", help=DB_HELP)
    parser.add_argument("--seed", type=int, metavar="S", help="ladder seed, fixed when the file is made (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, metavar="K", help="parallel workers (default 1)")
    parser.add_argument("--backend", choices=BACKENDS, default="process", help="process pool or Ray (default process)")
    parser.add_argument("--address", metavar="ADDR", help="Ray cluster address (default: RAY_ADDRESS or a local one)")
    parser.add_argument("--batch-size", type=positive_int, metavar="B", help="games per worker task")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress display")


def add_ladder_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ladder subcommands to ``parser`` (a subparser of ``ttr-nordic``)."""
    parser.description = "Rate agents and agent versions together, stored in SQLite; resumable."
    sub = parser.add_subparsers(dest="ladder_command", required=True)

    run = sub.add_parser("run", help="play the missing games and print the ratings")
    run.add_argument(
        "--agents",
        type=participant_list,
        metavar="A,B,...",
        help="participants to add: agent or level names, or LABEL=module:factory / LABEL=file.py:factory "
        "(default: every participant already in the ladder)",
    )
    run.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    run.add_argument("--games", type=positive_int, default=100, metavar="N", help="games per table (default 100)")
    run.add_argument("--only", metavar="LABEL", help="play only the tables where LABEL sits")
    _rating_arguments(run)
    _backend_arguments(run)
    run.set_defaults(func=guarded(run_command))

    show = sub.add_parser("show", help="print the ratings of the stored games")
    show.add_argument("--db", type=Path, metavar="FILE", help=DB_HELP)
    show.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    _rating_arguments(show)
    show.add_argument("--json", type=Path, metavar="FILE", help="also write the table as JSON")
    show.set_defaults(func=guarded(show_command))

    sprt = sub.add_parser("sprt", help="play A against B until a sequential test on the mean margin decides")
    sprt.add_argument("--a", type=participant, required=True, metavar="LABEL=SPEC", help="the candidate")
    sprt.add_argument("--b", type=participant, required=True, metavar="LABEL=SPEC", help="the baseline")
    sprt.add_argument("--h0", type=float, default=0.0, help="mean margin of A over B under H0 (default 0)")
    sprt.add_argument("--h1", type=float, default=5.0, help="mean margin of A over B under H1 (default +5)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    sprt.add_argument("--max-games", type=positive_int, default=2000, metavar="N", help="stop undecided (2000)")
    sprt.add_argument("--step", type=positive_int, metavar="N", help="games played between looks (default 4×K)")
    _backend_arguments(sprt)
    sprt.set_defaults(func=guarded(sprt_command))


def _rating_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--anchor", metavar="LABEL", help="the participant rated 0 (default route_focus or hard)")
    parser.add_argument("--bootstrap", type=int, default=200, metavar="N", help="bootstrap resamples (default 200)")
    parser.add_argument("--plot", type=Path, metavar="PNG", help="draw the ratings with their intervals")


def _open(args: argparse.Namespace, create: bool = True) -> Ladder:
    if args.db is None:
        args.db = default_db()
        if create:
            args.db.parent.mkdir(parents=True, exist_ok=True)
    return Ladder(args.db, seed=getattr(args, "seed", None), create=create)


def _report(ladder: Ladder, args: argparse.Namespace) -> None:
    quiet = getattr(args, "quiet", False)
    with progress_display(args.bootstrap, enabled=not quiet and args.bootstrap > 0, unit="resamples") as advance:
        table = ladder.table(args.players, anchor=args.anchor, bootstrap=args.bootstrap, on_sample=advance)
    print(format_table(table, ladder))
    if args.plot:
        print(f"plot: {plot_table(table, args.plot)}")
    if getattr(args, "json", None):
        payload = {
            "players": table.players,
            "anchor": table.anchor,
            "games": table.games,
            "ratings": [asdict(row) for row in table.rows],
            "pairs": [asdict(pair) for pair in table.pairs],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"json: {args.json}")
    print(f"ladder: {ladder.path}")


def run_command(args: argparse.Namespace) -> int:
    with _new_file_removed_on_error(args), _closing(_open(args)) as ladder:
        for label, spec in args.agents or []:
            ladder.add(label, spec)
        labels = [label for label, _ in args.agents] if args.agents else None
        todo = len(ladder.specs(args.players, args.games, labels, args.only))
        print(f"{args.db}: {todo} games to play ({args.games} per {args.players}-player table)", flush=True)
        with progress_display(todo, enabled=not args.quiet and todo > 0) as advance:
            ladder.play(
                args.players,
                args.games,
                labels,
                workers=args.workers,
                backend=args.backend,
                address=args.address,
                batch_size=args.batch_size,
                only_with=args.only,
                on_game=advance,
            )
        _report(ladder, args)
    return 0


def show_command(args: argparse.Namespace) -> int:
    with _closing(_open(args, create=False)) as ladder:
        _report(ladder, args)
    return 0


@contextmanager
def _new_file_removed_on_error(args: argparse.Namespace) -> Iterator[None]:
    """A ladder file this command made is removed again if the command fails before any game
    is stored in it (a mistyped participant leaves nothing behind)."""
    path: Path = args.db if args.db is not None else default_db()
    existed = path.exists()
    try:
        yield
    except (LadderError, TournamentError):
        if not existed and path.is_file():
            with closing(sqlite3.connect(path)) as db:
                try:
                    stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                except sqlite3.DatabaseError:
                    stored = 0
            if stored == 0:
                path.unlink()
        raise


def sprt_command(args: argparse.Namespace) -> int:
    (label_a, spec_a), (label_b, spec_b) = args.a, args.b
    if label_a == label_b:
        raise LadderError("A and B need different labels")
    test = SequentialTest(h0=args.h0, h1=args.h1, alpha=args.alpha, beta=args.beta)
    step = args.step or 4 * args.workers
    with _new_file_removed_on_error(args), _closing(_open(args)) as ladder:
        ladder.add(label_a, spec_a)
        ladder.add(label_b, spec_b)
        key = table_key(2, [label_a, label_b])
        seen = 0
        while test.decision is None and test.games < args.max_games:
            target = min(args.max_games, seen + step)
            ladder.play(
                2,
                target,
                [label_a, label_b],
                workers=args.workers,
                backend=args.backend,
                address=args.address,
                batch_size=args.batch_size,
            )
            for game in ladder.games(2, [label_a, label_b]):
                if game.table_key != key or game.game < seen or game.game >= target:
                    continue
                if test.add(game.margin(game.labels.index(label_a))):
                    break
            seen = target
            if not args.quiet:
                print(test.summary(), flush=True)
        print(f"{label_a} vs {label_b}: {test.summary()}")
    return 0


class _closing:
    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder

    def __enter__(self) -> Ladder:
        return self.ladder

    def __exit__(self, *exc: object) -> None:
        self.ladder.close()


def guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` with the ladder's errors printed as one line: status 2 for bad input, 1 for a failed game."""

    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except LadderError as exc:
            print(f"ttr-nordic ladder: error: {exc}", file=sys.stderr)
            return 2
        except TournamentError as exc:
            print(f"ttr-nordic ladder: {exc}", file=sys.stderr)
            return 1

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ttr-nordic ladder")
    add_ladder_arguments(parser)
    args = parser.parse_args(argv)
    return int(args.func(args))

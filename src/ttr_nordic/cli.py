"""The ``ttr-nordic`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .terminal.console import TerminalIO


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ttr-nordic", description="Ticket to Ride: Nordic Countries")
    sub = parser.add_subparsers(dest="command", required=True)
    from .terminal.app import add_play_arguments, add_replay_arguments

    add_play_arguments(sub.add_parser("play", help="play a game in the terminal"))
    add_replay_arguments(sub.add_parser("replay", help="step through a saved game record"))
    from .sim.cli import add_tournament_arguments

    add_tournament_arguments(sub.add_parser("tournament", help="play many AI games and report statistics"))
    from .sim.ladder_cli import add_ladder_arguments

    add_ladder_arguments(sub.add_parser("ladder", help="rate agents together (resumable) and compare versions"))
    from .sim.playtest_cli import add_playtest_arguments, add_tune_arguments

    add_playtest_arguments(sub.add_parser("playtest", help="a designer's report on many AI games (or --compare two)"))
    add_tune_arguments(sub.add_parser("tune", help="search ticket values for balanced play styles"))
    from .server.cli import add_db_arguments, add_serve_arguments

    add_serve_arguments(sub.add_parser("serve", help="run the web server (needs the web extra)"))
    add_db_arguments(sub.add_parser("db", help="migrate the server's database, or show its migration"))
    return parser


def run(argv: Sequence[str], io: TerminalIO) -> int:
    """Parse ``argv`` like the ``ttr-nordic`` command and run its terminal commands (``play``,
    ``replay``) with ``io`` instead of the console (for tests and embedding)."""
    args = build_parser().parse_args(list(argv))
    return int(args.func(args, io))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("\nbye", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())

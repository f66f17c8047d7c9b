"""The ``play`` and ``replay`` commands of ``ttr-nordic``.

Input and output are parameters (a :class:`TerminalIO`), so tests drive the
whole application with scripted answers::

    run(["play", "--seed", "3", "--no-color"], TerminalIO(input_fn=answer, out=buffer))
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from ..ai.registry import agent_names, make_agent
from ..engine import GameState
from ..engine.variant import load_variant
from .console import TerminalIO
from .play import GameSession, Seat
from .replay import replay_file

__all__ = [
    "TerminalIO",
    "add_play_arguments",
    "add_replay_arguments",
    "build_seats",
    "default_save_path",
    "run_play",
    "run_replay",
]


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    levels = ", ".join(agent_names())
    parser.description = (
        "Play Nordic Countries in the terminal: hot-seat for 2-3 people, or people against the AI "
        "(default: 1 human against 1 AI). Type h during the game for help."
    )
    parser.add_argument("--players", type=int, choices=(2, 3), help="number of players (default 2)")
    parser.add_argument(
        "--humans", type=int, default=1, help="how many of them are people at this keyboard (default 1)"
    )
    parser.add_argument("--names", help="comma-separated names, one per seat: the people first, then the AIs")
    parser.add_argument("--seed", type=int, help="game seed (default: random); the same seed deals the same game")
    parser.add_argument(
        "--ai",
        default="medium",
        metavar="LEVEL",
        help=f"AI for the computer seats (default medium), or one per AI seat comma-separated; choices: {levels}",
    )
    parser.add_argument("--save", metavar="FILE", help="where to save the game record (default: ttr-nordic-SEED.json)")
    parser.add_argument(
        "--variant",
        metavar="FILE",
        help="play under a rule variant or on a custom board: a variant file (.toml or .json, see examples/variants)",
    )
    parser.add_argument("--no-color", action="store_true", help="no ANSI colors")
    parser.set_defaults(func=run_play)


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Step through a saved game record: Enter = next move, b = back, a number = jump to that move, q = quit."
    )
    parser.add_argument("file", help="a game record (JSON), e.g. saved by 'ttr-nordic play'")
    parser.add_argument(
        "--player",
        type=int,
        metavar="N",
        help="show the game as player N (1-based) saw it; the default for an unfinished record is player 1",
    )
    parser.add_argument("--auto", action="store_true", help="print every move without waiting, then the final board")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colors")
    parser.set_defaults(func=run_replay)


def build_seats(players: int | None, humans: int, names_arg: str | None, ai_arg: str, seed: int = 0) -> list[Seat]:
    """The seats for ``play``: people first, then AIs (seeded from ``seed``).

    Raises ``ValueError`` with a readable reason.
    """
    names = [n.strip() for n in names_arg.split(",")] if names_arg else []
    if any(not n for n in names):
        raise ValueError("--names has an empty name")
    if len(set(names)) != len(names):
        raise ValueError("--names has the same name twice")
    count = players if players is not None else max(2, humans, len(names))
    if count not in (2, 3):
        raise ValueError(f"Nordic Countries is for 2 or 3 players, not {count}")
    if not 0 <= humans <= count:
        raise ValueError(f"--humans must be between 0 and {count}")
    if len(names) > count:
        raise ValueError(f"{len(names)} names for {count} players")
    levels = [level.strip().lower() for level in ai_arg.split(",")]
    ai_seats = count - humans
    if len(levels) == 1:
        levels *= ai_seats
    elif len(levels) != ai_seats:
        raise ValueError(f"--ai lists {len(levels)} AIs for {ai_seats} AI seat(s)")
    seats: list[Seat] = []
    for seat in range(count):
        if seat < humans:
            default = f"Player {seat + 1}"
            seats.append(Seat(names[seat] if seat < len(names) else default))
        else:
            level = levels[seat - humans]
            agent = make_agent(level, seed * 10 + seat)  # the one registry of agents; ValueError names the choices
            default = level.replace("_", " ").capitalize() + " AI" + (f" {seat - humans + 1}" if ai_seats > 1 else "")
            seats.append(Seat(names[seat] if seat < len(names) else default, agent, level))
    taken = [s.name for s in seats]
    if len(set(taken)) != len(taken):
        raise ValueError(f"two seats would both be called {next(n for n in taken if taken.count(n) > 1)!r}")
    return seats


def default_save_path(seed: int, directory: Path | None = None) -> Path:
    """``ttr-nordic-<seed>.json`` in ``directory`` (default: here), numbered if it exists already."""
    folder = directory if directory is not None else Path()
    path = folder / f"ttr-nordic-{seed}.json"
    number = 2
    while path.exists():
        path = folder / f"ttr-nordic-{seed}-{number}.json"
        number += 1
    return path


def run_play(args: argparse.Namespace, io: TerminalIO | None = None) -> int:
    """The ``play`` command; returns the exit code."""
    term = io if io is not None else TerminalIO.for_terminal(args.no_color)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    try:
        seats = build_seats(args.players, args.humans, args.names, args.ai, seed)
        # A bad variant file, or one that cannot deal this many players, is one line and exit 2.
        variant = None if getattr(args, "variant", None) is None else load_variant(args.variant)
        state = GameState.new(players=len(seats), seed=seed, variant=variant)
    except ValueError as exc:
        term.error(f"ttr-nordic play: error: {exc}")
        return 2
    save_path = Path(args.save) if args.save else default_save_path(seed)
    session = GameSession(state, seats, term, save_path=save_path, meta={"humans": args.humans})
    try:
        return session.run()
    except BrokenPipeError:  # the output was closed (e.g. piped into head): save quietly
        _silence_stdout(term)
        session.save()
        return 1


def run_replay(args: argparse.Namespace, io: TerminalIO | None = None) -> int:
    """The ``replay`` command; returns the exit code (2 for a missing or broken file)."""
    term = io if io is not None else TerminalIO.for_terminal(args.no_color)
    try:
        return replay_file(args.file, term, player=args.player, auto=args.auto)
    except BrokenPipeError:
        _silence_stdout(term)
        return 1


def _silence_stdout(term: TerminalIO) -> None:
    """After a broken pipe, send further output (and Python's final flush) nowhere."""
    if term.out is sys.stdout:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass

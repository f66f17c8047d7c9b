"""The ``ttr-nordic tournament`` subcommand.

    ttr-nordic tournament --agents A,B[,C] --players 2|3 --games N --seed S --workers K
        [--backend process|ray] [--address ADDR] [--out DIR] [--csv] [--json FILE] [--no-plots]

Writes ``results.sqlite``, ``records/game-<i>.json`` and the plots into ``--out`` (default
``tournaments/tournament-<seed>`` in the data folder, see :mod:`ttr_nordic.paths`), prints the
summary, the throughput in games/s and where each output went. Bad arguments
exit with status 2, a failure while playing with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import __version__
from ..ai.registry import agent_names, make_agent
from ..paths import data_dir
from .backends import BACKENDS, import_ray
from .ladder import LadderError, check_label
from .play import TournamentError
from .plots import MATPLOTLIB_HINT, PLOT_FILES, have_matplotlib, make_plots
from .results import GameRow, ResultStore, clear_records, write_csv, write_record
from .schedule import split_label
from .summary import format_summary
from .tournament import TournamentConfig, TournamentResult, run_tournament


def agent_list(text: str) -> tuple[str, ...]:
    """``--agents``: comma-separated agent or level names, or ``LABEL=SPEC`` (as in the ladder:
    ``v2=my_agents.py:make_v2``), each checked against the registry."""
    parts = [part.strip() for part in text.split(",")]
    if not parts or any(not part for part in parts):
        raise argparse.ArgumentTypeError(f"expected agent names separated by commas, got {text!r}")
    names = []
    for part in parts:
        label, spec = split_label(part)
        if label is not None:
            try:
                check_label(label)
            except LadderError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        if ":" not in spec:
            spec = spec.lower()
        try:
            make_agent(spec, 0)
        except ValueError as exc:
            message = str(exc) if ":" in spec else f"unknown agent {spec!r}; choose from {', '.join(agent_names())}"
            raise argparse.ArgumentTypeError(message) from None
        names.append(spec if label is None else f"{label}={spec}")
    return tuple(names)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_tournament_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the tournament options to ``parser`` (a subparser of ``ttr-nordic``)."""
    parser.description = (
        "Play many games between AI agents and report win rates, scores and timings. "
        "Each game's seed, the agents' seeds and the seat rotation derive from --seed, so the "
        "same command gives the same games whatever --workers and --backend."
    )
    parser.add_argument(
        "--agents",
        required=True,
        type=agent_list,
        metavar="A,B[,C]",
        help=f"the lineup, comma-separated; a name may repeat; LABEL=SPEC names a saved version "
        f"(LABEL=module:factory or LABEL=file.py:factory) (known: {', '.join(agent_names())})",
    )
    parser.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    parser.add_argument("--games", type=positive_int, default=100, metavar="N", help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="tournament seed (default 0)")
    parser.add_argument(
        "--workers", type=positive_int, default=1, metavar="K", help="parallel workers; 1 plays in-process (default 1)"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="process", help="process pool or Ray (default process)")
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="Ray cluster to connect to (default: RAY_ADDRESS, else a local instance with K CPUs)",
    )
    parser.add_argument(
        "--batch-size", type=positive_int, metavar="B", help="games per worker task (default: automatic)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output folder (default: tournaments/tournament-<seed> in $XDG_DATA_HOME/ttr-nordic); "
        "earlier results there are replaced",
    )
    parser.add_argument("--csv", action="store_true", help="also write results.csv (one row per game)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the summary as JSON to FILE")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    parser.set_defaults(func=run_command, tournament_parser=parser)


@contextmanager
def progress_display(total: int, enabled: bool = True, unit: str = "games") -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr: ``rich.progress`` on a terminal, plain lines otherwise.
    Yields ``advance(count)``; ``unit`` names what is counted."""
    if not enabled:
        yield lambda _count: None
        return
    rich_progress: Any = None
    if sys.stderr.isatty():
        try:
            import rich.progress as rich_progress
        except ImportError:
            rich_progress = None
    if rich_progress is not None:
        from rich.console import Console

        columns = (
            rich_progress.TextColumn(unit),
            rich_progress.BarColumn(),
            rich_progress.MofNCompleteColumn(),
            rich_progress.TimeElapsedColumn(),
            rich_progress.TextColumn("eta"),
            rich_progress.TimeRemainingColumn(),
        )
        with rich_progress.Progress(*columns, console=Console(stderr=True), transient=False) as bar:
            task = bar.add_task(unit, total=total)
            yield lambda count: bar.advance(task, count)
        return
    done = 0
    step = max(1, math.ceil(total / 10))
    next_report = step

    def advance(count: int) -> None:
        nonlocal done, next_report
        done += count
        if done >= next_report or done == total:
            print(f"  {done}/{total} {unit} ({100 * done // total}%)", file=sys.stderr, flush=True)
            while next_report <= done:
                next_report += step

    yield advance


def _json_safe(value: Any) -> Any:
    """NaN and infinities become null (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    return value


def summary_json(result: TournamentResult, outputs: dict[str, str]) -> dict[str, Any]:
    """The ``--json`` document: settings, throughput, the summary and where the outputs are."""
    c = result.config
    data = {
        "tournament": {
            "agents": list(c.agents),
            "labels": [e.label for e in result.entries],
            "players": c.players,
            "games": c.games,
            "seed": c.seed,
            "backend": c.backend,
            "workers": c.workers,
            "games_per_task": c.games_per_task,
        },
        "throughput": {"wall_s": result.wall_s, "games_per_s": result.games_per_s},
        **result.summary.to_dict(),
        "outputs": outputs,
    }
    return dict(_json_safe(data))


def run_command(args: argparse.Namespace) -> int:
    """Run the tournament the parsed arguments describe."""
    parser: argparse.ArgumentParser = args.tournament_parser
    try:
        config = TournamentConfig(
            agents=tuple(args.agents),
            players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            batch_size=args.batch_size,
        )
        if args.address and args.backend != "ray":
            raise TournamentError("--address needs --backend ray")
        if args.backend == "ray":
            import_ray()
    except TournamentError as exc:
        parser.error(str(exc))  # exits with status 2
    plots = not args.no_plots
    if plots and not have_matplotlib():
        # The games and the table need nothing but the package: play them, and say how to get plots.
        print(f"note: no plots; {MATPLOTLIB_HINT}", file=sys.stderr)
        plots = False

    out: Path = args.out if args.out is not None else data_dir("tournaments", f"tournament-{config.seed}")
    settings = {
        "agents": ",".join(config.agents),
        "players": config.players,
        "games": config.games,
        "seed": config.seed,
        "backend": config.backend,
        "workers": config.workers,
        "games_per_task": config.games_per_task,
        "version": __version__,
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    try:
        out.mkdir(parents=True, exist_ok=True)
        clear_records(out)
        for stale in ("results.csv", *PLOT_FILES):  # outputs of an earlier tournament here
            (out / stale).unlink(missing_ok=True)
        store = ResultStore(out / "results.sqlite", config.players, settings)
    except (OSError, ValueError) as exc:
        print(f"ttr-nordic tournament: error: cannot write to {out}: {exc}", file=sys.stderr)
        return 1
    lineup = ", ".join(config.agents)
    print(
        f"tournament: {config.games} games of {config.players} players, agents {lineup}, seed {config.seed}, "
        f"{config.backend} backend, {config.workers} worker(s), {config.games_per_task} game(s) per task",
        file=sys.stderr,
    )
    try:
        with store, progress_display(config.games, enabled=not args.quiet) as advance:

            def on_rows(rows: Sequence[GameRow]) -> None:
                store.add(rows)
                for row in rows:
                    write_record(out, row)
                advance(len(rows))

            result = run_tournament(config, on_rows)
    except TournamentError as exc:
        print(f"ttr-nordic tournament: error: {exc}", file=sys.stderr)
        return 1

    outputs = {"results": str(out / "results.sqlite"), "records": str(out / "records")}
    if args.csv:
        write_csv(out / "results.csv", result.rows, config.players)
        outputs["csv"] = str(out / "results.csv")
    if plots:
        for path in make_plots(result.rows, result.entries, result.summary, out):
            outputs[path.stem] = str(path)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = summary_json(result, outputs)
        args.json.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        outputs["json"] = str(args.json)

    print(format_summary(result.summary))
    print()
    print(
        f"throughput: {len(result.rows)} games in {result.wall_s:.2f} s = {result.games_per_s:.2f} games/s "
        f"({config.backend}, {config.workers} worker(s))"
    )
    print("outputs:")
    for name, location in outputs.items():
        print(f"  {name}: {location}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ttr_nordic.sim``: the tournament command on its own."""
    parser = argparse.ArgumentParser(prog="ttr-nordic tournament")
    add_tournament_arguments(parser)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result

"""A playtest: many games of one lineup, at one or both player counts, counted for a designer.

The games are the tournament's (same schedule, seeds and seat rotation, process pool or Ray);
each worker replays its games' records through the engine and returns their
:class:`~.playtest_facts.GameFacts`, which :mod:`.playtest_stats` counts and
:mod:`.playtest_report` draws. Outputs, in the output folder:

* ``report.html``: one self-contained page (inline CSS, figures as inline PNG, no script);
* ``*.csv``: the tables behind it (see :data:`CSV_FILES`), ``games.csv`` one row per seat per game;
* ``records/game-<players>p-<i>.json``: the records of the games where a state the rules settle by
  a convention arose (a few per kind; every game's with ``--all-records``), to replay with
  ``ttr-nordic replay``;
* ``playtest.json``: the settings; ``variant.json``: the rules played (a variant file).

>>> config = PlaytestConfig(agents=("random", "random"), games=2, players=(2,), seed=4)
>>> facts = run_playtest(config)
>>> [(f.players, f.game) for f in facts]
[(2, 0), (2, 1)]
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..ai.registry import make_agent
from ..engine import Board
from ..engine.variant import OFFICIAL, Variant, VariantError
from .backends import BACKENDS, auto_batch_size, batches, run_tasks
from .play import TournamentError, play_spec
from .playtest_facts import GameFacts, game_facts
from .playtest_stats import (
    Row,
    city_table,
    edge_cases,
    game_lengths,
    game_rows,
    route_table,
    score_sources,
    seat_rates,
    special_table,
    ticket_table,
    win_rates,
)
from .schedule import GameSpec, schedule

#: Records kept per kind of edge case (the first games where it arose).
RECORDS_PER_EDGE_CASE = 3

CSV_FILES = (
    "win_rates.csv",
    "seats.csv",
    "score_sources.csv",
    "game_lengths.csv",
    "tickets.csv",
    "routes.csv",
    "cities.csv",
    "special_routes.csv",
    "edge_cases.csv",
    "games.csv",
)


@dataclass(frozen=True)
class PlaytestConfig:
    """What a playtest plays: ``games`` games at each player count of ``players``."""

    agents: tuple[str, ...]
    games: int = 100
    players: tuple[int, ...] = (2,)
    seed: int = 0
    workers: int = 1
    backend: str = "process"
    address: str | None = None
    variant: Variant = OFFICIAL

    def __post_init__(self) -> None:
        if not self.agents:
            raise TournamentError("a playtest needs at least one agent")
        for name in self.agents:
            try:
                make_agent(name, 0)
            except ValueError as exc:
                raise TournamentError(str(exc)) from None
        if not self.players or any(p not in (2, 3) for p in self.players):
            raise TournamentError(f"Nordic Countries is for 2 or 3 players, not {self.players}")
        if self.games < 1:
            raise TournamentError("a playtest needs at least 1 game")
        if self.workers < 1:
            raise TournamentError("at least 1 worker is needed")
        if self.backend not in BACKENDS:
            raise TournamentError(f"unknown backend {self.backend!r}; choose from {', '.join(BACKENDS)}")
        for players in self.players:
            try:
                self.variant.check_players(players)
            except VariantError as exc:
                raise TournamentError(str(exc)) from None

    def settings(self) -> dict[str, Any]:
        return {
            "agents": list(self.agents),
            "games": self.games,
            "players": list(self.players),
            "seed": self.seed,
            "workers": self.workers,
            "backend": self.backend,
            "variant": self.variant.name,
            "version": __version__,
        }


def collect_batch(specs: list[GameSpec]) -> list[GameFacts]:
    """Play ``specs`` and return each game's facts (the task a worker runs)."""
    out = []
    for spec in specs:
        row = play_spec(spec)
        out.append(game_facts(row.record, row.labels, row.agents, game=row.game))
    return out


def run_playtest(config: PlaytestConfig, on_games: Callable[[int], None] | None = None) -> list[GameFacts]:
    """Play every game of ``config`` and return their facts, by player count then game."""
    work: list[list[GameSpec]] = []
    for players in config.players:
        # A seed per player count, so that adding 3 players leaves the 2-player games as they were.
        seed = config.seed if players == 2 else config.seed + 1_000_003
        specs = schedule(config.agents, players, config.games, seed, config.variant)
        work.extend(batches(specs, auto_batch_size(config.games, config.workers, config.backend)))
    facts: list[GameFacts] = []
    for batch in run_tasks(work, config.backend, config.workers, config.address, collect_batch):
        facts.extend(batch)
        if on_games is not None:
            on_games(len(batch))
    facts.sort(key=lambda f: (f.players, f.game))
    return facts


def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return "" if math.isnan(value) else round(value, 6)
    return value


def write_csv(path: Path, rows: Sequence[Row]) -> None:
    """``rows`` as a CSV file (NaN as an empty cell, floats to 6 places)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: _cell(value) for key, value in row.items()})


@dataclass(frozen=True)
class PlaytestTables:
    """Every table of a playtest, as written to CSV and shown in the report."""

    win_rates: list[Row]
    seats: list[Row]
    score_sources: list[Row]
    game_lengths: list[Row]
    tickets: list[Row]
    routes: list[Row]
    cities: list[Row]
    special_routes: list[Row]
    edge_cases: list[Row]
    games: list[Row]


def make_tables(facts: Sequence[GameFacts], board: Board, records: dict[str, list[str]]) -> PlaytestTables:
    """Count ``facts``; ``records`` names the record files kept per edge case."""
    edges = [
        {"kind": e.kind, "description": e.description, "games": len(e.games), "occurrences": e.occurrences}
        | {"records": " ".join(records.get(e.kind, []))}
        for e in edge_cases(facts)
    ]
    return PlaytestTables(
        win_rates=win_rates(facts),
        seats=seat_rates(facts),
        score_sources=score_sources(facts),
        game_lengths=game_lengths(facts),
        tickets=ticket_table(facts, board),
        routes=route_table(facts, board),
        cities=city_table(facts, board),
        special_routes=special_table(facts),
        edge_cases=edges,
        games=game_rows(facts),
    )


def record_name(facts: GameFacts) -> str:
    """Where a game's record is written, relative to the output folder."""
    return f"records/game-{facts.players}p-{facts.game}.json"


def keep_records(facts: Sequence[GameFacts], out: Path, every: bool = False) -> dict[str, list[str]]:
    """Write into ``out/records`` the records of the first games of each edge case (of every game
    with ``every``); returns the file names (relative to ``out``) per edge case."""
    folder = out / "records"
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("game-*.json"):
        stale.unlink()
    kept: dict[str, list[str]] = {}
    for f in facts:
        if every:
            (out / record_name(f)).write_text(f.record, encoding="utf-8")
        for kind in f.edges:
            names = kept.setdefault(kind, [])
            if len(names) < RECORDS_PER_EDGE_CASE:
                (out / record_name(f)).write_text(f.record, encoding="utf-8")
                names.append(record_name(f))
    return kept


def write_outputs(
    config: PlaytestConfig,
    facts: Sequence[GameFacts],
    out: Path,
    figures: Path | None = None,
    every_record: bool = False,
) -> PlaytestTables:
    """Write the CSV files, the kept records (every game's with ``every_record``), ``playtest.json``
    and ``report.html`` into ``out``; with ``figures``, also each figure of the report as a PNG file there."""
    from .playtest_report import write_report

    out.mkdir(parents=True, exist_ok=True)
    board = config.variant.board
    records = keep_records(facts, out, every_record)
    tables = make_tables(facts, board, records)
    for name in CSV_FILES:
        write_csv(out / name, getattr(tables, name.removesuffix(".csv")))
    (out / "playtest.json").write_text(json.dumps(config.settings(), indent=1) + "\n", encoding="utf-8")
    # The rules played, whole (board included when custom): load_variant reads it back.
    variant_text = json.dumps(config.variant.to_dict(), indent=1, ensure_ascii=False)
    (out / "variant.json").write_text(variant_text + "\n", encoding="utf-8")
    write_report(out / "report.html", config.settings(), tables, facts, board, figures)
    return tables

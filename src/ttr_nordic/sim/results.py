"""Tournament results: one :class:`GameRow` per game, stored in SQLite, CSV and record files.

Storage layout (in the tournament's output folder):

* ``results.sqlite``: table ``games``, one row per game, with per-seat columns
  ``seat<k>_<field>`` (see :func:`columns`) and the full game record JSON in ``record``;
  table ``tournament`` (key/value: the command's settings); view ``seats``, one row per
  seat of each game (long format, handy for ``GROUP BY label``).
* ``records/game-<i>.json``: the record of game ``i``, replayable with ``ttr-nordic replay``.
* ``results.csv`` (with ``--csv``): the ``games`` table without the record column.

Timing columns (``seat<k>_time_*``, ``wall_s``) measure this machine; every other column is
determined by the tournament seed.
"""

from __future__ import annotations

import csv
import sqlite3
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..engine import GameRecord

#: Fields that measure time and so differ from run to run.
TIMING_FIELDS = frozenset({"time_total", "time_mean", "time_median", "time_max", "wall_s", "decision_times"})

#: Per-seat fields, in column order: outcome first, then timing.
SEAT_FIELDS = (
    "labels",
    "agents",
    "agent_seeds",
    "seating",
    "scores",
    "route_points",
    "tickets_completed",
    "tickets_failed",
    "globetrotter",
    "longest_path",
    "decisions",
)
SEAT_TIMING_FIELDS = ("time_mean", "time_median", "time_max", "time_total")
#: Column name stem of each per-seat field (``seat0_label`` ...).
SEAT_COLUMN = {
    "labels": "label",
    "agents": "agent",
    "agent_seeds": "agent_seed",
    "seating": "entry",
    "scores": "score",
    "route_points": "route_points",
    "tickets_completed": "tickets_completed",
    "tickets_failed": "tickets_failed",
    "globetrotter": "globetrotter",
    "longest_path": "longest_path",
    "decisions": "decisions",
    "time_mean": "time_mean",
    "time_median": "time_median",
    "time_max": "time_max",
    "time_total": "time_total",
}


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game. Tuples hold one value per seat (seat 0 plays first)."""

    game: int
    seed: int
    players: int
    first_player: int
    seating: tuple[int, ...]  # the lineup entry in each seat
    agents: tuple[str, ...]
    labels: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    scores: tuple[int, ...]
    route_points: tuple[int, ...]
    tickets_completed: tuple[int, ...]
    tickets_failed: tuple[int, ...]
    globetrotter: tuple[int, ...]
    longest_path: tuple[int, ...]
    turns: int
    actions: int
    winners: tuple[int, ...]  # seats
    decided_by: str
    route_owners: str  # one character per route: the owner's seat or "-"
    record: str  # the game record as JSON
    decisions: tuple[int, ...]
    time_total: tuple[float, ...]
    time_mean: tuple[float, ...]
    time_median: tuple[float, ...]
    time_max: tuple[float, ...]
    wall_s: float
    decision_times: tuple[array[float], ...] = field(default=(), compare=False, repr=False)

    def outcome(self) -> dict[str, Any]:
        """Every field that the seed determines (timings left out): equal across workers and backends."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in TIMING_FIELDS}

    @property
    def winner_labels(self) -> tuple[str, ...]:
        return tuple(self.labels[seat] for seat in self.winners)

    def win_shares(self) -> tuple[float, ...]:
        """Each seat's share of the win: 1 for a sole winner, 1/k for each of k sharing a tie, else 0."""
        share = 1.0 / len(self.winners)
        return tuple(share if seat in self.winners else 0.0 for seat in range(self.players))


def columns(players: int) -> list[str]:
    """The column names of the ``games`` table and the CSV file (the CSV has no ``record``)."""
    names = ["game", "seed", "players", "first_player"]
    for seat in range(players):
        names += [f"seat{seat}_{SEAT_COLUMN[f]}" for f in SEAT_FIELDS]
    names += ["turns", "actions", "winners", "winner_labels", "decided_by"]
    for seat in range(players):
        names += [f"seat{seat}_{SEAT_COLUMN[f]}" for f in SEAT_TIMING_FIELDS]
    names += ["wall_s", "route_owners", "record_file"]
    return names


def record_file(game: int) -> str:
    """The record's path relative to the output folder."""
    return f"records/game-{game}.json"


def to_columns(row: GameRow) -> dict[str, Any]:
    """A row as a flat mapping of :func:`columns` to values."""
    out: dict[str, Any] = {
        "game": row.game,
        "seed": row.seed,
        "players": row.players,
        "first_player": row.first_player,
    }
    for seat in range(row.players):
        for name in (*SEAT_FIELDS, *SEAT_TIMING_FIELDS):
            out[f"seat{seat}_{SEAT_COLUMN[name]}"] = getattr(row, name)[seat]
    out["turns"] = row.turns
    out["actions"] = row.actions
    out["winners"] = ",".join(str(seat) for seat in row.winners)
    out["winner_labels"] = ",".join(row.winner_labels)
    out["decided_by"] = row.decided_by
    out["wall_s"] = row.wall_s
    out["route_owners"] = row.route_owners
    out["record_file"] = record_file(row.game)
    return out


def from_columns(values: Mapping[str, Any], record: str) -> GameRow:
    """A row back from :func:`to_columns` (decision times are not stored)."""
    players = int(values["players"])

    def seat(name: str) -> tuple[Any, ...]:
        return tuple(values[f"seat{s}_{SEAT_COLUMN[name]}"] for s in range(players))

    return GameRow(
        game=int(values["game"]),
        seed=int(values["seed"]),
        players=players,
        first_player=int(values["first_player"]),
        seating=tuple(int(v) for v in seat("seating")),
        agents=tuple(str(v) for v in seat("agents")),
        labels=tuple(str(v) for v in seat("labels")),
        agent_seeds=tuple(int(v) for v in seat("agent_seeds")),
        scores=tuple(int(v) for v in seat("scores")),
        route_points=tuple(int(v) for v in seat("route_points")),
        tickets_completed=tuple(int(v) for v in seat("tickets_completed")),
        tickets_failed=tuple(int(v) for v in seat("tickets_failed")),
        globetrotter=tuple(int(v) for v in seat("globetrotter")),
        longest_path=tuple(int(v) for v in seat("longest_path")),
        turns=int(values["turns"]),
        actions=int(values["actions"]),
        winners=tuple(int(v) for v in str(values["winners"]).split(",")),
        decided_by=str(values["decided_by"]),
        route_owners=str(values["route_owners"]),
        record=record,
        decisions=tuple(int(v) for v in seat("decisions")),
        time_total=tuple(float(v) for v in seat("time_total")),
        time_mean=tuple(float(v) for v in seat("time_mean")),
        time_median=tuple(float(v) for v in seat("time_median")),
        time_max=tuple(float(v) for v in seat("time_max")),
        wall_s=float(values["wall_s"]),
    )


def _sql_type(column: str) -> str:
    if column.endswith(("_label", "_agent")) or column in ("winners", "winner_labels", "decided_by"):
        return "TEXT"
    if column in ("route_owners", "record_file", "record"):
        return "TEXT"
    if "time_" in column or column == "wall_s":
        return "REAL"
    return "INTEGER"


class ResultStore:
    """The SQLite results file; rows may arrive in any order (the game number is the key)."""

    def __init__(self, path: str | Path, players: int, settings: Mapping[str, object]) -> None:
        self.path = Path(path)
        self.players = players
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self.columns = [*columns(players), "record"]
        self.db = sqlite3.connect(self.path)
        specs = ", ".join(
            f"{name} {_sql_type(name)}{' PRIMARY KEY' if name == 'game' else ''}" for name in self.columns
        )
        with self.db:
            self.db.execute(f"CREATE TABLE games ({specs})")
            self.db.execute("CREATE TABLE tournament (key TEXT PRIMARY KEY, value TEXT)")
            self.db.executemany(
                "INSERT INTO tournament VALUES (?, ?)", [(key, str(value)) for key, value in settings.items()]
            )
            self.db.execute(f"CREATE VIEW seats AS {self._seats_view()}")

    def _seats_view(self) -> str:
        parts = []
        for seat in range(self.players):
            picks = ", ".join(
                f"seat{seat}_{SEAT_COLUMN[name]} AS {SEAT_COLUMN[name]}" for name in (*SEAT_FIELDS, *SEAT_TIMING_FIELDS)
            )
            won = f"(instr(',' || winners || ',', ',{seat},') > 0)"
            parts.append(f"SELECT game, {seat} AS seat, {picks}, {won} AS won, turns, decided_by FROM games")
        return " UNION ALL ".join(parts)

    def add(self, rows: Iterable[GameRow]) -> None:
        placeholders = ", ".join("?" for _ in self.columns)
        values = []
        for row in rows:
            flat = to_columns(row)
            flat["record"] = row.record
            values.append(tuple(flat[name] for name in self.columns))
        with self.db:
            self.db.executemany(f"INSERT INTO games VALUES ({placeholders})", values)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load_rows(path: str | Path) -> list[GameRow]:
    """Every game row of a results file, in game order."""
    db = sqlite3.connect(path)
    try:
        db.row_factory = sqlite3.Row
        return [from_columns(dict(r), r["record"]) for r in db.execute("SELECT * FROM games ORDER BY game")]
    finally:
        db.close()


def write_record(out: Path, row: GameRow) -> Path:
    """Write game ``row.game``'s record to ``out/records/game-<i>.json`` (checked by parsing it back)."""
    path = out / record_file(row.game)
    path.parent.mkdir(parents=True, exist_ok=True)
    GameRecord.from_json(row.record).save(path)
    return path


def clear_records(out: Path) -> None:
    """Remove record files left by an earlier tournament in the same folder."""
    folder = out / "records"
    if folder.is_dir():
        for old in folder.glob("game-*.json"):
            old.unlink()


def write_csv(path: str | Path, rows: Sequence[GameRow], players: int) -> None:
    """The ``games`` table (without the record JSON) as CSV, in game order."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns(players))
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r.game):
            writer.writerow(to_columns(row))

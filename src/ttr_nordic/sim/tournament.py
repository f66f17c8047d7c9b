"""Running a tournament: schedule, play (on a backend), collect, summarise.

>>> result = run_tournament(TournamentConfig(agents=("random", "random"), games=2, seed=5))
>>> [row.game for row in result.rows], [row.seating for row in result.rows]
([0, 1], [(0, 1), (1, 0)])
>>> result.summary.agents[0].games
2
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ai.registry import make_agent
from .backends import BACKENDS, auto_batch_size, batches, run_batches
from .play import TournamentError
from .results import GameRow
from .schedule import Entry, make_entries, schedule, split_label
from .summary import Summary, summarize


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament plays. The rows depend only on ``agents``, ``players``, ``games`` and
    ``seed``; ``workers``, ``backend``, ``address`` and ``batch_size`` only say where and how fast."""

    agents: tuple[str, ...]
    players: int = 2
    games: int = 100
    seed: int = 0
    workers: int = 1
    backend: str = "process"
    address: str | None = None
    batch_size: int | None = None

    def __post_init__(self) -> None:
        if not self.agents:
            raise TournamentError("a tournament needs at least one agent")
        for name in self.agents:
            try:
                make_agent(split_label(name)[1], 0)
            except ValueError as exc:
                raise TournamentError(str(exc)) from None
        if self.players not in (2, 3):
            raise TournamentError(f"Nordic Countries is for 2 or 3 players, not {self.players}")
        if self.games < 1:
            raise TournamentError("a tournament needs at least 1 game")
        if self.workers < 1:
            raise TournamentError("at least 1 worker is needed")
        if self.backend not in BACKENDS:
            raise TournamentError(f"unknown backend {self.backend!r}; choose from {', '.join(BACKENDS)}")
        if self.batch_size is not None and self.batch_size < 1:
            raise TournamentError("a batch has at least 1 game")

    @property
    def games_per_task(self) -> int:
        return self.batch_size or auto_batch_size(self.games, self.workers, self.backend)


@dataclass(frozen=True)
class TournamentResult:
    config: TournamentConfig
    entries: tuple[Entry, ...]
    rows: tuple[GameRow, ...]  # in game order
    summary: Summary
    wall_s: float  # playing time, from starting the workers to the last result

    @property
    def games_per_s(self) -> float:
        return len(self.rows) / self.wall_s if self.wall_s > 0 else float("inf")


def run_tournament(
    config: TournamentConfig, on_rows: Callable[[Sequence[GameRow]], None] | None = None
) -> TournamentResult:
    """Play every game of ``config``; ``on_rows`` sees each finished batch as it arrives."""
    entries = make_entries(config.agents)
    specs = schedule(config.agents, config.players, config.games, config.seed)
    work = batches(specs, config.games_per_task)
    rows: list[GameRow] = []
    start = time.perf_counter()
    for batch_rows in run_batches(work, config.backend, config.workers, config.address):
        rows.extend(batch_rows)
        if on_rows is not None:
            on_rows(batch_rows)
    wall = time.perf_counter() - start
    rows.sort(key=lambda row: row.game)
    return TournamentResult(config, entries, tuple(rows), summarize(rows, entries, config.players), wall)

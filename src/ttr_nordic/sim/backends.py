"""Where the games run: in this process, in a process pool, or as Ray tasks.

Every backend plays the same batches with the same specs, and a game depends only on its
spec, so the rows are identical whichever backend runs them; only their arrival order and
timings differ.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from .play import TournamentError, play_batch
from .results import GameRow
from .schedule import GameSpec
from .workers import spawn_pool

BACKENDS = ("process", "ray")

#: What a task returns: the rows of its games (play_batch), or another summary of them (a playtest's facts).
T = TypeVar("T")


def auto_batch_size(games: int, workers: int, backend: str) -> int:
    """Games per task: one at a time in-process (finest progress), otherwise about 4 tasks
    per worker, at most 20 games each, so the load balances and progress moves.

    >>> auto_batch_size(200, 1, "process"), auto_batch_size(200, 2, "process"), auto_batch_size(6, 2, "ray")
    (1, 20, 1)
    """
    if backend == "process" and workers == 1:
        return 1
    return max(1, min(20, math.ceil(games / (workers * 4))))


def batches(specs: Sequence[GameSpec], size: int) -> list[list[GameSpec]]:
    """``specs`` cut into consecutive batches of ``size`` games."""
    return [list(specs[i : i + size]) for i in range(0, len(specs), size)]


def run_batches(
    work: Sequence[Sequence[GameSpec]], backend: str, workers: int, address: str | None = None
) -> Iterator[list[GameRow]]:
    """Play each batch and yield its rows as batches finish (in any order)."""
    return run_tasks(work, backend, workers, address, play_batch)


def run_tasks(
    work: Sequence[Sequence[GameSpec]],
    backend: str,
    workers: int,
    address: str | None,
    task: Callable[[list[GameSpec]], T],
) -> Iterator[T]:
    """Run ``task`` (a picklable top-level function, such as :func:`play_batch`) on each batch
    and yield what it returns as batches finish (in any order)."""
    if backend == "process":
        if workers == 1:
            for batch in work:
                yield task(list(batch))
        else:
            yield from _process_pool(work, workers, task)
    elif backend == "ray":
        yield from _ray(work, workers, address, task)
    else:
        raise TournamentError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")


def _process_pool(work: Sequence[Sequence[GameSpec]], workers: int, task: Callable[[list[GameSpec]], T]) -> Iterator[T]:
    # "spawn" starts clean interpreters: no inherited locks or threads (the progress bar runs one);
    # the workers exit if this process is killed (see workers.spawn_pool).
    with spawn_pool(workers) as pool:
        pending: set[Future[T]] = {pool.submit(task, list(batch)) for batch in work}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        rows = future.result()
                    except BrokenProcessPool as exc:
                        raise TournamentError(f"a worker process died: {exc}") from exc
                    yield rows
        finally:
            for future in pending:
                future.cancel()


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`TournamentError` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise TournamentError(
            "the ray backend needs Ray: pip install 'ttr-nordic[cluster]' (or pip install ray)"
        ) from exc


def _ray(
    work: Sequence[Sequence[GameSpec]], workers: int, address: str | None, task: Callable[[list[GameSpec]], T]
) -> Iterator[T]:
    """Ray tasks, one per batch. Uses a running Ray session if there is one; otherwise connects
    to ``address`` (or ``RAY_ADDRESS``), or starts a local instance with ``workers`` CPUs."""
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"logging_level": "warning"}
        if address:
            options["address"] = address
        elif not os.environ.get("RAY_ADDRESS"):
            options.update(num_cpus=workers, include_dashboard=False)
        ray.init(**options)
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(task)
        pending = [remote.remote(list(batch)) for batch in work]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        rows: T = ray.get(ref)
                    except TournamentError:
                        raise  # an agent failed: the message names the game
                    except Exception as exc:  # a worker or the cluster failed
                        raise TournamentError(f"a Ray task failed: {exc}") from exc
                    yield rows
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()

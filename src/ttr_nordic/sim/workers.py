"""Process pools whose workers leave when their parent is gone.

A ``concurrent.futures`` worker waits for work on a queue whose pipe it holds both ends of, so
when its parent is killed with kill -9 (which cannot shut the pool down) no end-of-file ever
comes and the worker waits for good; a worker in the middle of a long batch plays it to the end
first. The pools made here give each worker a thread that watches its parent and ends the
worker as soon as the parent has gone. Tournaments, ladders and the server's AI seats use them.

A worker also loads the board and the engine's tables at start and then moves every object alive
to the garbage collector's permanent generation (``gc.freeze``), as a long simulation should after
warming up: the collector then stops walking them again and again during the games.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

#: Seconds between a worker's looks at its parent.
PARENT_CHECK_S = 1.0


def exit_with_parent(parent: int) -> None:
    """Worker initializer: exit this process once ``parent`` (the pool's owner) is gone, seen
    as this process's parent id changing (an orphan is adopted by another process)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)  # at once, even in the middle of a game: nobody is left to take its result

    threading.Thread(target=watch, name="ttr-parent-watch", daemon=True).start()


def init_worker(parent: int) -> None:
    """Worker initializer: :func:`exit_with_parent`, then warm up (the board and the engine's
    per-board tables, built by a first game) and ``gc.freeze()`` what is alive by then."""
    exit_with_parent(parent)
    from ..engine import GameState  # the worker is a fresh interpreter ("spawn")

    GameState.new(players=2, seed=0).legal_action_list()
    gc.freeze()


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` clean interpreters ("spawn": no inherited event loop, locks, threads
    or sockets) that exit when this process dies, however it dies."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=init_worker,
        initargs=(os.getpid(),),
    )

"""Process-pool workers of tournaments and ladders leave when their parent is killed with
kill -9 (which cannot shut the pool down): none is left running as an orphan."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# A tournament far too long to finish, on two worker processes.
TOURNAMENT = """
from ttr_nordic.sim import TournamentConfig, run_tournament
run_tournament(TournamentConfig(agents=("random", "random"), games=100_000, seed=1, workers=2, batch_size=1))
"""


def _children(parent: int) -> list[int]:
    """The pool workers (spawned interpreters) whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == parent and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_tournament_workers_leave_when_their_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", TOURNAMENT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:  # both workers started and playing
            time.sleep(0.2)
            assert parent.poll() is None, "the tournament ended early"
            workers = _children(parent.pid)
        assert len(workers) == 2, workers
        time.sleep(1.0)
        parent.send_signal(signal.SIGKILL)  # no shutdown: the workers must notice by themselves
        parent.wait(10)
        deadline = time.monotonic() + 15
        alive = workers
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [pid for pid in workers if _running(pid)]
        assert alive == [], "workers left running after their parent was killed"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(10)
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_pool_workers_start_warm_and_frozen() -> None:
    """A worker has loaded the engine and frozen what was alive after warming up, so the garbage
    collector does not walk the board and the engine's tables again during the games."""
    import gc

    from ttr_nordic.sim.workers import spawn_pool

    with spawn_pool(1) as pool:
        frozen = pool.submit(gc.get_freeze_count).result(timeout=60)
    assert frozen > 10_000

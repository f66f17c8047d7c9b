"""Deciders for the AI pool tests. They run in spawned worker processes, so they live in a module
the workers can import (the tests folder is on their ``sys.path``, inherited from the parent)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ttr_nordic.server.ai_workers import DecisionJob, decide


def die_once(job: DecisionJob) -> str:
    """Kills its worker the first time (marked by a file named by the game id), then decides."""
    marker = Path(job.game_id)
    if not marker.exists():
        marker.write_text("died once", encoding="utf-8")
        os._exit(3)
    return decide(job)


def always_fails(job: DecisionJob) -> str:
    raise RuntimeError("this agent always fails")


def answers_nonsense(job: DecisionJob) -> str:
    return "C R01 PPPPPPPPPPPPPP"


def expert_waits_for_go(job: DecisionJob) -> str:
    """An expert decision waits until the file ``<game id>.go`` exists (at most a minute), then
    decides; other levels decide at once. Lets a test hold the search workers busy."""
    if job.level == "expert":
        go = Path(job.game_id + ".go")
        for _ in range(600):
            if go.exists():
                break
            time.sleep(0.1)
    return decide(job)

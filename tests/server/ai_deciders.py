"""Deciders for the AI pool tests. They run in spawned worker processes, so they live in a module
the workers can import (the tests folder is on their ``sys.path``, inherited from the parent)."""

from __future__ import annotations

import os
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

"""AI decisions off the event loop: in worker processes, or on Ray.

An AI seat's decision is a search that can take seconds. Run in a thread, it would hold the
interpreter's lock against the event loop that serves every other game (and the engine's caches
are per process, not per thread). So each decision is a small picklable :class:`DecisionJob` (the
game's config and its actions in notation, the seat, the level) sent to a worker process, which
rebuilds the position (keeping the last position of each game it has seen, so usually only the
newest actions are applied), hands the agent that seat's view only, and answers the action in
notation.

:class:`AIPool` bounds how many decisions wait or run at once (a FIFO semaphore: every game
gets its turn in order of asking), retries a failed decision (a worker that died is replaced),
logs every failure, and if a decision fails three times plays a random legal move so that the game
never stalls.

>>> job = DecisionJob("g", players=2, seed=5, first_player=0, actions=(), seat=0, level="hard", agent_seed=1)
>>> decide(job).startswith("K ")
True
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import random
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..ai.base import Agent
from ..ai.registry import make_agent
from ..engine import GameConfig, GameState, parse_action
from ..sim.workers import spawn_pool

log = logging.getLogger(__name__)

#: Positions and agents a worker keeps (the games it served most recently).
WORKER_CACHE = 64
#: Tries of one decision before a random legal move is played instead.
ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class DecisionJob:
    """Everything a worker needs to make one AI decision (small and picklable)."""

    game_id: str
    players: int
    seed: int
    first_player: int | None
    actions: tuple[str, ...]
    seat: int
    level: str
    agent_seed: int


# ---- the worker side ------------------------------------------------------------------------

_positions: OrderedDict[str, tuple[GameState, list[str]]] = OrderedDict()
_agents: OrderedDict[tuple[str, int, str], Agent] = OrderedDict()


def _position(job: DecisionJob) -> GameState:
    cached = _positions.pop(job.game_id, None)
    if cached is not None:
        state, notations = cached
        if len(notations) <= len(job.actions) and tuple(notations) == job.actions[: len(notations)]:
            start = len(notations)
        else:
            cached = None
    if cached is None:
        state = GameState.from_config(GameConfig(job.players, job.seed, job.first_player))
        notations, start = [], 0
    for text in job.actions[start:]:
        state.apply(parse_action(text))
        notations.append(text)
    _positions[job.game_id] = (state, notations)
    while len(_positions) > WORKER_CACHE:
        _positions.popitem(last=False)
    return state


def decide(job: DecisionJob) -> str:
    """Make one decision (runs in a worker): the chosen action in notation."""
    state = _position(job)
    if state.is_over or state.decision.player != job.seat:
        raise ValueError(f"game {job.game_id}: seat {job.seat} has no decision to make")
    key = (job.game_id, job.seat, job.level)
    agent = _agents.pop(key, None) or make_agent(job.level, seed=job.agent_seed)
    _agents[key] = agent
    while len(_agents) > WORKER_CACHE:
        _agents.popitem(last=False)
    # The agent sees only its seat's view, as everywhere else.
    action = agent.choose(state.view(job.seat), state.legal_action_list())
    return action.notation()


def _warm() -> int:
    return os.getpid()


def _timed(decider: Callable[[DecisionJob], str], job: DecisionJob) -> tuple[str, float]:
    """``decider(job)`` and the seconds it took, measured in the worker (so the caller can tell
    the time its job waited for a worker from the time it was searched)."""
    start = time.perf_counter()
    return decider(job), time.perf_counter() - start


# ---- the server side ------------------------------------------------------------------------


def default_workers() -> int:
    """One worker per core but one, which the event loop keeps (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


class AIPool:
    """Runs :func:`decide` in worker processes (or Ray tasks) for the server's AI seats.

    ``workers`` processes (default :func:`default_workers`); at most ``max_thinking`` decisions
    waiting or running at once (default 4 per worker), the others wait their turn in order.
    With ``ray_address`` the decisions are Ray tasks on that cluster instead (``"local"`` starts
    a Ray instance on this machine). ``decider`` is the
    function run in the worker (tests replace it to make a worker fail).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        max_thinking: int | None = None,
        ray_address: str | None = None,
        decider: Callable[[DecisionJob], str] = decide,
    ) -> None:
        self.workers = workers or default_workers()
        if self.workers < 1:
            raise ValueError("the AI pool needs at least one worker")
        self.max_thinking = max_thinking or 4 * self.workers
        self.ray_address = ray_address
        self.decider = decider
        self._executor: Executor | None = None
        self._ray: Any = None
        self._ray_task: Any = None
        self._slots: asyncio.Semaphore | None = None
        self.failures = 0  # failed attempts, for logs and tests
        self.fallbacks = 0  # decisions that ended in a random move
        self.decisions = 0
        self.pending = 0  # decisions asked and not answered yet (waiting for a worker, or searched)
        #: Called after each answered attempt with (seconds waited for a worker, seconds searched).
        self.observe: Callable[[float, float], None] | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def _pool(self) -> Executor:
        if self._executor is None:
            # Clean interpreters that leave if this server is killed (kill -9 included).
            self._executor = spawn_pool(self.workers)
        return self._executor

    def start(self) -> None:
        """Start the workers now (in the background), so the first AI move does not wait for them."""
        if self.ray_address is not None:
            return
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_warm)

    def _replace_broken_pool(self) -> None:
        broken, self._executor = self._executor, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def workers_alive(self) -> int | None:
        """Worker processes alive now; None before they start, or on Ray (no processes here)."""
        if self.ray_address is not None or self._executor is None:
            return None
        # ProcessPoolExecutor has no public count of its processes.
        processes = getattr(self._executor, "_processes", None) or {}
        return sum(1 for process in processes.values() if process.is_alive())

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        if self._ray is not None and self._ray.is_initialized():
            self._ray.shutdown()

    # -- deciding -------------------------------------------------------------------------------

    async def _run(self, job: DecisionJob, asked: float) -> str:
        """One attempt; ``asked`` is when it began waiting (``time.perf_counter``), for ``observe``."""
        if self.ray_address is not None:
            if self._ray is None:
                ray = importlib.import_module("ray")
                if not ray.is_initialized():
                    # "local" starts a Ray instance on this machine; anything else is a cluster address.
                    address = None if self.ray_address == "local" else self.ray_address
                    await asyncio.to_thread(ray.init, address=address, logging_level="warning", include_dashboard=False)
                self._ray = ray
                self._ray_task = ray.remote(num_cpus=1, max_retries=1)(self.decider)
            result: str = await self._ray_task.remote(job)
            if self.observe is not None:
                self.observe(0.0, time.perf_counter() - asked)  # Ray queues and runs out of sight
            return result
        loop = asyncio.get_running_loop()
        notation, searched = await loop.run_in_executor(self._pool(), _timed, self.decider, job)
        if self.observe is not None:
            self.observe(max(0.0, time.perf_counter() - asked - searched), searched)
        return notation

    async def decide(self, job: DecisionJob, legal: list[str], fallback: bool = True) -> str:
        """The AI's action for ``job`` in notation; ``legal`` (the legal actions in notation) is
        what a random fallback picks from when every attempt failed. Without ``fallback``
        (a hint: a random move would mislead) that raises :class:`RuntimeError` instead."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_thinking)
        self.pending += 1
        try:
            return await self._decide(job, legal, fallback)
        finally:
            self.pending -= 1

    async def _decide(self, job: DecisionJob, legal: list[str], fallback: bool) -> str:
        assert self._slots is not None
        asked = time.perf_counter()  # the wait for a slot (in order of asking) counts as queueing
        async with self._slots:
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    notation = await self._run(job, asked if attempt == 1 else time.perf_counter())
                    if notation not in legal:
                        raise ValueError(f"the agent answered {notation!r}, which is not legal")
                    self.decisions += 1
                    return notation
                except asyncio.CancelledError:
                    raise
                except BrokenProcessPool as exc:
                    self.failures += 1
                    log.error("AI worker died (game %s, seat %d, try %d): %s", job.game_id, job.seat, attempt, exc)
                    self._replace_broken_pool()
                except Exception as exc:
                    self.failures += 1
                    log.error(
                        "AI decision failed (game %s, seat %d, try %d): %s: %s",
                        job.game_id,
                        job.seat,
                        attempt,
                        type(exc).__name__,
                        exc,
                    )
            if not fallback:
                raise RuntimeError(f"no decision for seat {job.seat} of game {job.game_id} after {ATTEMPTS} tries")
            self.fallbacks += 1
            log.error(
                "AI seat %d of game %s plays a random move after %d failed tries", job.seat, job.game_id, ATTEMPTS
            )
            return random.Random(f"{job.agent_seed}:{len(job.actions)}").choice(legal)

"""AI decisions off the event loop: in worker processes, or on Ray.

An AI seat's decision is a search that can take seconds. Run in a thread, it would hold the
interpreter's lock against the event loop that serves every other game (and the engine's caches
are per process, not per thread). So each decision is a small picklable :class:`DecisionJob` (the
game's config and its actions in notation, the seat, the level, and the game's rule variant as
canonical JSON unless it is the official rules) sent to a worker process, which rebuilds the
position under that variant (keeping the last position of each game it has seen, so usually only the
newest actions are applied), hands the agent that seat's view only, and answers the action in
notation.

:class:`AIPool` has two lanes of workers: one for the quick levels (:data:`QUICK_LEVELS`, a
few milliseconds a decision) and one for the searching ones (the expert, and hints), so an easy
game never waits behind an expert's search. In each lane a :class:`.ai_queue.FairQueue` says which
waiting decision runs next (clients take turns, none holds more than half a lane, a hint never goes
before a game's move). The pool retries a failed decision (a worker that died is replaced), logs
every failure, and if a decision fails three times plays a random legal move so that the game
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
from .ai_queue import FairQueue, Ticket
from .variants import variant_from_text

log = logging.getLogger(__name__)

#: Positions and agents a worker keeps (the games it served most recently).
WORKER_CACHE = 64
#: Tries of one decision before a random legal move is played instead.
ATTEMPTS = 3
#: Levels whose decisions take milliseconds (no search): they have a lane of workers of their own.
QUICK_LEVELS = frozenset({"easy", "medium", "hard"})


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
    # The game's rule variant as canonical JSON (see .variants); None: the official rules.
    variant: str | None = None


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
        variant = variant_from_text(job.variant)
        state = GameState.from_config(GameConfig(job.players, job.seed, job.first_player, variant))
        notations, start = [], 0
    for text in job.actions[start:]:
        state.apply(parse_action(text, state.board, state.variant.face_up_cards))
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


# ---- the server side ------------------------------------------------------------------------


def _timed(decider: Callable[[DecisionJob], str], job: DecisionJob) -> tuple[str, float]:
    """``decider(job)`` and the seconds it took, measured in the worker (so the caller can tell
    the time its job waited for a worker from the time it was searched)."""
    start = time.perf_counter()
    return decider(job), time.perf_counter() - start


def default_workers() -> int:
    """One worker per core but one, which the event loop keeps (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


class _Lane:
    """Workers for some levels, and the fair queue of the decisions waiting for them."""

    def __init__(self, name: str, workers: int, slots: int) -> None:
        self.name = name
        self.workers = workers
        self.queue = FairQueue(slots)
        self.executor: Executor | None = None
        self.wakeups: dict[Ticket, asyncio.Future[None]] = {}

    def pool(self) -> Executor:
        if self.executor is None:
            # Clean interpreters that leave if this server is killed (kill -9 included).
            self.executor = spawn_pool(self.workers)
        return self.executor

    def replace_broken_pool(self) -> None:
        broken, self.executor = self.executor, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def pump(self) -> None:
        """Wake the waiting decisions that may run now."""
        while (ticket := self.queue.next()) is not None:
            wakeup = self.wakeups.pop(ticket, None)
            if wakeup is not None and not wakeup.done():
                wakeup.set_result(None)

    async def admit(self, ticket: Ticket) -> None:
        """Wait until ``ticket`` may run (it then holds a worker until ``release``)."""
        self.queue.push(ticket)
        self.pump()
        if ticket.running:
            return
        wakeup: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.wakeups[ticket] = wakeup
        try:
            await wakeup
        except BaseException:
            self.wakeups.pop(ticket, None)
            self.release(ticket)
            raise

    def release(self, ticket: Ticket) -> None:
        self.queue.withdraw(ticket)
        self.pump()

    def close(self) -> None:
        executor, self.executor = self.executor, None
        if executor is None:
            return
        # The workers are stopped and the pool's manager thread waited for: left running past this
        # process's exit, Python 3.11's exit hook can race that thread closing its wake-up pipe and
        # write to it (EBADF, a traceback in the log). A decision still being searched is given up,
        # as it would be at the exit anyway; its game asks again when the server is back.
        manager = getattr(executor, "_executor_manager_thread", None)
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        if manager is not None:
            manager.join(timeout=10)


class AIPool:
    """Runs :func:`decide` in worker processes (or Ray tasks) for the server's AI seats.

    ``workers`` processes (default :func:`default_workers`) search for the expert and for hints;
    ``quick_workers`` more (default 1) decide for the :data:`QUICK_LEVELS`. Each lane hands its
    workers at most ``max_thinking`` decisions at once (default: one per worker); the others
    wait in a :class:`.ai_queue.FairQueue`. ``decide`` takes the decision's owner (the client
    address that created the game or asked for the hint). With ``ray_address`` the decisions are
    Ray tasks on that cluster instead (``"local"`` starts a Ray instance on this machine).
    ``decider`` is the function run in the worker (tests replace it to make a worker fail).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        max_thinking: int | None = None,
        quick_workers: int = 1,
        ray_address: str | None = None,
        decider: Callable[[DecisionJob], str] = decide,
    ) -> None:
        self.workers = workers or default_workers()
        if self.workers < 1 or quick_workers < 1:
            raise ValueError("the AI pool needs at least one worker in each lane")
        self.max_thinking = max_thinking or self.workers
        self.search = _Lane("search", self.workers, self.max_thinking)
        self.quick = _Lane("quick", quick_workers, max_thinking or quick_workers)
        self.ray_address = ray_address
        self.decider = decider
        self._ray: Any = None
        self._ray_task: Any = None
        self.failures = 0  # failed attempts, for logs and tests
        self.fallbacks = 0  # decisions that ended in a random move
        self.decisions = 0
        self.pending = 0  # decisions asked and not answered yet (waiting for a worker, or searched)
        #: Called after each answered attempt with (seconds waited for a worker, seconds searched).
        self.observe: Callable[[float, float], None] | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def lane(self, level: str) -> _Lane:
        """The lane that decides for ``level``."""
        return self.quick if level in QUICK_LEVELS else self.search

    def start(self) -> None:
        """Start the workers now (in the background), so the first AI move does not wait for them."""
        if self.ray_address is not None:
            return
        for lane in (self.search, self.quick):
            pool = lane.pool()
            for _ in range(lane.workers):
                pool.submit(_warm)

    def worker_pids(self) -> list[int]:
        """The process ids of the workers started so far (both lanes)."""
        pids: list[int] = []
        for lane in (self.search, self.quick):
            processes = getattr(lane.executor, "_processes", None) or {}
            pids.extend(processes)
        return pids

    def workers_alive(self) -> int | None:
        """Worker processes alive now (both lanes); None before they start, or on Ray (no processes here)."""
        if self.ray_address is not None or (self.search.executor is None and self.quick.executor is None):
            return None
        alive = 0
        for lane in (self.search, self.quick):
            # ProcessPoolExecutor has no public count of its processes.
            processes = getattr(lane.executor, "_processes", None) or {}
            alive += sum(1 for process in processes.values() if process.is_alive())
        return alive

    def close(self) -> None:
        for lane in (self.search, self.quick):
            lane.close()
        if self._ray is not None and self._ray.is_initialized():
            self._ray.shutdown()

    # -- deciding -------------------------------------------------------------------------------

    async def _run(self, job: DecisionJob, lane: _Lane, asked: float) -> str:
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
        notation, searched = await loop.run_in_executor(lane.pool(), _timed, self.decider, job)
        if self.observe is not None:
            self.observe(max(0.0, time.perf_counter() - asked - searched), searched)
        return notation

    async def decide(
        self, job: DecisionJob, legal: list[str], fallback: bool = True, *, owner: str | None = None, hint: bool = False
    ) -> str:
        """The AI's action for ``job`` in notation; ``legal`` (the legal actions in notation) is
        what a random fallback picks from when every attempt failed. Without ``fallback``
        (a hint: a random move would mislead) that raises :class:`RuntimeError` instead.
        ``owner`` (default: the game) is whose share of the workers the decision uses; a
        ``hint`` waits while games' moves can go (see :class:`.ai_queue.FairQueue`)."""
        lane = self.lane(job.level)
        ticket = Ticket(owner or job.game_id, job.game_id, hint)
        asked = time.perf_counter()  # the wait in the fair queue counts as queueing
        self.pending += 1
        try:
            await lane.admit(ticket)
            try:
                return await self._decide(job, legal, fallback, lane, asked)
            finally:
                lane.release(ticket)
        finally:
            self.pending -= 1

    async def _decide(self, job: DecisionJob, legal: list[str], fallback: bool, lane: _Lane, asked: float) -> str:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                notation = await self._run(job, lane, asked if attempt == 1 else time.perf_counter())
                if notation not in legal:
                    raise ValueError(f"the agent answered {notation!r}, which is not legal")
                self.decisions += 1
                return notation
            except asyncio.CancelledError:
                raise
            except BrokenProcessPool as exc:
                self.failures += 1
                log.error("AI worker died (game %s, seat %d, try %d): %s", job.game_id, job.seat, attempt, exc)
                lane.replace_broken_pool()
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
        log.error("AI seat %d of game %s plays a random move after %d failed tries", job.seat, job.game_id, ATTEMPTS)
        return random.Random(f"{job.agent_seed}:{len(job.actions)}").choice(legal)

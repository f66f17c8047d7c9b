"""When a computer seat moves: one task per game whose computer seat must act.

The task asks the AI pool (:mod:`.ai_workers`, which decides in worker processes and orders
the decisions of all games fairly) for the move and plays it through :meth:`.GameService.act`,
as a person's move is played. On PostgreSQL several processes may hold a game: the one that
takes the game's advisory lock thinks, the others look again a little later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from .cluster import AILocks

if TYPE_CHECKING:
    from .games import GameService
    from .live import LiveGame

log = logging.getLogger(__name__)

#: Seconds before a process that found another one thinking for a game looks again.
AI_LOCK_RETRY_S = 1.0


class AIDriver:
    """Starts and runs the AI task of each game of ``service`` (see :meth:`ensure`)."""

    def __init__(self, service: GameService, ai_locks: AILocks | None) -> None:
        self.service = service
        self.ai_locks = ai_locks
        self.closing = False

    def ensure(self, game: LiveGame) -> None:
        """Start the game's AI task if an AI seat must act and none is running."""
        if self.closing or game.state.is_over:
            return
        if game.seats[game.state.decision.player].kind != "ai":
            return
        if game.ai_task is not None and not game.ai_task.done():
            return
        game.ai_task = asyncio.get_running_loop().create_task(self._play(game))

    @staticmethod
    def _to_move(game: LiveGame) -> bool:
        state = game.state
        return not state.is_over and game.seats[state.decision.player].kind == "ai"

    async def _play(self, game: LiveGame) -> None:
        # The loop ends only at its top, with no await between the last look at the game and the
        # end of the task: ensure (after a person's move) starts a new task when this one is
        # done, so a task still finishing (releasing its lock) must not miss the AI's turn.
        service = self.service
        while not self.closing and service.live.get(game.id) is game:
            if not self._to_move(game):
                return
            locked = False
            if self.ai_locks is not None:
                # Several processes may hold this game: the one that gets the game's advisory lock
                # thinks, the others look again a little later (a process that dies takes its
                # locks with its session, so another one goes on).
                try:
                    locked = await self._take_lock(game.id)
                except Exception:
                    log.exception("cannot take the AI lock of game %s", game.id)
                    return
                if not locked:
                    await asyncio.sleep(AI_LOCK_RETRY_S)
                    async with game.lock:
                        await service.catch_up(game)
                    continue
            try:
                if locked:
                    async with game.lock:
                        await service.catch_up(game)  # think on the newest position
                going = await self._play_once(game)
            finally:
                if locked and self.ai_locks is not None:
                    await service.store.in_db_thread(self.ai_locks.release, game.id)
            if not going:
                return  # a fault (logged): the next access to the game starts the AI again

    async def _play_once(self, game: LiveGame) -> bool:
        """Make the AI move due now, if any; False after a fault (the task should stop)."""
        if not self._to_move(game):
            return True
        state = game.state
        seat = state.decision.player
        expected = len(state.history)
        legal = [action.notation() for action in state.legal_action_list()]
        # The search runs in a worker process (see ai_workers): never in this event loop's threads.
        notation = await self.service.ai.decide(game.decision_job(seat), legal, owner=game.owner)
        if self.closing:
            return False
        try:
            played = await self.service.act(game, seat, game.parse(notation), expected, by="ai")
        except asyncio.CancelledError:
            raise
        except Exception:
            # A storage fault: the game leaves memory (see act); the next access reloads it.
            log.exception("AI move of seat %d in game %s could not be applied", seat, game.id)
            return False
        if not played and game.seats[seat].kind == "ai":  # (not a seat given back to its person meanwhile)
            log.warning(
                "AI move %d of seat %d in game %s was made elsewhere first: thought twice", expected, seat, game.id
            )
        return True

    async def _take_lock(self, game_id: str) -> bool:
        """Take the game's AI lock in a database thread. A task cancelled meanwhile lets the
        lock go as soon as it is taken (else this process would keep it, and no other one
        would ever think for the game)."""
        locks = self.ai_locks
        assert locks is not None
        executor = self.service.store.executor
        future = asyncio.get_running_loop().run_in_executor(executor, locks.take, game_id)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:

            def let_go(done: asyncio.Future[bool]) -> None:
                if not done.cancelled() and done.exception() is None and done.result():
                    executor.submit(locks.release, game_id)

            future.add_done_callback(let_go)
            raise

    async def close(self) -> None:
        """Stop every game's AI task."""
        self.closing = True
        tasks = [g.ai_task for g in self.service.live.values() if g.ai_task is not None and not g.ai_task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.ai_locks is not None:
            self.ai_locks.close()

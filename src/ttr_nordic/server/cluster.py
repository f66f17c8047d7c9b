"""Several server processes over one PostgreSQL database.

Any process may accept a move for any game: the database orders moves (an action's primary
key is the game and its index, so a second process storing the same index is refused and
catches up instead). Each transaction that stores moves or changes a seat sends
``NOTIFY ttr_moves, '<game id> <origin>'``; PostgreSQL delivers it on commit to every process
listening, which reads what it lacks of that game (if it has the game in memory) and pushes
it to its sockets. A process that lost its listening connection reconnects and catches up
every game it holds (notifications sent meanwhile are gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable

from sqlalchemy import TextClause, text
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)

CHANNEL = "ttr_moves"
RECONNECT_S = 1.0


def listen_dsn(engine: Engine) -> str:
    """The libpq connection string of ``engine``'s database (for psycopg's own connection)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


async def listen_forever(
    dsn: str,
    on_game: Callable[[str], Awaitable[None]],
    on_reconnect: Callable[[], Awaitable[None]],
    ready: asyncio.Event | None = None,
) -> None:
    """Listen on :data:`CHANNEL` until cancelled: ``on_game(game_id)`` for each notification
    (in order, one at a time), ``on_reconnect()`` after the connection was lost and is back."""
    import psycopg

    connected_before = False
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as connection:
                await connection.execute(f"LISTEN {CHANNEL}")
                if connected_before:
                    await on_reconnect()
                connected_before = True
                if ready is not None:
                    ready.set()
                async for notice in connection.notifies():
                    try:
                        await on_game(notice.payload)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("cannot catch up game %s after a notification", notice.payload)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("lost the database notifications (%s); reconnecting", exc)
        connected_before = True
        await asyncio.sleep(RECONNECT_S)


def seat_key(game_id: str, seat: int) -> int:
    """The advisory lock key that stands for "a player of this seat is connected" (signed 64 bits)."""
    return int.from_bytes(hashlib.sha256(f"ttr-seat:{game_id}:{seat}".encode()).digest()[:8], "big", signed=True)


class SeatPresence:
    """Who is connected, seen by every process: each process holds a *shared* advisory lock on
    :func:`seat_key` for each seat with a client connected to it, on one connection of its own
    (PostgreSQL stacks them: one per client). A seat is present somewhere when an *exclusive*
    lock on its key cannot be had (see :data:`TRY_ABSENT`). A process that dies loses its
    connection, and its players' locks with it. Methods block: call them in a database thread."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._mutex = threading.Lock()
        self._connection: Connection | None = None
        self._held: Counter[int] = Counter()

    def _connect(self) -> bool:
        """Open the session if there is none (holding every lock counted); whether it was opened."""
        if self._connection is not None and not self._connection.closed and not self._connection.invalidated:
            return False
        self._connection = self._engine.connect()
        for key, count in self._held.items():  # a new session: hold what is counted (a lost one held it)
            for _ in range(count):
                self._run(_LOCK_SHARED, key)
        return True

    def _run(self, statement: TextClause, key: int) -> None:
        assert self._connection is not None
        self._connection.execute(statement, {"key": key})
        self._connection.commit()  # session-level locks: no transaction stays open

    def _change(self, keys: list[int], statement: TextClause, step: int) -> None:
        with self._mutex:
            for key in keys:
                self._held[key] += step
                if self._held[key] <= 0:
                    del self._held[key]
            try:
                if not self._connect():  # a new session took the counted locks already
                    for key in keys:
                        self._run(statement, key)
            except Exception as exc:
                log.warning("seat presence not shared with the other processes now (%s); will retry", exc)
                if self._connection is not None:
                    with contextlib.suppress(Exception):
                        self._connection.invalidate()
                self._connection = None

    def join(self, game_id: str, seats: Iterable[int]) -> None:
        """A client connected to these seats of the game."""
        self._change([seat_key(game_id, seat) for seat in seats], _LOCK_SHARED, 1)

    def leave(self, game_id: str, seats: Iterable[int]) -> None:
        """That client left."""
        self._change([seat_key(game_id, seat) for seat in seats], _UNLOCK_SHARED, -1)

    def close(self) -> None:
        with self._mutex:
            if self._connection is not None:
                with contextlib.suppress(Exception):
                    self._connection.invalidate()  # the session ends, and its locks with it
                    self._connection.close()
                self._connection = None


def ai_key(game_id: str) -> int:
    """The advisory lock key of a game's computer moves (signed 64 bits)."""
    return int.from_bytes(hashlib.sha256(f"ttr-ai:{game_id}".encode()).digest()[:8], "big", signed=True)


class AILocks:
    """Which process thinks for a game's computer seat: the one holding the game's exclusive
    advisory lock (:func:`ai_key`). Like :class:`SeatPresence`, every lock of the process sits on
    one connection of its own, so a thinking computer never keeps a pooled connection checked
    out, and a process that dies lets go of its games. Methods block: call them in a database
    thread."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._mutex = threading.Lock()
        self._connection: Connection | None = None
        self._held: set[int] = set()

    def _session(self) -> Connection:
        if self._connection is None or self._connection.closed or self._connection.invalidated:
            self._held.clear()  # a lost session held nothing any more
            self._connection = self._engine.connect()
        return self._connection

    def _drop(self, exc: Exception) -> None:
        log.warning("AI locks not shared with the other processes now (%s); will reconnect", exc)
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.invalidate()
        self._connection = None
        self._held.clear()

    def take(self, game_id: str) -> bool:
        """Whether this process may think for ``game_id`` now (False: another one does)."""
        key = ai_key(game_id)
        with self._mutex:
            if key in self._held:  # one computer task per game in a process: taken twice is a bug
                return False
            try:
                session = self._session()
                got = bool(session.execute(_TRY_LOCK, {"key": key}).scalar())
                session.commit()  # session-level locks: no transaction stays open
            except Exception as exc:
                self._drop(exc)
                raise
            if got:
                self._held.add(key)
            return got

    def release(self, game_id: str) -> None:
        key = ai_key(game_id)
        with self._mutex:
            if key not in self._held:
                return
            self._held.discard(key)
            try:
                session = self._session()
                session.execute(_UNLOCK, {"key": key})
                session.commit()
            except Exception as exc:
                self._drop(exc)  # the session goes, and the lock with it

    def close(self) -> None:
        with self._mutex:
            if self._connection is not None:
                with contextlib.suppress(Exception):
                    # Invalidated, not returned to the pool: only a session that ends lets go of
                    # its locks (a pooled one would keep them).
                    self._connection.invalidate()
                    self._connection.close()
                self._connection = None
            self._held.clear()


_TRY_LOCK = text("SELECT pg_try_advisory_lock(:key)")
_UNLOCK = text("SELECT pg_advisory_unlock(:key)")
_LOCK_SHARED = text("SELECT pg_advisory_lock_shared(:key)")
_UNLOCK_SHARED = text("SELECT pg_advisory_unlock_shared(:key)")
#: In a transaction: true when no process has a client on the seat (and none can join it until
#: the transaction ends, so a seat change made in it is seen by whoever connects next).
TRY_ABSENT = text("SELECT pg_try_advisory_xact_lock(:key)")

"""The SQL of games, seats and actions, run in database threads of their own.

Writes of actions go through one writer (group commit): the actions of all games that
arrive while a commit is in flight are stored together in the next transaction, so many
games share one commit (one fsync) instead of queueing for the database's write lock. If
that transaction fails, each of its actions is retried in a transaction of its own, so a
refused action (e.g. another process stored that index first) fails alone.

A SQLite file deleted or replaced under the server, or whose shared-memory file cannot be
written, refuses every later write with :class:`StorageError` rather than losing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy import Table, bindparam, insert, select, text, tuple_, update
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.orm import selectinload, sessionmaker

from .cluster import CHANNEL, TRY_ABSENT, seat_key
from .db import ActionRow, GameRow, SeatRow, file_identity, shared_memory_fault, sqlite_path, utcnow

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

ACTIVE = "active"
FINISHED = "finished"


class StorageError(RuntimeError):
    """An action could not be stored (so it was not applied)."""


class SeatPresent(ValueError):
    """A seat cannot be handed to the computer: its player is connected (to some server process)."""


class SeatChanged(LookupError):
    """A move was refused because its seat changed hands (person or computer) before it was stored."""


@dataclass(frozen=True)
class Append:
    """One action to store."""

    game_id: str
    index: int
    seat: int
    notation: str
    winners: str | None  # "0,1" when this action ends the game
    # Who the seat must belong to for this move to be stored ("human" or "ai"; None: not checked):
    # checked in the storing transaction, so a seat handed over by another process meanwhile
    # refuses the move (see :class:`SeatChanged`).
    kind: str | None = None


# Core statements for the writer, run with a list of parameter sets (executemany).
_GAMES = cast(Table, GameRow.__table__)
_TOUCH_GAME = update(_GAMES).where(_GAMES.c.id == bindparam("b_game")).values(updated_at=bindparam("b_now"))
_END_GAME = (
    update(_GAMES)
    .where(_GAMES.c.id == bindparam("b_game"))
    .values(
        updated_at=bindparam("b_now"), status=FINISHED, finished_at=bindparam("b_now"), winners=bindparam("b_winners")
    )
)
_ADD_ACTIONS = insert(cast(Table, ActionRow.__table__))
_SEATS = cast(Table, SeatRow.__table__)
_NOTIFY = text("SELECT pg_notify(:channel, :game)")


def _notify(connection: Connection, game_ids: list[str], origin: str) -> None:
    """On PostgreSQL, tell the other server processes (see :mod:`.cluster`) that these games
    changed (``"<game id> <origin>"``: a process skips its own); delivered when the
    transaction commits, so never before the change is stored."""
    if connection.dialect.name == "postgresql":
        for game_id in dict.fromkeys(game_ids):
            connection.execute(_NOTIFY, {"channel": CHANNEL, "game": f"{game_id} {origin}"})


def _check_seat_kinds(connection: Connection, batch: list[Append]) -> None:
    """Raise :class:`SeatChanged` if a seat of ``batch`` is no longer played as its move assumed."""
    wanted = {(item.game_id, item.seat): item.kind for item in batch if item.kind is not None}
    if not wanted:
        return
    rows = connection.execute(
        select(_SEATS.c.game_id, _SEATS.c.seat, _SEATS.c.kind).where(
            tuple_(_SEATS.c.game_id, _SEATS.c.seat).in_(list(wanted))
        )
    )
    for game_id, seat, kind in rows:
        if kind != wanted[(game_id, seat)]:
            raise SeatChanged(
                f"seat {seat} of game {game_id} is played by the {'computer' if kind == 'ai' else 'person'}"
            )


#: The first four bytes of a SQLite write-ahead log (big-endian; the last bit is the checksums' byte order).
WAL_MAGIC = (0x377F0682, 0x377F0683)


def wal_fault(database: Path | None) -> str | None:
    """Why ``database``'s write-ahead log cannot hold what was just committed to it, or None.

    Right after a commit the log holds it, behind a header that starts with :data:`WAL_MAGIC`,
    or it is empty (a checkpoint copied everything into the database and truncated it). A log
    that is missing, or whose header is gone (truncated or overwritten by another program while
    this one kept appending after the end it knew), holds nothing that will survive: the commit
    must not be acknowledged. (SQLite keeps no lock on this file, so reading it is safe.)

    >>> import tempfile
    >>> database = Path(tempfile.mkdtemp()) / "games.sqlite"
    >>> _ = Path(f"{database}-wal").write_bytes(bytes.fromhex("377f0682") + bytes(28))
    >>> wal_fault(database) is None
    True
    >>> _ = Path(f"{database}-wal").write_bytes(bytes(4096))  # appended to after a cut: no header
    >>> wal_fault(database).endswith("truncated or overwritten by another program")
    True
    """
    if database is None:
        return None
    wal = Path(f"{database}-wal")
    try:
        with wal.open("rb") as file:
            head = file.read(4)
    except FileNotFoundError:
        return f"its write-ahead log {wal} was deleted"
    except OSError as exc:
        return f"its write-ahead log {wal} cannot be read ({exc.strerror})"
    if not head:
        return None
    if len(head) < 4 or int.from_bytes(head, "big") not in WAL_MAGIC:
        return f"its write-ahead log {wal} was truncated or overwritten by another program"
    return None


class GameStore:
    """The games' rows: read, insert, append actions (group commit), change seats.

    Methods without ``async`` block: call them through :meth:`in_db_thread`. ``origin`` names
    this process in its PostgreSQL notifications."""

    def __init__(self, engine: Engine, origin: str) -> None:
        self.engine = engine
        self.origin = origin
        self.shared = engine.dialect.name == "postgresql"
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        # Database calls get threads of their own: never queued behind anything else.
        self.executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ttr-db")
        self._pending: list[tuple[Append, asyncio.Future[datetime]]] = []
        self._writer: asyncio.Task[None] | None = None
        # A SQLite file deleted or replaced while the server runs would take every later move
        # with it: each commit checks that the file is still the one opened.
        self.sqlite_path = sqlite_path(engine)
        self._sqlite_identity = file_identity(self.sqlite_path)
        self._shm_fault: str | None = None
        self._wal_fault_logged = False

    async def in_db_thread(self, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``function`` in a database thread (after checking the database can be touched)."""
        loop = asyncio.get_running_loop()

        def guarded() -> R:
            self._check_shared_memory()
            return function(*args, **kwargs)

        return await loop.run_in_executor(self.executor, guarded)

    def _check_shared_memory(self) -> None:
        """Refuse to touch a SQLite database whose shared-memory file was made unwritable
        (SQLite's next access would be a SIGBUS: see :func:`.db.unwritable_attribute`);
        logged when that starts and when it ends."""
        fault = shared_memory_fault(self.sqlite_path)
        if (fault is None) != (self._shm_fault is None):
            if fault is not None:
                log.error("game database unusable: %s", fault)
            else:
                log.warning("game database usable again: its shared-memory file is writable")
            self._shm_fault = fault
        if fault is not None:
            raise StorageError(fault)

    def check_still_stored(self) -> None:
        """Raise :class:`StorageError` if what was just committed may not be kept: the SQLite
        file is no longer the one opened, or its write-ahead log was cut under the server (see
        :func:`wal_fault`)."""
        if self.sqlite_path is None:
            return
        if file_identity(self.sqlite_path) != self._sqlite_identity:
            raise StorageError(f"the database file {self.sqlite_path} was deleted or replaced: nothing is stored")
        fault = wal_fault(self.sqlite_path)
        if fault is not None:
            if not self._wal_fault_logged:
                log.error("game database unusable: %s", fault)
                self._wal_fault_logged = True
            raise StorageError(f"the game database changed under the server ({fault}): nothing is stored")

    # ------------------------------------------------------------ reads

    def read(self, game_id: str) -> tuple[GameRow, list[ActionRow]] | None:
        """A game's row (with its seats) and all its actions in order; None if there is none."""
        with self.sessions() as session:
            row = session.scalars(
                select(GameRow).options(selectinload(GameRow.seats)).where(GameRow.id == game_id)
            ).one_or_none()
            if row is None:
                return None
            actions = list(
                session.scalars(select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.index))
            )
            return row, actions

    def read_since(self, game_id: str, start: int) -> tuple[list[SeatRow], list[ActionRow]]:
        """The seats of a game and its actions from index ``start`` on."""
        with self.sessions() as session:
            seats = list(session.scalars(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)))
            actions = list(
                session.scalars(
                    select(ActionRow)
                    .where(ActionRow.game_id == game_id, ActionRow.index >= start)
                    .order_by(ActionRow.index)
                )
            )
            return seats, actions

    def rows(self, game_ids: list[str]) -> list[GameRow]:
        """The rows (with seats) of those of ``game_ids`` that exist."""
        with self.sessions() as session:
            query = select(GameRow).options(selectinload(GameRow.seats)).where(GameRow.id.in_(game_ids))
            return list(session.scalars(query))

    def finished(self, limit: int, offset: int) -> list[GameRow]:
        """Finished games, newest first."""
        with self.sessions() as session:
            query = (
                select(GameRow)
                .options(selectinload(GameRow.seats))
                .where(GameRow.status == FINISHED)
                .order_by(GameRow.finished_at.desc(), GameRow.id)
                .limit(limit)
                .offset(offset)
            )
            return list(session.scalars(query))

    def seat_absent(self, game_id: str, seat: int) -> bool:
        """On PostgreSQL: whether no process has a client of ``seat`` (see :class:`.cluster.SeatPresence`)."""
        with self.engine.begin() as connection:
            return bool(connection.execute(TRY_ABSENT, {"key": seat_key(game_id, seat)}).scalar())

    # ------------------------------------------------------------ writes

    def insert(self, game: GameRow, *also: object) -> None:
        """Store a new game with its seats (and ``also``, rows of other tables, e.g. its clock)."""
        with self.sessions.begin() as session:
            session.add(game)
            session.flush()  # the game's row first: the others refer to it
            session.add_all(also)
        self.check_still_stored()

    def append(self, game_id: str, index: int, seat: int, notation: str, winners: str | None) -> datetime:
        """Store one action at once (outside the writer)."""
        return self.append_many([Append(game_id, index, seat, notation, winners)])

    def append_many(self, batch: list[Append]) -> datetime:
        """Store ``batch`` in one transaction (all or nothing); returns the time stamped.

        One statement per kind of row for the whole batch (executemany): the games' new
        status, then the actions."""
        now = utcnow()
        games: list[dict[str, object]] = []
        ended: list[dict[str, object]] = []
        for item in batch:
            if item.winners is None:
                games.append({"b_game": item.game_id, "b_now": now})
            else:
                ended.append({"b_game": item.game_id, "b_now": now, "b_winners": item.winners})
        with self.engine.begin() as connection:
            for statement, params in ((_TOUCH_GAME, games), (_END_GAME, ended)):
                if not params:
                    continue
                result = connection.execute(statement, params)
                if connection.dialect.supports_sane_multi_rowcount and result.rowcount != len(params):
                    raise LookupError("a game of this batch vanished")
            # After the games' rows are locked (above): a seat change stored by another process
            # (which locks the game's row first, see store_seat) is either committed and seen
            # here, or waits for this transaction.
            _check_seat_kinds(connection, batch)
            connection.execute(
                _ADD_ACTIONS,
                [
                    {"game_id": i.game_id, "idx": i.index, "seat": i.seat, "notation": i.notation, "created_at": now}
                    for i in batch
                ],
            )
            _notify(connection, [i.game_id for i in batch], self.origin)
        self.check_still_stored()
        return now

    def append_batch(self, batch: list[Append]) -> list[datetime | Exception]:
        """Store ``batch`` together; if that fails, each action alone (so only the bad ones fail)."""
        try:
            moment = self.append_many(batch)
            return [moment] * len(batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
        results: list[datetime | Exception] = []
        for item in batch:
            try:
                results.append(self.append_many([item]))
            except Exception as exc:
                results.append(exc)
        return results

    async def store(self, item: Append) -> datetime:
        """Store one action through the writer; returns when it is committed (or raises)."""
        future: asyncio.Future[datetime] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_pending())
        return await future

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                results = await self.in_db_thread(self.append_batch, [item for item, _ in batch])
            except StorageError as exc:  # the database cannot be used now: every action of the batch fails
                results = [exc] * len(batch)
            except BaseException as exc:  # cancelled, or the thread could not run
                for _, future in batch:
                    if not future.done():
                        future.set_exception(StorageError(f"the action could not be stored: {exc!r}"))
                raise
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    def store_seat(self, game_id: str, seat: int, kind: str, level: str | None, absent: bool = False) -> None:
        """Store who plays ``seat`` now. The game's row is locked first, as a move's transaction
        does (see append_many), so a move and a seat change stored by two processes at once are
        ordered: the move is checked against the seat as it is when the move is stored. With
        ``absent`` (PostgreSQL only) the change is refused with :class:`SeatPresent` while a
        process has a client of the seat. Raises
        ``ValueError`` if the game ended or the seat already changed hands meanwhile."""
        with self.sessions.begin() as session:
            touched: CursorResult[Any] = session.execute(  # type: ignore[assignment]
                update(_GAMES).where(_GAMES.c.id == game_id, _GAMES.c.status == ACTIVE).values(updated_at=utcnow())
            )
            if touched.rowcount == 0:
                raise ValueError("the game is over")
            if absent and not session.execute(TRY_ABSENT, {"key": seat_key(game_id, seat)}).scalar():
                raise SeatPresent(f"seat {seat}'s player is connected: only an absent seat")
            row = session.get(SeatRow, (game_id, seat))
            if row is None:
                raise LookupError(f"game {game_id} has no seat {seat}")
            if row.kind == kind:
                raise ValueError(
                    f"seat {seat} was changed meanwhile (it is the {'computer' if kind == 'ai' else 'person'}'s)"
                )
            row.kind, row.ai_level = kind, level
            _notify(session.connection(), [game_id], self.origin)

    async def flush(self) -> None:
        """Wait for the actions being stored."""
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer

    def shutdown(self) -> None:
        """Stop the database threads (after :meth:`flush`)."""
        self.executor.shutdown(wait=False)

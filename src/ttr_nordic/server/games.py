"""Live games: the authoritative state of each game in memory, backed by the database.

Every accepted action is written (one row, same transaction as the game's new status)
before it is applied in memory and broadcast, so whatever a client was told survives a
crash. A game not in memory is rebuilt on first access by replaying its stored actions.

Writes of actions go through one writer (group commit): the actions of all games that
arrive while a commit is in flight are stored together in the next transaction, so many
games share one commit (one fsync) instead of queueing for the database's write lock. If
that transaction fails, each of its actions is retried in a transaction of its own, so a
refused action (e.g. another process stored that index first) fails alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy import Table, bindparam, insert, select, text, tuple_, update
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.orm import selectinload, sessionmaker

from ..engine import (
    Action,
    GameConfig,
    GameRecord,
    GameState,
    RecordError,
    parse_action,
)
from .ai_workers import AIPool, DecisionJob
from .cluster import CHANNEL, TRY_ABSENT, AILocks, SeatPresence, listen_dsn, listen_forever, seat_key
from .db import ActionRow, GameRow, SeatRow, file_identity, shared_memory_fault, sqlite_path, utcnow
from .limits import MAX_QUEUED_BYTES, MAX_QUEUED_MESSAGES
from .serialize import JSON, dumps, serialize_legal, serialize_result, serialize_view

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


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC (SQLite hands back naive datetimes; they were stored in UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class SeatSpec:
    """A seat to create: ``kind`` is "human" or "ai" (with a level)."""

    name: str
    kind: str
    level: str | None = None


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    kind: str
    level: str | None
    token_hash: str | None

    def public(self) -> JSON:
        return {"seat": self.seat, "name": self.name, "kind": self.kind, "level": self.level}


@dataclass(eq=False)
class Client:
    """One WebSocket connection: the seats its token controls, the seat it is shown, and
    which log it holds (so that a new state carries only the log entries it lacks)."""

    seats: frozenset[int]
    shown: int
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    log_seat: int = -1  # the seat whose view's log the client holds (-1: none yet)
    log_over: bool = False  # whether that is the end-of-game log (which reveals everything)
    log_length: int = 0  # how many of its entries the client holds
    presence: bool = False  # whether it asked for presence messages (``&presence=1``)
    hinting: bool = False  # a hint is being searched for this connection

    queued_bytes: int = 0  # the size of the text messages waiting in ``queue``
    dropped: bool = False  # set when the client stopped reading and is being closed

    def send(self, message: JSON | str | None) -> None:
        """Queue ``message``, a dict or its JSON text (None closes the connection). A client
        that lets more than :data:`~.limits.MAX_QUEUED_MESSAGES` messages or
        :data:`~.limits.MAX_QUEUED_BYTES` pile up is not reading: its queue is dropped and it is
        closed with :data:`~.limits.CLOSE_NOT_READING`, so it cannot grow the server."""
        if self.dropped:
            return
        if message is None:
            self.queue.put_nowait(None)
            return
        text = message if isinstance(message, str) else dumps(message)
        if self.queue.qsize() >= MAX_QUEUED_MESSAGES or self.queued_bytes + len(text) > MAX_QUEUED_BYTES:
            self.dropped = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queued_bytes = 0
            self.queue.put_nowait(None)
            return
        self.queued_bytes += len(text)
        self.queue.put_nowait(text)

    def log_start(self, seat: int, over: bool, length: int) -> int:
        """The index from which a state of ``seat``'s view (whose log has ``length`` entries)
        must carry the log: what the client holds of that same log, else 0 (all of it)."""
        if self.log_seat == seat and self.log_over == over and self.log_length <= length:
            return self.log_length
        return 0


@dataclass(eq=False)
class LiveGame:
    id: str
    mode: str
    state: GameState
    seats: list[Seat]
    created_at: datetime
    updated_at: datetime
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    ai_task: asyncio.Task[None] | None = None
    last_used: float = field(default_factory=time.monotonic)  # for unloading idle games
    public_seats: list[JSON] = field(init=False)

    def __post_init__(self) -> None:
        self.public_seats = [s.public() for s in self.seats]

    @property
    def status(self) -> str:
        return FINISHED if self.state.is_over else ACTIVE

    def present(self) -> list[int]:
        """The seats with at least one connected client, in seat order (a seat handed to the
        computer is there when its player watches)."""
        held: set[int] = set()
        for client in self.clients:
            held |= client.seats
        return sorted(held)

    def presence_message(self) -> JSON:
        """Who is connected now (seats with a client); the computer's own seats have none."""
        return {"type": "presence", "game_id": self.id, "present": self.present()}

    def announce_presence(self) -> None:
        """Tell the clients that asked who is connected now (after one connected or left)."""
        text = dumps(self.presence_message())
        for client in self.clients:
            if client.presence:
                client.send(text)

    def seats_for(self, token: str) -> frozenset[int]:
        """The seats ``token`` controls (none for a wrong token)."""
        digest = hash_token(token)
        return frozenset(
            s.seat for s in self.seats if s.token_hash is not None and hmac.compare_digest(s.token_hash, digest)
        )

    def decision_job(self, seat: int, level: str | None = None) -> DecisionJob:
        """What a worker needs to decide for ``seat`` now: its AI, or an agent of ``level``
        (a hint for a person's seat)."""
        config = self.state.config
        return DecisionJob(
            game_id=self.id,
            players=config.players,
            seed=config.seed,
            first_player=config.first_player,
            actions=tuple(action.notation() for action in self.state.history),
            seat=seat,
            level=level or self.seats[seat].level or "easy",
            agent_seed=random.Random(f"{config.seed}:{seat}").getrandbits(32),
        )

    def summary(self) -> JSON:
        """What anyone may know about the game (no hands, tickets or seed)."""
        state = self.state
        decision = state.decision
        data: JSON = {
            "id": self.id,
            "mode": self.mode,
            "status": self.status,
            "players": state.num_players,
            "seats": self.public_seats,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
            "actions": len(state.history),
            "turn": state.turn,
            "current": decision.player if decision.player >= 0 else None,
            "phase": decision.phase.name,
            "scores": list(state.scores),
            "trains": list(state.trains),
            "result": None,
        }
        if state.is_over:
            data["result"] = serialize_result(state.board, state.result())
        return data

    def state_message(self, seat: int, log_start: int = 0) -> JSON:
        """The state of ``seat``'s view, its log from entry ``log_start`` on; the legal actions
        (with labels) only when ``seat`` must act and a person plays it."""
        state = self.state
        # A seat handed to the computer is offered nothing: its old link only watches.
        mine = state.decision.player == seat and self.seats[seat].kind == "human"
        legal = state.legal_action_list() if mine else []
        return {
            "type": "state",
            "game_id": self.id,
            "seat": seat,
            "seats": self.public_seats,
            "actions": len(state.history),
            "log_start": log_start,
            "view": serialize_view(state.view(seat), log_start),
            "legal": serialize_legal(state.board, legal),
        }

    def state_text(self, client: Client, cache: dict[tuple[int, int], str] | None = None) -> str:
        """The state message for ``client`` (the seat it is shown) as JSON text, carrying only
        the log entries it does not hold yet; records that it now holds them. Messages are
        shared through ``cache`` by clients shown the same seat that hold the same log."""
        state = self.state
        seat, over, length = client.shown, state.is_over, len(state.log)
        start = client.log_start(seat, over, length)
        key = (seat, start)
        text = None if cache is None else cache.get(key)
        if text is None:
            text = dumps(self.state_message(seat, start))
            if cache is not None:
                cache[key] = text
        client.log_seat, client.log_over, client.log_length = seat, over, length
        return text

    def game_over_message(self) -> JSON:
        result = self.state.result()
        return {
            "type": "game_over",
            "game_id": self.id,
            "winners": [self.seats[w].name for w in result.winners],
            "result": serialize_result(self.state.board, result),
        }

    def show(self, client: Client) -> None:
        """Queue the state for ``client`` with the whole log (and the result when the game is over)."""
        client.log_seat = -1
        client.send(self.state_text(client))
        if self.state.is_over:
            client.send(dumps(self.game_over_message()))

    def broadcast(self) -> None:
        """Queue each client's new state; a hotseat client follows the seat that must act."""
        decision = self.state.decision
        cache: dict[tuple[int, int], str] = {}
        over = dumps(self.game_over_message()) if self.state.is_over else None
        for client in self.clients:
            if decision.player in client.seats:
                client.shown = decision.player
            client.send(self.state_text(client, cache))
            if over is not None:
                client.send(over)

    def record(self) -> GameRecord:
        record = self.state.record()
        meta = {
            "game_id": self.id,
            "mode": self.mode,
            "seats": [s.public() for s in self.seats],
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
        }
        return GameRecord(record.config, record.actions, meta)


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


#: One statement takes a game-creation token from a client's bucket, refilled since its last
#: use, and says whether there was one; the row lock orders processes asking at once.
_TAKE_CREATION_TOKEN = text(
    """
    INSERT INTO creation_buckets AS b (client, tokens, granted, updated_at)
    VALUES (:client, :burst - 1, TRUE, now())
    ON CONFLICT (client) DO UPDATE SET
      granted = LEAST(:burst, b.tokens + EXTRACT(EPOCH FROM (now() - b.updated_at)) * :rate) >= 1,
      tokens = LEAST(:burst, b.tokens + EXTRACT(EPOCH FROM (now() - b.updated_at)) * :rate)
               - CASE WHEN LEAST(:burst, b.tokens + EXTRACT(EPOCH FROM (now() - b.updated_at)) * :rate) >= 1
                      THEN 1 ELSE 0 END,
      updated_at = now()
    RETURNING granted
    """
)
_FORGET_OLD_BUCKETS = text("DELETE FROM creation_buckets WHERE updated_at < now() - interval '1 hour'")

#: Seconds before a process that found another one thinking for a game looks again.
AI_LOCK_RETRY_S = 1.0


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


class GameService:
    """Creates, loads and advances games; one per running app."""

    def __init__(self, engine: Engine, ai: AIPool | None = None, *, idle_unload_s: float = 600.0) -> None:
        self.engine = engine
        self.ai = ai or AIPool()
        self.idle_unload_s = idle_unload_s
        # Database calls get threads of their own: never queued behind anything else.
        self._db = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ttr-db")
        self._sweeper: asyncio.Task[None] | None = None
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self.live: dict[str, LiveGame] = {}
        self._load_lock = asyncio.Lock()
        self._closing = False
        self._pending: list[tuple[Append, asyncio.Future[datetime]]] = []
        self._writer: asyncio.Task[None] | None = None
        # A SQLite file deleted or replaced while the server runs would take every later move
        # with it: each commit checks that the file is still the one opened.
        self._sqlite_path = sqlite_path(engine)
        self._sqlite_identity = file_identity(self._sqlite_path)
        self._shm_fault: str | None = None
        # On PostgreSQL other server processes may store moves of the games held here.
        self.shared = engine.dialect.name == "postgresql"
        self.origin = uuid.uuid4().hex[:12]  # names this process in its notifications
        self._listener: asyncio.Task[None] | None = None
        # Who is connected to which seat, across processes (PostgreSQL only; one process sees its own).
        self.presence = SeatPresence(engine) if self.shared else None
        self.ai_locks = AILocks(engine) if self.shared else None
        self._presence_tasks: set[asyncio.Future[None]] = set()
        self._presence_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttr-presence")
        self.listening = asyncio.Event()
        self.moves = {"human": 0, "ai": 0}  # actions stored by this process, by who made them (metrics)

    # ------------------------------------------------------------ database (sync, run in threads)

    async def _in_db_thread(self, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        loop = asyncio.get_running_loop()

        def guarded() -> R:
            self._check_shared_memory()
            return function(*args, **kwargs)

        return await loop.run_in_executor(self._db, guarded)

    def _check_shared_memory(self) -> None:
        """Refuse to touch a SQLite database whose shared-memory file was made unwritable
        (SQLite's next access would be a SIGBUS: see :func:`.db.unwritable_attribute`);
        logged when that starts and when it ends."""
        fault = shared_memory_fault(self._sqlite_path)
        if (fault is None) != (self._shm_fault is None):
            if fault is not None:
                log.error("game database unusable: %s", fault)
            else:
                log.warning("game database usable again: its shared-memory file is writable")
            self._shm_fault = fault
        if fault is not None:
            raise StorageError(fault)

    def _insert(self, game: GameRow) -> None:
        with self.sessions.begin() as session:
            session.add(game)
        self._check_still_stored()

    def _read(self, game_id: str) -> tuple[GameRow, list[ActionRow]] | None:
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

    def _append(self, game_id: str, index: int, seat: int, notation: str, winners: str | None) -> datetime:
        return self._append_many([Append(game_id, index, seat, notation, winners)])

    def _append_many(self, batch: list[Append]) -> datetime:
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
            # (which locks the game's row first, see _store_seat) is either committed and seen
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
        self._check_still_stored()
        return now

    def _check_still_stored(self) -> None:
        if self._sqlite_path is not None and file_identity(self._sqlite_path) != self._sqlite_identity:
            raise StorageError(f"the database file {self._sqlite_path} was deleted or replaced: nothing is stored")

    def _append_batch(self, batch: list[Append]) -> list[datetime | Exception]:
        """Store ``batch`` together; if that fails, each action alone (so only the bad ones fail)."""
        try:
            moment = self._append_many(batch)
            return [moment] * len(batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
        results: list[datetime | Exception] = []
        for item in batch:
            try:
                results.append(self._append_many([item]))
            except Exception as exc:
                results.append(exc)
        return results

    async def _store(self, item: Append) -> datetime:
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
                results = await self._in_db_thread(self._append_batch, [item for item, _ in batch])
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

    def _store_seat(self, game_id: str, seat: int, kind: str, level: str | None, absent: bool = False) -> None:
        """Store who plays ``seat`` now. The game's row is locked first, as a move's transaction
        does (see _append_many), so a move and a seat change stored by two processes at once are
        ordered: the move is checked against the seat as it is when the move is stored. Raises
        ``ValueError`` if the game ended or the seat already changed hands meanwhile."""
        with self.sessions.begin() as session:
            touched: CursorResult[Any] = session.execute(  # type: ignore[assignment]
                update(_GAMES).where(_GAMES.c.id == game_id, _GAMES.c.status == ACTIVE).values(updated_at=utcnow())
            )
            if touched.rowcount == 0:
                raise ValueError("the game is over")
            if absent and self.shared and not session.execute(TRY_ABSENT, {"key": seat_key(game_id, seat)}).scalar():
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

    def _read_since(self, game_id: str, start: int) -> tuple[list[SeatRow], list[ActionRow]]:
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

    def _rows(self, game_ids: list[str]) -> list[GameRow]:
        with self.sessions() as session:
            query = select(GameRow).options(selectinload(GameRow.seats)).where(GameRow.id.in_(game_ids))
            return list(session.scalars(query))

    def _finished(self, limit: int, offset: int) -> list[GameRow]:
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

    # ------------------------------------------------------------ games

    async def create(
        self, mode: str, seats: list[SeatSpec], first_player: int | None
    ) -> tuple[LiveGame, dict[int, str]]:
        """Create and store a game; returns it and the secret token of each human seat
        (in hotseat mode every seat has the same token)."""
        config = GameConfig(len(seats), secrets.randbits(63), first_player)
        game_id = uuid.uuid4().hex
        shared = new_token() if mode == "hotseat" else None
        tokens: dict[int, str] = {}
        rows: list[SeatRow] = []
        for index, spec in enumerate(seats):
            token = None if spec.kind == "ai" else (shared or new_token())
            if token is not None:
                tokens[index] = token
            rows.append(
                SeatRow(
                    seat=index,
                    name=spec.name,
                    kind=spec.kind,
                    ai_level=spec.level,
                    token_hash=None if token is None else hash_token(token),
                )
            )
        now = utcnow()
        row = GameRow(
            id=game_id,
            mode=mode,
            players=config.players,
            seed=config.seed,
            first_player=config.first_player,
            status=ACTIVE,
            created_at=now,
            updated_at=now,
            seats=rows,
        )
        state = GameState.from_config(config)
        await self._in_db_thread(self._insert, row)
        game = LiveGame(game_id, mode, state, [_seat(r) for r in rows], now, now)
        self.live[game_id] = game
        self.ensure_ai(game)
        return game, tokens

    async def get(self, game_id: str) -> LiveGame | None:
        """The live game, rebuilt from the database by replay if it is not in memory."""
        game = self.live.get(game_id)
        if game is not None:
            game.last_used = time.monotonic()
            return game
        async with self._load_lock:
            game = self.live.get(game_id)
            if game is not None:
                return game
            loaded = await self._in_db_thread(self._read, game_id)
            if loaded is None:
                return None
            row, actions = loaded
            state = GameState.from_config(GameConfig(row.players, row.seed, row.first_player))
            for index, action_row in enumerate(actions):
                if action_row.index != index:
                    raise RecordError(f"game {game_id}: action {index} is missing from the database")
                try:
                    state.apply(parse_action(action_row.notation), action_row.seat)
                except ValueError as exc:
                    raise RecordError(f"game {game_id}: stored action {index} does not replay: {exc}") from exc
            game = LiveGame(row.id, row.mode, state, [_seat(r) for r in row.seats], row.created_at, row.updated_at)
            self.live[game_id] = game
            if self.shared:
                # A move another process stored while this one read the game was announced before
                # the game was held here: read what came since.
                async with game.lock:
                    await self._catch_up(game)
        self.ensure_ai(game)
        return game

    async def finished(self, limit: int, offset: int) -> list[JSON]:
        rows = await self._in_db_thread(self._finished, limit, offset)
        return [
            {
                "id": r.id,
                "mode": r.mode,
                "players": r.players,
                "seats": [_seat(s).public() for s in r.seats],
                "created_at": iso(r.created_at),
                "finished_at": None if r.finished_at is None else iso(r.finished_at),
                "winners": [int(w) for w in r.winners.split(",")] if r.winners else [],
            }
            for r in rows
        ]

    async def mine(self, pairs: list[tuple[str, str]]) -> tuple[list[JSON], list[str]]:
        """The summaries of the games whose token is right, each with the seats that token
        controls (``"mine"``) and who is connected (``"present"``), in the order asked; and the
        ids that matched no game or whose token opens no seat there (not told apart, so a guess
        learns nothing). A finished game is summed up from its stored row (not replayed into
        memory: a browser may hold many); an active one is the live game."""
        rows = {row.id: row for row in await self._in_db_thread(self._rows, [game_id for game_id, _ in pairs])}
        found: list[JSON] = []
        unknown: list[str] = []
        for game_id, token in pairs:
            row = rows.get(game_id)
            digest = hash_token(token)
            seats = sorted(
                s.seat for s in (row.seats if row else []) if s.token_hash and hmac.compare_digest(s.token_hash, digest)
            )
            if row is None or not seats:
                unknown.append(game_id)
                continue
            summary: JSON
            if row.status == FINISHED:
                summary = {
                    "id": row.id,
                    "mode": row.mode,
                    "status": FINISHED,
                    "players": row.players,
                    "seats": [_seat(s).public() for s in row.seats],
                    "created_at": iso(row.created_at),
                    "updated_at": iso(row.updated_at),
                    "current": None,
                    "present": [],
                }
            else:
                try:
                    game = await self.get(game_id)
                except RecordError:
                    game = None
                if game is None:
                    unknown.append(game_id)
                    continue
                summary = game.summary()
                summary["present"] = game.present()
            summary["finished_at"] = None if row.finished_at is None else iso(row.finished_at)
            summary["winners"] = [int(w) for w in row.winners.split(",")] if row.winners else []
            summary["mine"] = seats
            found.append(summary)
        return found, unknown

    async def hand_over(self, game: LiveGame, seat: int, level: str) -> None:
        """Give human ``seat`` to the computer at ``level``: stored (it survives a restart),
        then every client is sent the new seats and the AI plays. The caller checks who may
        ask; raises ``ValueError`` when the seat cannot be handed over."""
        await self._reassign(game, seat, level)

    async def hand_back(self, game: LiveGame, seat: int) -> None:
        """Give a seat handed to the computer back to its player (the holder of its token).
        Raises ``ValueError`` when the seat was never a person's."""
        await self._reassign(game, seat, None)

    async def _reassign(self, game: LiveGame, seat: int, level: str | None) -> None:
        """The computer at ``level`` plays ``seat`` from now on (None: its person again)."""
        async with game.lock:
            if self.shared:
                await self._catch_up(game)  # decide on the seats as stored (another process may have changed them)
            if game.state.is_over:
                raise ValueError("the game is over")
            if not 0 <= seat < len(game.seats):
                raise ValueError(f"there is no seat {seat}")
            old = game.seats[seat]
            if level is not None and old.kind != "human":
                raise ValueError(f"seat {seat} is not a person's seat")
            if level is None and (old.kind != "ai" or old.token_hash is None):
                raise ValueError(f"seat {seat} was not handed to the computer")
            kind = "human" if level is None else "ai"
            try:
                # Handing over: refused if the seat's player is connected to another process.
                await self._in_db_thread(self._store_seat, game.id, seat, kind, level, level is not None)
            except ValueError:
                if self.shared:
                    with contextlib.suppress(Exception):
                        await self._catch_up(game)
                raise
            except Exception as exc:
                log.exception("cannot change who plays seat %d of game %s", seat, game.id)
                raise StorageError(f"the seat could not be changed: {type(exc).__name__}") from exc
            task = game.ai_task
            if level is None and task is not None and not task.done() and game.state.decision.player == seat:
                # The computer is thinking for this seat: its move must not land now. A new task
                # serves the game's other computer seats (ensure_ai below).
                task.cancel()
                game.ai_task = None
            # A handed-over seat keeps its token: its player may watch (acting is refused, see
            # app) and be given the seat back.
            game.seats[seat] = Seat(seat, old.name, kind, level, old.token_hash)
            game.public_seats = [s.public() for s in game.seats]
            game.broadcast()
            game.announce_presence()
        self.ensure_ai(game)

    async def act(
        self, game: LiveGame, seat: int, action: Action, expected: int | None = None, *, by: str = "human"
    ) -> bool:
        """Apply ``action`` for ``seat``, played by ``by`` ("human" or "ai"): check, store,
        apply, broadcast. Raises :class:`IllegalActionError` (nothing changes), or
        :class:`StorageError` if the database refuses the write (nothing changes either). With
        ``expected`` (the number of actions the caller saw), returns False without acting if
        the game moved on; returns False too if the seat is no longer played by ``by`` (handed
        over or back, maybe by another process: checked again where the move is stored)."""
        async with game.lock:
            if self.shared:
                await self._catch_up(game)
            state = game.state
            if expected is not None and len(state.history) != expected:
                return False
            if game.seats[seat].kind != by:
                return False
            state.check(action, seat)
            index = len(state.history)
            after = state.clone()
            after.apply_unchecked(action)
            winners = ",".join(str(w) for w in after.result().winners) if after.is_over else None
            try:
                game.updated_at = await self._store(Append(game.id, index, seat, action.notation(), winners, by))
            except Exception as exc:
                changed_elsewhere = False
                if self.shared:
                    with contextlib.suppress(Exception):
                        if await self._catch_up(game):
                            # Another process stored this index first, or changed who plays the
                            # seat: this move came too late.
                            log.info("action %d of game %s was refused: the game changed elsewhere", index, game.id)
                            changed_elsewhere = True
                if changed_elsewhere:
                    self.ensure_ai(game)
                    return False
                # Else forget the cached state so the next access replays what the database holds.
                log.exception("cannot store action %d of game %s", index, game.id)
                self.live.pop(game.id, None)
                reason = str(exc) if isinstance(exc, StorageError) else type(exc).__name__
                raise StorageError(f"the action could not be stored: {reason}") from exc
            game.state = after
            game.last_used = time.monotonic()
            self.moves[by] = self.moves.get(by, 0) + 1
            game.broadcast()
        self.ensure_ai(game)
        return True

    # ------------------------------------------------------------ other processes

    async def _catch_up(self, game: LiveGame) -> bool:
        """Apply what other processes stored of ``game`` since it was read here, and its seats'
        changes; broadcast if anything changed (the caller holds ``game.lock``)."""
        seats, actions = await self._in_db_thread(self._read_since, game.id, len(game.state.history))
        changed = False
        new_seats = [_seat(r) for r in seats]
        if new_seats and new_seats != game.seats:
            task = game.ai_task
            # A seat changed hands: the AI task starts again for what is now (unless it is the
            # one catching up, inside its own move: that move is then refused, see act).
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()
                game.ai_task = None
            game.seats = new_seats
            game.public_seats = [s.public() for s in new_seats]
            changed = True
        if actions:
            state = game.state.clone()
            for row in actions:
                if row.index != len(state.history):
                    raise RecordError(f"game {game.id}: action {len(state.history)} is missing from the database")
                try:
                    state.apply(parse_action(row.notation), row.seat)
                except ValueError as exc:
                    raise RecordError(f"game {game.id}: stored action {row.index} does not replay: {exc}") from exc
            game.state = state
            game.updated_at = actions[-1].created_at
            changed = True
        if changed:
            game.last_used = time.monotonic()
            game.broadcast()
        return changed

    async def _heard(self, payload: str) -> None:
        """A notification ``"<game id> <origin>"``: a process changed that game."""
        game_id, _, origin = payload.partition(" ")
        if origin == self.origin:
            return  # stored here: the game is up to date
        game = self.live.get(game_id)
        if game is None:
            return
        async with game.lock:
            await self._catch_up(game)
        self.ensure_ai(game)

    async def _heard_again(self) -> None:
        """The notifications were lost for a while: catch up every game held here."""
        for game_id in list(self.live):
            await self._heard(game_id)

    # ------------------------------------------------------------ AI seats

    def ensure_ai(self, game: LiveGame) -> None:
        """Start the game's AI task if an AI seat must act and none is running."""
        if self._closing or game.state.is_over:
            return
        if game.seats[game.state.decision.player].kind != "ai":
            return
        if game.ai_task is not None and not game.ai_task.done():
            return
        game.ai_task = asyncio.get_running_loop().create_task(self._play_ai(game))

    def _ai_to_move(self, game: LiveGame) -> bool:
        state = game.state
        return not state.is_over and game.seats[state.decision.player].kind == "ai"

    async def _play_ai(self, game: LiveGame) -> None:
        # The loop ends only at its top, with no await between the last look at the game and the
        # end of the task: ensure_ai (after a person's move) starts a new task when this one is
        # done, so a task still finishing (releasing its lock) must not miss the AI's turn.
        while not self._closing and self.live.get(game.id) is game:
            if not self._ai_to_move(game):
                return
            locked = False
            if self.ai_locks is not None:
                # Several processes may hold this game: the one that gets the game's advisory lock
                # thinks, the others look again a little later (a process that dies takes its
                # locks with its session, so another one goes on).
                try:
                    locked = await self._take_ai_lock(game.id)
                except Exception:
                    log.exception("cannot take the AI lock of game %s", game.id)
                    return
                if not locked:
                    await asyncio.sleep(AI_LOCK_RETRY_S)
                    async with game.lock:
                        await self._catch_up(game)
                    continue
            try:
                if locked:
                    async with game.lock:
                        await self._catch_up(game)  # think on the newest position
                going = await self._play_ai_once(game)
            finally:
                if locked and self.ai_locks is not None:
                    await self._in_db_thread(self.ai_locks.release, game.id)
            if not going:
                return  # a fault (logged): the next access to the game starts the AI again

    async def _play_ai_once(self, game: LiveGame) -> bool:
        """Make the AI move due now, if any; False after a fault (the task should stop)."""
        if not self._ai_to_move(game):
            return True
        state = game.state
        seat = state.decision.player
        expected = len(state.history)
        legal = [action.notation() for action in state.legal_action_list()]
        # The search runs in a worker process (see ai_workers): never in this event loop's threads.
        notation = await self.ai.decide(game.decision_job(seat), legal)
        if self._closing:
            return False
        try:
            played = await self.act(game, seat, parse_action(notation), expected, by="ai")
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

    async def take_creation_token(self, client: str, per_minute: float, burst: int) -> bool:
        """On PostgreSQL: whether ``client`` (an address) may create a game now, by a token bucket
        kept in the database, so that the limit holds across every server process."""
        digest = hashlib.sha256(f"ttr-client:{client}".encode()).hexdigest()
        return await self._in_db_thread(self._take_creation_token, digest, per_minute / 60.0, float(burst))

    def _take_creation_token(self, client: str, rate: float, burst: float) -> bool:
        with self.engine.begin() as connection:
            granted = connection.execute(
                _TAKE_CREATION_TOKEN, {"client": client, "rate": rate, "burst": burst}
            ).scalar_one()
            if secrets.randbelow(100) == 0:  # now and then, forget clients unseen for an hour
                connection.execute(_FORGET_OLD_BUCKETS)
        return bool(granted)

    async def _take_ai_lock(self, game_id: str) -> bool:
        """Take the game's AI lock in a database thread. A task cancelled meanwhile lets the
        lock go as soon as it is taken (else this process would keep it, and no other one
        would ever think for the game)."""
        locks = self.ai_locks
        assert locks is not None
        future = asyncio.get_running_loop().run_in_executor(self._db, locks.take, game_id)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:

            def let_go(done: asyncio.Future[bool]) -> None:
                if not done.cancelled() and done.exception() is None and done.result():
                    self._db.submit(locks.release, game_id)

            future.add_done_callback(let_go)
            raise

    # ------------------------------------------------------------ memory

    def start(self, warm_ai: bool = False) -> None:
        """Start the sweeper that unloads idle games (call inside the event loop) and, with
        ``warm_ai``, the AI workers (otherwise they start at the first AI decision)."""
        if warm_ai:
            self.ai.start()
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())
        if self.shared and self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(
                listen_forever(listen_dsn(self.engine), self._heard, self._heard_again, self.listening)
            )

    async def _sweep_forever(self) -> None:
        while not self._closing:
            await asyncio.sleep(max(1.0, min(60.0, self.idle_unload_s / 4)))
            self.unload_idle()

    def unload_idle(self, now: float | None = None) -> list[str]:
        """Forget games nobody is connected to, with no AI thinking, idle for ``idle_unload_s``
        (finished ones at once). They stay stored and come back on the next access."""
        moment = time.monotonic() if now is None else now
        gone = []
        for game_id, game in list(self.live.items()):
            if game.clients or (game.ai_task is not None and not game.ai_task.done()) or game.lock.locked():
                continue
            idle = moment - game.last_used
            if game.state.is_over or idle >= self.idle_unload_s:
                del self.live[game_id]
                gone.append(game_id)
        return gone

    async def seat_present(self, game: LiveGame, seat: int) -> bool:
        """Whether a player of ``seat`` is connected, to this process or (PostgreSQL) another one."""
        if seat in game.present():
            return True
        if not self.shared:
            return False
        return not await self._in_db_thread(self._seat_absent, game.id, seat)

    def _seat_absent(self, game_id: str, seat: int) -> bool:
        with self.engine.begin() as connection:
            return bool(connection.execute(TRY_ABSENT, {"key": seat_key(game_id, seat)}).scalar())

    def joined(self, game: LiveGame, client: Client) -> None:
        """``client`` connected to ``game``: the other processes may know (see :class:`.cluster.SeatPresence`)."""
        if self.presence is not None:
            self._presence_change(self.presence.join, game.id, sorted(client.seats))

    def _presence_change(self, change: Callable[[str, list[int]], None], game_id: str, seats: list[int]) -> None:
        # One thread, so that a client's leave never overtakes its join.
        task = asyncio.get_running_loop().run_in_executor(self._presence_thread, change, game_id, seats)
        self._presence_tasks.add(task)
        task.add_done_callback(self._presence_tasks.discard)

    def release(self, game: LiveGame, client: Client) -> None:
        """Forget ``client`` (the others are told who is still there); a finished game nobody
        watches leaves memory (it stays stored)."""
        if self.presence is not None and client in game.clients:
            self._presence_change(self.presence.leave, game.id, sorted(client.seats))
        game.clients.discard(client)
        if not self._closing:
            game.announce_presence()
        if game.state.is_over and not game.clients and self.live.get(game.id) is game:
            del self.live[game.id]

    async def close(self) -> None:
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        tasks = [g.ai_task for g in self.live.values() if g.ai_task is not None and not g.ai_task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._writer is not None:  # let the actions being stored finish
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer
        for game in self.live.values():
            for client in game.clients:
                client.send(None)
        self.ai.close()
        if self._presence_tasks:
            await asyncio.gather(*self._presence_tasks, return_exceptions=True)
        if self.presence is not None:
            self.presence.close()
        if self.ai_locks is not None:
            self.ai_locks.close()
        self._presence_thread.shutdown(wait=False)
        self._db.shutdown(wait=False)


def _seat(row: SeatRow) -> Seat:
    return Seat(row.seat, row.name, row.kind, row.ai_level, row.token_hash)

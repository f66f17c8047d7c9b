"""Games: create, load, advance and hand over seats; the façade the routes use.

Every accepted action is written (one row, same transaction as the game's new status)
before it is applied in memory and broadcast, so whatever a client was told survives a
crash. A game not in memory is rebuilt on first access by replaying its stored actions.

The parts live in modules of their own: :mod:`.store` (the SQL, the database threads, group
commit), :mod:`.live` (games in memory, their clients, presence), :mod:`.ai_driver` (when a
computer seat moves) and :mod:`.tokens` (seat tokens, creation buckets).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from ..engine import Action, GameConfig, GameState, RecordError
from ..engine.variant import OFFICIAL, Variant
from .ai_driver import AI_LOCK_RETRY_S, AIDriver
from .ai_workers import AIPool
from .clocks import Clocks, TimeControl, new_clock, parse_time_control
from .cluster import AILocks, listen_dsn, listen_forever
from .db import GameRow, SeatRow, utcnow
from .live import Client, LiveGame, LiveGames, Seat, SeatSpec, iso, parse_for, seat_of
from .serialize import JSON
from .store import ACTIVE, FINISHED, Append, GameStore, SeatChanged, SeatPresent, StorageError
from .tokens import client_key, hash_token, new_token, take_creation_token
from .variants import read_variant, store_variant

__all__ = [
    "ACTIVE",
    "AI_LOCK_RETRY_S",
    "FINISHED",
    "Append",
    "Client",
    "GameService",
    "LiveGame",
    "Seat",
    "SeatChanged",
    "SeatPresent",
    "SeatSpec",
    "StorageError",
    "hash_token",
    "iso",
    "new_token",
]

log = logging.getLogger(__name__)


class GameService:
    """Creates, loads and advances games; one per running app.

    >>> import tempfile
    >>> from ttr_nordic.server.db import make_engine, migrate
    >>> engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/games.sqlite")
    >>> _ = migrate(engine)
    >>> async def first_game() -> tuple[int, list[int]]:
    ...     service = GameService(engine)
    ...     game, tokens = await service.create("hotseat", [SeatSpec("A", "human"), SeatSpec("B", "human")], 0)
    ...     await service.close()
    ...     return game.summary()["actions"], sorted(tokens)
    >>> from concurrent.futures import ThreadPoolExecutor  # an event loop of its own, wherever this runs
    >>> ThreadPoolExecutor(1).submit(asyncio.run, first_game()).result()
    (0, [0, 1])
    """

    def __init__(self, engine: Engine, ai: AIPool | None = None, *, idle_unload_s: float = 600.0) -> None:
        self.engine = engine
        self.ai = ai or AIPool()
        self.origin = uuid.uuid4().hex[:12]  # names this process in its notifications
        self.store = GameStore(engine, self.origin)
        self.games = LiveGames(self.store, idle_unload_s)
        # On PostgreSQL other server processes may store moves of the games held here.
        self.shared = self.store.shared
        self.driver = AIDriver(self, AILocks(engine) if self.shared else None)
        self.clocks = Clocks(self)
        self._sweeper: asyncio.Task[None] | None = None
        self._load_lock = asyncio.Lock()
        self._closing = False
        self._listener: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        self.moves = {"human": 0, "ai": 0}  # actions stored by this process, by who made them (metrics)
        # Called (each in a task) when a game ends on this process: e.g. its rating (see account_routes).
        self._end_hooks: list[Callable[[LiveGame], Coroutine[Any, Any, None]]] = []
        self._end_tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ the parts, as the routes and tests use them

    @property
    def live(self) -> dict[str, LiveGame]:
        """The games held in memory, by id."""
        return self.games.games

    @property
    def sessions(self) -> sessionmaker[Session]:
        return self.store.sessions

    @property
    def idle_unload_s(self) -> float:
        return self.games.idle_unload_s

    def ensure_ai(self, game: LiveGame) -> None:
        """Start the game's AI task if an AI seat must act and none is running."""
        self.driver.ensure(game)

    def unload_idle(self, now: float | None = None) -> list[str]:
        """See :meth:`.LiveGames.unload_idle`."""
        return self.games.unload_idle(now)

    async def seat_present(self, game: LiveGame, seat: int) -> bool:
        """See :meth:`.LiveGames.seat_present`."""
        return await self.games.seat_present(game, seat)

    def joined(self, game: LiveGame, client: Client) -> None:
        """See :meth:`.LiveGames.joined`."""
        self.games.joined(game, client)

    def release(self, game: LiveGame, client: Client) -> None:
        """See :meth:`.LiveGames.release`."""
        self.games.release(game, client)

    async def take_creation_token(self, client: str, per_minute: float, burst: int) -> bool:
        """On PostgreSQL: whether ``client`` (an address) may create a game now, by a token bucket
        kept in the database, so that the limit holds across every server process."""
        return await self.store.in_db_thread(
            take_creation_token, self.engine, client_key(client), per_minute / 60.0, float(burst)
        )

    # ------------------------------------------------------------ games

    async def create(
        self,
        mode: str,
        seats: list[SeatSpec],
        first_player: int | None,
        owner: str | None = None,
        token_hashes: dict[int, str] | None = None,
        time_control: TimeControl | dict[str, Any] | None = None,
        variant: Variant = OFFICIAL,
    ) -> tuple[LiveGame, dict[int, str]]:
        """Create and store a game; returns it and the secret token of each human seat
        (in hotseat mode every seat has the same token). ``owner`` (the creator's address)
        is whose share of the AI workers its computer seats use. ``token_hashes`` gives seats
        tokens their holders already have (a lobby table's tickets): those seats get no new token.
        ``time_control`` (see :func:`.clocks.parse_time_control`; a bad one raises its one-line
        ValueError) gives the game a clock. ``variant`` (see :mod:`.variants`) is stored with the
        game; one that cannot deal this many players raises its one-line ``VariantError``."""
        control = parse_time_control(time_control)
        config = GameConfig(len(seats), secrets.randbits(63), first_player, variant)
        game_id = uuid.uuid4().hex
        shared = new_token() if mode == "hotseat" else None
        tokens: dict[int, str] = {}
        rows: list[SeatRow] = []
        for index, spec in enumerate(seats):
            preset = (token_hashes or {}).get(index)
            token = None if spec.kind == "ai" or preset else (shared or new_token())
            if token is not None:
                tokens[index] = token
            rows.append(
                SeatRow(
                    seat=index,
                    name=spec.name,
                    kind=spec.kind,
                    ai_level=spec.level,
                    token_hash=preset
                    if preset and spec.kind != "ai"
                    else (None if token is None else hash_token(token)),
                )
            )
        # Stored first (once per distinct variant): the game's row names it.
        variant_hash = await self.store.in_db_thread(store_variant, self.engine, variant)
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
            variant_hash=variant_hash,
            seats=rows,
        )
        state = GameState.from_config(config)
        clock = None
        also = []
        if control is not None:
            first = state.decision.player
            clock = new_clock(control, config.players, first, now, rows[first].kind == "human")
            clock.remind_at = self.clocks.remind_at_for(clock, now)
            also.append(self.clocks.insert_row(game_id, clock))
        await self.store.in_db_thread(self.store.insert, row, *also)
        game = LiveGame(game_id, mode, state, [seat_of(r) for r in rows], now, now, owner)
        if clock is not None:
            game.clock, game.clock_json = clock, clock.public()
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
            loaded = await self.store.in_db_thread(self.store.read, game_id)
            if loaded is None:
                return None
            row, actions = loaded
            try:
                variant = await self.store.in_db_thread(read_variant, self.engine, row.variant_hash)
                state = GameState.from_config(GameConfig(row.players, row.seed, row.first_player, variant))
            except (LookupError, ValueError) as exc:
                raise RecordError(f"game {game_id}: its variant cannot be used: {exc}") from exc
            for index, action_row in enumerate(actions):
                if action_row.index != index:
                    raise RecordError(f"game {game_id}: action {index} is missing from the database")
                try:
                    state.apply(parse_for(state, action_row.notation), action_row.seat)
                except ValueError as exc:
                    raise RecordError(f"game {game_id}: stored action {index} does not replay: {exc}") from exc
            game = LiveGame(row.id, row.mode, state, [seat_of(r) for r in row.seats], row.created_at, row.updated_at)
            await self.clocks.load(game)
            self.live[game_id] = game
            if self.shared:
                # A move another process stored while this one read the game was announced before
                # the game was held here: read what came since.
                async with game.lock:
                    await self.catch_up(game)
        self.ensure_ai(game)
        return game

    async def finished(self, limit: int, offset: int) -> list[JSON]:
        rows = await self.store.in_db_thread(self.store.finished, limit, offset)
        return [
            {
                "id": r.id,
                "mode": r.mode,
                "players": r.players,
                "seats": [seat_of(s).public() for s in r.seats],
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
        stored = await self.store.in_db_thread(self.store.rows, [game_id for game_id, _ in pairs])
        rows = {row.id: row for row in stored}
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
                    "seats": [seat_of(s).public() for s in row.seats],
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

    async def hand_over(self, game: LiveGame, seat: int, level: str, *, only_absent: bool = True) -> None:
        """Give human ``seat`` to the computer at ``level``: stored (it survives a restart),
        then every client is sent the new seats and the AI plays. The caller checks who may
        ask; raises ``ValueError`` when the seat cannot be handed over. On PostgreSQL a seat
        whose player is connected is refused unless not ``only_absent`` (a seat whose time ran
        out too often, see clocks)."""
        await self._reassign(game, seat, level, only_absent)

    async def hand_back(self, game: LiveGame, seat: int) -> None:
        """Give a seat handed to the computer back to its player (the holder of its token).
        Raises ``ValueError`` when the seat was never a person's."""
        await self._reassign(game, seat, None)

    async def _reassign(self, game: LiveGame, seat: int, level: str | None, only_absent: bool = True) -> None:
        """The computer at ``level`` plays ``seat`` from now on (None: its person again)."""
        async with game.lock:
            if self.shared:
                await self.catch_up(game)  # decide on the seats as stored (another process may have changed them)
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
                await self.store.in_db_thread(
                    self.store.store_seat, game.id, seat, kind, level, level is not None and self.shared and only_absent
                )
            except ValueError:
                if self.shared:
                    with contextlib.suppress(Exception):
                        await self.catch_up(game)
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
            with contextlib.suppress(Exception):  # (logged there) the clock is read again at the next load
                await self.clocks.seats_changed(game)
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
        over or back, maybe by another process: checked again where the move is stored).
        ``by="timeout"``: the computer plays a person's seat whose time ran out (see clocks)."""
        kind = "human" if by == "timeout" else by
        async with game.lock:
            if self.shared:
                await self.catch_up(game)
            state = game.state
            if expected is not None and len(state.history) != expected:
                return False
            if game.seats[seat].kind != kind:
                return False
            state.check(action, seat)
            index = len(state.history)
            after = state.clone()
            after.apply_unchecked(action)
            winners = ",".join(str(w) for w in after.result().winners) if after.is_over else None
            try:
                game.updated_at = await self.store.store(Append(game.id, index, seat, action.notation(), winners, kind))
            except Exception as exc:
                changed_elsewhere = False
                if self.shared:
                    with contextlib.suppress(Exception):
                        if await self.catch_up(game):
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
            self.moves[kind] = self.moves.get(kind, 0) + 1
            if game.clock is not None:
                try:
                    await self.clocks.moved(game, seat, by)
                except Exception:
                    # The move stands; the sweeper puts a clock that lags the game right (see clocks.fire).
                    log.exception("cannot store the clock of game %s", game.id)
            game.broadcast()
        if after.is_over:
            self._game_ended(game)
        self.ensure_ai(game)
        return True

    def on_game_end(self, hook: Callable[[LiveGame], Coroutine[Any, Any, None]]) -> None:
        """Call ``hook(game)`` (in a task) when a game ends by a move stored by this process."""
        self._end_hooks.append(hook)

    def _game_ended(self, game: LiveGame) -> None:
        for hook in self._end_hooks:
            task = asyncio.get_running_loop().create_task(hook(game))
            self._end_tasks.add(task)
            task.add_done_callback(self._end_tasks.discard)

    # ------------------------------------------------------------ other processes

    async def catch_up(self, game: LiveGame) -> bool:
        """Apply what other processes stored of ``game`` since it was read here, and its seats'
        changes; broadcast if anything changed (the caller holds ``game.lock``)."""
        seats, actions = await self.store.in_db_thread(self.store.read_since, game.id, len(game.state.history))
        changed = False
        new_seats = [seat_of(r) for r in seats]
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
                    state.apply(parse_for(state, row.notation), row.seat)
                except ValueError as exc:
                    raise RecordError(f"game {game.id}: stored action {row.index} does not replay: {exc}") from exc
            game.state = state
            game.updated_at = actions[-1].created_at
            changed = True
        if changed:
            game.last_used = time.monotonic()
            if game.clock is not None:
                with contextlib.suppress(Exception):
                    await self.clocks.load(game)  # the other process stored the clock with the move
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
            await self.catch_up(game)
        self.ensure_ai(game)

    async def _heard_again(self) -> None:
        """The notifications were lost for a while: catch up every game held here."""
        for game_id in list(self.live):
            await self._heard(game_id)

    # ------------------------------------------------------------ lifecycle

    def start(self, warm_ai: bool = False) -> None:
        """Start the sweeper that unloads idle games (call inside the event loop) and, with
        ``warm_ai``, the AI workers (otherwise they start at the first AI decision)."""
        if warm_ai:
            self.ai.start()
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())
            self.clocks.start()
        if self.shared and self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(
                listen_forever(listen_dsn(self.engine), self._heard, self._heard_again, self.listening)
            )

    async def _sweep_forever(self) -> None:
        while not self._closing:
            await asyncio.sleep(max(1.0, min(60.0, self.idle_unload_s / 4)))
            self.unload_idle()

    async def close(self) -> None:
        self._closing = True
        self.games.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        await self.clocks.close()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self.driver.close()
        await self.store.flush()  # let the actions being stored finish
        await self.games.close()
        self.ai.close()
        if self._end_tasks:
            await asyncio.gather(*self._end_tasks, return_exceptions=True)
        self.store.shutdown()

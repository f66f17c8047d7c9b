"""Games held in memory: each game's state, seats and connected clients, and the registry of them.

A :class:`LiveGame` is the authoritative state of one game while it is loaded (see
:mod:`.games` for how it is loaded, advanced and stored); its :class:`Client` objects are the
WebSocket connections watching it, each with its queue of messages to send. :class:`LiveGames`
holds the loaded games, unloads idle ones and keeps presence (who is connected), across server
processes on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..engine import Action, GameRecord, GameState, parse_action
from ..engine.variant import OFFICIAL
from .ai_workers import DecisionJob
from .cluster import SeatPresence
from .db import SeatRow
from .limits import MAX_QUEUED_BYTES, MAX_QUEUED_MESSAGES
from .serialize import JSON, dumps, serialize_legal, serialize_result, serialize_view
from .store import ACTIVE, FINISHED, GameStore
from .tokens import hash_token
from .variants import canonical_json, describe

if TYPE_CHECKING:
    from .clocks import Clock


def parse_for(state: GameState, notation: str) -> Action:
    """An action of ``state``'s game from its notation: route codes, ticket ids and face-up
    slots as its variant has them (raises :class:`~ttr_nordic.engine.NotationError`).

    >>> parse_for(GameState.new(players=2, seed=1), "F1").notation()
    'F1'
    """
    return parse_action(notation, state.board, state.variant.face_up_cards)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC (SQLite hands back naive datetimes; they were stored in UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


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
    address: str | None = None  # the client's address (whose share of the AI workers its hints use)

    queued_bytes: int = 0  # the size of the text messages waiting in ``queue``
    dropped: bool = False  # set when the client stopped reading and is being closed
    # The action count of the last state written to the socket (-1: none yet): the state an
    # ``act`` without ``expected`` refers to (see :mod:`.protocol`).
    seen_actions: int = -1
    # (how many messages had been queued once that state was, its action count), per state queued
    _state_marks: deque[tuple[int, int]] = field(default_factory=deque, repr=False)
    _queued: int = 0  # text messages queued so far
    _written: int = 0  # text messages written so far
    pending_state: int | None = None  # the action count of the state text about to be queued

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
            self._state_marks.clear()
            self.queue.put_nowait(None)
            return
        self.queued_bytes += len(text)
        self._queued += 1
        if self.pending_state is not None:
            self._state_marks.append((self._queued, self.pending_state))
            self.pending_state = None
        self.queue.put_nowait(text)

    def written(self, text: str) -> None:
        """The writer sent ``text``, the oldest message queued: a state it was is now what the
        client has seen (:attr:`seen_actions`)."""
        self.queued_bytes -= len(text)
        self._written += 1
        marks = self._state_marks
        while marks and marks[0][0] <= self._written:
            self.seen_actions = marks.popleft()[1]

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
    # Whose share of the AI workers this game's computer seats use: the address that created it
    # (kept in memory only: a game loaded again from the database counts as its own owner).
    owner: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    ai_task: asyncio.Task[None] | None = None
    last_used: float = field(default_factory=time.monotonic)  # for unloading idle games
    # The game's clock (a game made with a time control, see clocks) and what the page is sent of it.
    clock: Clock | None = None
    clock_json: JSON | None = None
    public_seats: list[JSON] = field(init=False)
    # The whole-log state text of each seat, for the state and seats it was made from: a client
    # asking again and again (``view``) costs one serialisation per change, not one per ask.
    _whole: dict[int, str] = field(default_factory=dict, init=False, repr=False)
    _whole_of: tuple[GameState, list[JSON]] | None = field(default=None, init=False, repr=False)

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
            variant=None if config.variant == OFFICIAL else canonical_json(config.variant),
        )

    def parse(self, notation: str) -> Action:
        """An action of this game from its notation (see :func:`parse_for`)."""
        return parse_for(self.state, notation)

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
            "variant": describe(state.variant),
        }
        if state.is_over:
            data["result"] = serialize_result(state.board, state.result())
        if self.clock_json is not None:
            data["clock"] = self.clock_json
        return data

    def state_message(self, seat: int, log_start: int = 0) -> JSON:
        """The state of ``seat``'s view, its log from entry ``log_start`` on; the legal actions
        (with labels) only when ``seat`` must act and a person plays it."""
        state = self.state
        # A seat handed to the computer is offered nothing: its old link only watches.
        mine = state.decision.player == seat and self.seats[seat].kind == "human"
        legal = state.legal_action_list() if mine else []
        message: JSON = {
            "type": "state",
            "game_id": self.id,
            "seat": seat,
            "seats": self.public_seats,
            "actions": len(state.history),
            "log_start": log_start,
            "view": serialize_view(state.view(seat), log_start),
            "legal": serialize_legal(state.board, legal),
        }
        if self.clock_json is not None:
            message["clock"] = self.clock_json  # the deadlines: the page shows them, the server fires them
        return message

    def state_text(self, client: Client, cache: dict[tuple[int, int], str] | None = None) -> str:
        """The state message for ``client`` (the seat it is shown) as JSON text, carrying only
        the log entries it does not hold yet; records that it now holds them. Messages are
        shared through ``cache`` by clients shown the same seat that hold the same log."""
        state = self.state
        seat, over, length = client.shown, state.is_over, len(state.log)
        start = client.log_start(seat, over, length)
        key = (seat, start)
        text = None if cache is None else cache.get(key)
        if text is None and start == 0:
            made_of = self._whole_of
            if made_of is None or made_of[0] is not state or made_of[1] is not self.public_seats:
                self._whole.clear()
                self._whole_of = (state, self.public_seats)
            text = self._whole.get(seat)
            if text is None:
                text = self._whole[seat] = dumps(self.state_message(seat, 0))
        if text is None:
            text = dumps(self.state_message(seat, start))
        if cache is not None:
            cache[key] = text
        client.log_seat, client.log_over, client.log_length = seat, over, length
        client.pending_state = len(state.history)
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


def seat_of(row: SeatRow) -> Seat:
    """The :class:`Seat` a stored seat row describes."""
    return Seat(row.seat, row.name, row.kind, row.ai_level, row.token_hash)


class LiveGames:
    """The games loaded in this process (``games``, by id), and who is connected to them.

    On PostgreSQL each connected seat is also announced to the other processes (see
    :class:`.cluster.SeatPresence`)."""

    def __init__(self, store: GameStore, idle_unload_s: float = 600.0) -> None:
        self.store = store
        self.idle_unload_s = idle_unload_s
        self.games: dict[str, LiveGame] = {}
        self.closing = False
        # Who is connected to which seat, across processes (PostgreSQL only; one process sees its own).
        self.presence = SeatPresence(store.engine) if store.shared else None
        self._presence_tasks: set[asyncio.Future[None]] = set()
        self._presence_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttr-presence")

    def unload_idle(self, now: float | None = None) -> list[str]:
        """Forget games nobody is connected to, with no AI thinking, idle for ``idle_unload_s``
        (finished ones at once). They stay stored and come back on the next access."""
        moment = time.monotonic() if now is None else now
        gone = []
        for game_id, game in list(self.games.items()):
            if game.clients or (game.ai_task is not None and not game.ai_task.done()) or game.lock.locked():
                continue
            idle = moment - game.last_used
            if game.state.is_over or idle >= self.idle_unload_s:
                del self.games[game_id]
                gone.append(game_id)
        return gone

    async def seat_present(self, game: LiveGame, seat: int) -> bool:
        """Whether a player of ``seat`` is connected, to this process or (PostgreSQL) another one."""
        if seat in game.present():
            return True
        if not self.store.shared:
            return False
        # This process's own joins and leaves first: a player who just left here still holds
        # the seat's shared lock until the presence thread has run the leave.
        if self._presence_tasks:
            await asyncio.gather(*list(self._presence_tasks), return_exceptions=True)
        return not await self.store.in_db_thread(self.store.seat_absent, game.id, seat)

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
        if not self.closing:
            game.announce_presence()
        if game.state.is_over and not game.clients and self.games.get(game.id) is game:
            del self.games[game.id]

    async def close(self) -> None:
        """Close every client, then let the presence changes finish."""
        self.closing = True
        for game in self.games.values():
            for client in game.clients:
                client.send(None)
        if self._presence_tasks:
            await asyncio.gather(*self._presence_tasks, return_exceptions=True)
        if self.presence is not None:
            self.presence.close()
        self._presence_thread.shutdown(wait=False)

"""Time controls: each seat's clock, time-outs played by the computer, and the sweeper that fires them.

A game made with a time control has one row in ``game_clocks``: whose turn it is, when that
turn began and its deadline, each seat's reserve and its time-outs in a row. The deadline is in
the database, so any server process may fire it: every process runs :meth:`Clocks.sweep_forever`,
which claims due rows (``FOR UPDATE SKIP LOCKED`` on PostgreSQL: exactly one process gets each)
by pushing their deadline a lease ahead, then acts. A process killed while acting leaves the
lease to run out, and another one fires the clock again.

When a seat's time runs out, the computer plays that turn for it at :data:`TIMEOUT_LEVEL`;
after :data:`HAND_OVER_AFTER` time-outs in a row the seat is handed to the computer for good
(a rated game then counts as lost for that player, see :mod:`.ratings`). The page only shows
the deadlines it is sent: it never decides a time-out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, select, update
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, utcnow
from .serialize import JSON

if TYPE_CHECKING:
    from .games import GameService
    from .live import LiveGame

log = logging.getLogger(__name__)

#: The level the computer plays a timed-out turn at.
TIMEOUT_LEVEL = "medium"
#: Time-outs in a row after which the seat is handed to the computer for good.
HAND_OVER_AFTER = 3
#: Seconds a process holds a claimed clock before another one may fire it again.
LEASE_S = 60.0
#: The per-move times a turn-based game may have: 24 hours or 3 days.
TURN_CHOICES = (86_400, 259_200)
#: Bounds of a real-time game's time per move and reserve, in seconds.
REALTIME_PER_MOVE = (1, 3_600)
REALTIME_RESERVE = (0, 7_200)


class TimeControlError(ValueError):
    """A time control that cannot be used (its message is one line)."""


@dataclass(frozen=True)
class TimeControl:
    """How long each move may take: ``"realtime"`` (a time per move plus a reserve used up when a
    move takes longer) or ``"turn"`` (a long time per move, for games over days).

    >>> TimeControl("turn", 86_400).rule().split(". ")[0]
    '24 hours per move'
    """

    kind: str
    per_move_s: int
    reserve_s: int = 0

    def to_json(self) -> JSON:
        return {"kind": self.kind, "per_move_s": self.per_move_s, "reserve_s": self.reserve_s}

    def rule(self) -> str:
        """The rule in words, as the table shows it."""
        each = _duration(self.per_move_s) + " per move"
        if self.reserve_s:
            each += f" plus a reserve of {_duration(self.reserve_s)}"
        return (
            f"{each}. When time runs out the computer ({TIMEOUT_LEVEL}) plays that turn; after {HAND_OVER_AFTER} "
            "time-outs in a row it takes over the seat for good."
        )


def _duration(seconds: int) -> str:
    """``86400`` → ``"24 hours"``, ``259200`` → ``"3 days"``, ``90`` → ``"90 seconds"``."""
    for size, unit in ((86_400, "day"), (3_600, "hour"), (60, "minute")):
        if seconds % size == 0 and seconds >= size and not (unit == "day" and seconds == 86_400):
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    if seconds == 86_400:
        return "24 hours"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def parse_time_control(value: object) -> TimeControl | None:
    """The time control described by ``value`` (JSON as the API, the lobby and the start page
    send it), or None for none; raises :class:`TimeControlError` with a one-line reason.

    >>> parse_time_control({"kind": "realtime", "per_move_s": 60, "reserve_s": 300})
    TimeControl(kind='realtime', per_move_s=60, reserve_s=300)
    >>> parse_time_control({"kind": "turn", "per_move_s": 259200})
    TimeControl(kind='turn', per_move_s=259200, reserve_s=0)
    >>> parse_time_control(None) is None
    True
    >>> parse_time_control({"kind": "realtime", "per_move_s": 0})
    Traceback (most recent call last):
    ...
    ttr_nordic.server.clocks.TimeControlError: a real-time game has 1 to 3600 seconds per move, not 0
    """
    if value is None:
        return None
    if isinstance(value, TimeControl):
        return value
    if not isinstance(value, dict):
        raise TimeControlError("time_control must be an object like {'kind': 'turn', 'per_move_s': 86400} or null")
    unknown = sorted(str(k) for k in value if k not in ("kind", "per_move_s", "reserve_s"))
    if unknown:
        raise TimeControlError(f"time_control has unknown fields: {', '.join(unknown)}")
    kind = value.get("kind")
    per_move = value.get("per_move_s")
    reserve = value.get("reserve_s", 0)
    for name, number in (("per_move_s", per_move), ("reserve_s", reserve)):
        if not isinstance(number, int) or isinstance(number, bool):
            raise TimeControlError(f"time_control.{name} must be a whole number of seconds")
    assert isinstance(per_move, int) and isinstance(reserve, int)
    if kind == "realtime":
        low, high = REALTIME_PER_MOVE
        if not low <= per_move <= high:
            raise TimeControlError(f"a real-time game has {low} to {high} seconds per move, not {per_move}")
        low, high = REALTIME_RESERVE
        if not low <= reserve <= high:
            raise TimeControlError(f"a real-time game has a reserve of {low} to {high} seconds, not {reserve}")
        return TimeControl("realtime", per_move, reserve)
    if kind == "turn":
        if per_move not in TURN_CHOICES:
            raise TimeControlError(
                f"a turn-based game has 86400 (24 hours) or 259200 (3 days) seconds per move, not {per_move}"
            )
        if reserve:
            raise TimeControlError("a turn-based game has no reserve")
        return TimeControl("turn", per_move, 0)
    raise TimeControlError(f"time_control.kind must be 'realtime' or 'turn', not {kind!r}")


class ClockRow(Base):
    """A game's clock (only games made with a time control have one)."""

    __tablename__ = "game_clocks"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    per_move_s: Mapped[int] = mapped_column(Integer)
    reserve_s: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)  # the seat whose turn it is (-1: the game is over)
    idx: Mapped[int] = mapped_column(Integer)  # the number of actions when that turn began
    turn_started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # None while the computer plays the seat to move, or the game is over; a claimed clock's
    # deadline is pushed a lease ahead (see Clocks.claim_due).
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    reserves: Mapped[str] = mapped_column(Text)  # JSON: each seat's reserve left, in seconds
    timeouts: Mapped[str] = mapped_column(Text)  # JSON: each seat's time-outs in a row
    # When to remind the seat to move that it is its turn (see notify); None: no reminder due.
    remind_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


@dataclass
class Clock:
    """A game's clock as held in memory (the row's values)."""

    control: TimeControl
    seat: int
    idx: int
    turn_started_at: datetime
    deadline: datetime | None
    reserves: list[int]
    timeouts: list[int]
    remind_at: datetime | None = None

    @classmethod
    def of(cls, row: ClockRow) -> Clock:
        return cls(
            TimeControl(row.kind, row.per_move_s, row.reserve_s),
            row.seat,
            row.idx,
            _aware(row.turn_started_at),
            None if row.deadline is None else _aware(row.deadline),
            list(json.loads(row.reserves)),
            list(json.loads(row.timeouts)),
            None if row.remind_at is None else _aware(row.remind_at),
        )

    def values(self) -> dict[str, Any]:
        """The row's columns that change as the game goes on."""
        return {
            "seat": self.seat,
            "idx": self.idx,
            "turn_started_at": self.turn_started_at,
            "deadline": self.deadline,
            "reserves": json.dumps(self.reserves),
            "timeouts": json.dumps(self.timeouts),
            "remind_at": self.remind_at,
        }

    def public(self) -> JSON:
        """What the page is sent: the deadline of the seat to move and everyone's reserve."""
        deadline = self.deadline
        return {
            **self.control.to_json(),
            "seat": self.seat if self.seat >= 0 else None,
            "turn_started_at": _iso(self.turn_started_at),
            "deadline": None if deadline is None else _iso(deadline),
            "reserves": list(self.reserves),
            "timeouts": list(self.timeouts),
            "hand_over_after": HAND_OVER_AFTER,
            "timeout_level": TIMEOUT_LEVEL,
            "rule": self.control.rule(),
        }


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _aware(moment: datetime) -> datetime:
    # SQLite gives back naive datetimes (stored as UTC).
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def new_clock(control: TimeControl, players: int, first: int, now: datetime, first_is_person: bool) -> Clock:
    """The clock of a new game whose first turn is ``first``'s."""
    clock = Clock(control, -1, 0, now, None, [control.reserve_s] * players, [0] * players)
    return next_turn(clock, first, 0, now, first_is_person)


def next_turn(clock: Clock, seat: int, idx: int, now: datetime, person: bool) -> Clock:
    """``clock`` once ``seat``'s turn began at ``now`` after ``idx`` actions (seat -1: the game
    is over); the seat whose turn ended pays from its reserve what it used beyond the time per
    move. A computer seat has no deadline.

    >>> from datetime import UTC
    >>> start = datetime(2026, 1, 1, tzinfo=UTC)
    >>> clock = new_clock(TimeControl("realtime", 10, 30), 2, 0, start, True)
    >>> clock.deadline == start + timedelta(seconds=40)
    True
    >>> later = next_turn(clock, 1, 3, start + timedelta(seconds=25), True)
    >>> later.reserves, later.deadline == start + timedelta(seconds=25 + 40)
    ([15, 30], True)
    """
    reserves = list(clock.reserves)
    if clock.seat >= 0 and clock.control.kind == "realtime":
        used = (now - _aware(clock.turn_started_at)).total_seconds()
        reserves[clock.seat] = max(0, int(reserves[clock.seat] - max(0.0, used - clock.control.per_move_s)))
    deadline = None
    if seat >= 0 and person:
        deadline = now + timedelta(seconds=clock.control.per_move_s + reserves[seat])
    return replace(clock, seat=seat, idx=idx, turn_started_at=now, deadline=deadline, reserves=reserves)


class Clocks:
    """The clocks of ``service``'s games: kept up to date as moves are stored, fired by a sweeper."""

    def __init__(self, service: GameService, poll_s: float = 1.0) -> None:
        self.service = service
        self.poll_s = poll_s
        self.closing = False
        self._task: asyncio.Task[None] | None = None
        self._firing: set[asyncio.Task[None]] = set()
        # Called with (game, seat) when a seat's reminder is due (see notify).
        self.remind: Callable[[LiveGame, int, Clock], Coroutine[Any, Any, datetime | None]] | None = None
        self.fired = 0  # time-outs played by this process (metrics, tests)
        # Seconds after a person's turn begins in a turn-based game before they are reminded.
        self.remind_after_s = 60.0

    # ------------------------------------------------------------ the database (in its threads)

    def insert_row(self, game_id: str, clock: Clock) -> ClockRow:
        control = clock.control
        return ClockRow(game_id=game_id, kind=control.kind, per_move_s=control.per_move_s, reserve_s=control.reserve_s,
                        **clock.values())  # fmt: skip

    def read(self, game_id: str) -> Clock | None:
        with self.service.sessions() as session:
            row = session.get(ClockRow, game_id)
            return None if row is None else Clock.of(row)

    def write(self, game_id: str, clock: Clock) -> None:
        with self.service.sessions.begin() as session:
            session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(**clock.values()))

    def claim_due(self, now: datetime, column: str = "deadline", limit: int = 10) -> list[str]:
        """Claim up to ``limit`` games whose ``column`` (deadline or remind_at) is due: pushed a
        lease ahead in the claiming transaction, so no other process takes them meanwhile."""
        when = getattr(ClockRow, column)
        with self.service.sessions.begin() as session:
            ids = list(
                session.scalars(
                    select(ClockRow.game_id)
                    .where(when.is_not(None), when <= now)
                    .order_by(when)
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
            )
            if ids:
                lease = now + timedelta(seconds=LEASE_S)
                session.execute(update(ClockRow).where(ClockRow.game_id.in_(ids)).values({column: lease}))
            return ids

    # ------------------------------------------------------------ hooks (the caller holds game.lock)

    async def load(self, game: LiveGame) -> None:
        """Read ``game``'s clock (a game loaded from the database, or changed by another process)."""
        clock = await self.service.store.in_db_thread(self.read, game.id)
        self._show(game, clock)

    def _show(self, game: LiveGame, clock: Clock | None) -> None:
        game.clock = clock
        game.clock_json = None if clock is None else clock.public()

    async def moved(self, game: LiveGame, seat: int, by: str) -> None:
        """After an action of ``seat`` by ``by`` ("human", "ai" or "timeout") was stored."""
        clock = game.clock
        if clock is None:
            return
        state = game.state
        now = utcnow()
        timeouts = list(clock.timeouts)
        if by == "human":
            timeouts[seat] = 0
        clock = replace(clock, timeouts=timeouts)
        player = -1 if state.is_over else state.decision.player
        if player != clock.seat or by == "timeout" or clock.deadline is None:
            clock = next_turn(
                clock, player, len(state.history), now, player >= 0 and game.seats[player].kind == "human"
            )
        clock = replace(clock, remind_at=self.remind_at_for(clock, now))
        await self.service.store.in_db_thread(self.write, game.id, clock)
        self._show(game, clock)

    async def seats_changed(self, game: LiveGame) -> None:
        """After a seat was handed over or back: the turn to move starts again now."""
        clock = game.clock
        if clock is None:
            return
        state = game.state
        player = -1 if state.is_over else state.decision.player
        now = utcnow()
        clock = next_turn(clock, player, len(state.history), now, player >= 0 and game.seats[player].kind == "human")
        clock = replace(clock, remind_at=self.remind_at_for(clock, now))
        await self.service.store.in_db_thread(self.write, game.id, clock)
        self._show(game, clock)

    def remind_at_for(self, clock: Clock, now: datetime) -> datetime | None:
        """When to remind the seat to move of ``clock`` (its turn began ``now``), or None."""
        # Only a person's turn in a turn-based game is worth a message once the tab is closed.
        if clock.deadline is None or clock.control.kind != "turn" or self.remind is None:
            return None
        return now + timedelta(seconds=self.remind_after_s)

    # ------------------------------------------------------------ the sweeper

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.sweep_forever())

    async def sweep_forever(self) -> None:
        while not self.closing:
            try:
                await self.sweep_once()
            except Exception:
                log.exception("the clock sweeper failed; it tries again")
            await asyncio.sleep(self.poll_s)

    async def sweep_once(self) -> None:
        """Claim the clocks and reminders due now and fire each in a task of its own."""
        store = self.service.store
        now = utcnow()
        for column, fire in (("deadline", self.fire), ("remind_at", self.fire_reminder)):
            if column == "remind_at" and self.remind is None:
                continue
            for game_id in await store.in_db_thread(self.claim_due, now, column):
                task = asyncio.get_running_loop().create_task(fire(game_id))
                self._firing.add(task)
                task.add_done_callback(self._firing.discard)

    async def _game_and_clock(self, game_id: str) -> tuple[LiveGame, Clock] | None:
        game = await self.service.get(game_id)
        if game is None:
            return None
        async with game.lock:
            if self.service.shared:
                await self.service.catch_up(game)
            clock = await self.service.store.in_db_thread(self.read, game.id)
            if clock is None:
                return None
            self._show(game, clock)
        return game, clock

    async def fire(self, game_id: str) -> None:
        """A claimed clock ran out: the computer plays the turn, or takes the seat for good."""
        try:
            found = await self._game_and_clock(game_id)
            if found is None:
                return
            game, clock = found
            state = game.state
            player = -1 if state.is_over else state.decision.player
            if clock.idx > len(state.history) or player != clock.seat or player < 0:
                # The game moved on (a move stored but its clock not, e.g. a crash in between).
                async with game.lock:
                    await self.seats_changed(game)
                return
            if game.seats[player].kind != "human":
                async with game.lock:
                    await self.seats_changed(game)
                self.service.ensure_ai(game)
                return
            from .account_routes import may_start  # (the accounts' module depends on the games')

            if not state.history and not await may_start(self.service, game):
                # A rated game waiting for its players to sign in has not begun: its clock neither.
                async with game.lock:
                    await self.seats_changed(game)
                return
            timeouts = list(clock.timeouts)
            timeouts[player] += 1
            log.info("seat %d of game %s ran out of time (%d in a row)", player, game_id, timeouts[player])
            async with game.lock:
                assert game.clock is not None
                game.clock = replace(game.clock, timeouts=timeouts)
                await self.service.store.in_db_thread(self.write, game.id, game.clock)
            self.fired += 1
            if timeouts[player] >= HAND_OVER_AFTER:
                await self.service.hand_over(game, player, TIMEOUT_LEVEL, only_absent=False)
                return
            await self._play_turn(game, player)
        except Exception:
            log.exception("the clock of game %s could not be fired; it is tried again after %.0f s", game_id, LEASE_S)

    async def _play_turn(self, game: LiveGame, seat: int) -> None:
        """The computer plays ``seat``'s whole turn (e.g. both cards of a draw)."""
        while not self.closing:
            state = game.state
            if state.is_over or state.decision.player != seat or game.seats[seat].kind != "human":
                return
            expected = len(state.history)
            legal = [action.notation() for action in state.legal_action_list()]
            notation = await self.service.ai.decide(game.decision_job(seat, TIMEOUT_LEVEL), legal, owner=game.owner)
            if not await self.service.act(game, seat, game.parse(notation), expected, by="timeout"):
                return  # the person moved meanwhile (or another process did): their move stands

    async def fire_reminder(self, game_id: str) -> None:
        """A claimed reminder is due: the notifier sends it (or not) and says when the next one is."""
        try:
            found = await self._game_and_clock(game_id)
            if found is None or self.remind is None:
                return
            game, clock = found
            following = None
            if clock.seat >= 0 and clock.deadline is not None and game.seats[clock.seat].kind == "human":
                following = await self.remind(game, clock.seat, clock)
            async with game.lock:
                if game.clock is not None and game.clock.idx == clock.idx and game.clock.seat == clock.seat:
                    game.clock = replace(game.clock, remind_at=following)
                    await self.service.store.in_db_thread(self.write, game.id, game.clock)
        except Exception:
            log.exception("the reminder of game %s could not be sent; it is tried again after %.0f s", game_id, LEASE_S)

    async def close(self) -> None:
        self.closing = True
        if self._task is not None:
            self._task.cancel()
        for task in list(self._firing):
            task.cancel()
        for task in list(self._firing):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

"""Chat at a game's table: players write, players and spectators read.

Messages are kept apart from the game record (table ``chat_messages``) and are deleted with
the account that wrote them (or whose seat wrote them). Players write; spectators read only
(as on Lichess, whose players' chat is not the spectators' room: no advice reaches a player
from the audience). Muting is the reader's choice, kept by the page (per viewer, remembered).

Bounds: a message is 1 to :data:`MAX_CHARS` characters, without control or invisible
characters; a seat writes at most :data:`BURST` messages in :data:`WINDOW_S` seconds (checked
in memory first, then in the database, which every server process shares); a game
keeps at most :data:`MAX_PER_GAME` messages; a read answers at most :data:`READ_LIMIT`.

>>> clean_text("  Good   game!  ")
'Good game!'
>>> PHRASES["gg"]
'Good game'
"""

from __future__ import annotations

import time
from collections import deque
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from .account_db import SeatAccountRow
from .db import utcnow
from .lobby import LobbyError
from .lobby_db import ChatRow
from .player_text import clean_chat
from .serialize import JSON

MAX_CHARS = 300
BURST = 5
WINDOW_S = 10.0
MAX_PER_GAME = 1000
READ_LIMIT = 100

#: The quick phrases, by key (the page shows buttons for them).
PHRASES = {"hello": "Hello", "gg": "Good game", "wp": "Well played", "thinking": "Thinking…"}


def clean_text(text: str) -> str:
    """A message's text with runs of white space made one space; a :class:`ValueError` (coded,
    see :mod:`.player_text`) if it is empty, too long, or holds control or invisible characters."""
    return clean_chat(text, MAX_CHARS)


class ChatRate:
    """At most ``burst`` messages per ``window_s`` seconds for each (game, seat), in this process.

    >>> rate = ChatRate(burst=2, window_s=10.0)
    >>> [rate.allow(("g", 0), now=t) for t in (0.0, 1.0, 2.0, 11.5)]
    [True, True, False, True]
    """

    def __init__(self, burst: int = BURST, window_s: float = WINDOW_S, keys: int = 10_000) -> None:
        self.burst = burst
        self.window_s = window_s
        self.keys = keys
        self.sent: dict[tuple[str, int], deque[float]] = {}

    def allow(self, key: tuple[str, int], now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self.sent.get(key)
        if times is None:
            if len(self.sent) >= self.keys:  # forget the oldest writer rather than grow
                self.sent.pop(next(iter(self.sent)))
            times = self.sent[key] = deque()
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if len(times) >= self.burst:
            return False
        times.append(now)
        return True


def _public(row: ChatRow) -> JSON:
    return {"id": row.id, "seat": row.seat, "author": row.author, "text": row.text, "at": row.created_at.isoformat()}


def post(engine: Engine, game_id: str, seat: int, author: str, text: str) -> JSON:
    """Store a message from ``seat`` (linked to the account that holds it, if any)."""
    with Session(engine) as session, session.begin():
        # The database's count, so that the bound holds across every server process.
        recent = session.scalar(
            select(func.count())
            .select_from(ChatRow)
            .where(
                ChatRow.game_id == game_id,
                ChatRow.seat == seat,
                ChatRow.created_at > utcnow() - timedelta(seconds=WINDOW_S),
            )
        )
        if (recent or 0) >= BURST:
            raise LobbyError(429, "CHAT_TOO_FAST", f"at most {BURST} messages in {WINDOW_S:g} seconds: wait a little")
        count = session.scalar(select(func.count()).select_from(ChatRow).where(ChatRow.game_id == game_id)) or 0
        if count >= MAX_PER_GAME:
            raise LobbyError(429, "CHAT_FULL", f"this game's chat holds at most {MAX_PER_GAME} messages")
        user_id = session.scalar(
            select(SeatAccountRow.user_id).where(SeatAccountRow.game_id == game_id, SeatAccountRow.seat == seat)
        )
        row = ChatRow(game_id=game_id, seat=seat, user_id=user_id, author=author, text=text, created_at=utcnow())
        session.add(row)
        session.flush()
        return _public(row)


def read(engine: Engine, game_id: str, after: int = 0, limit: int = READ_LIMIT) -> list[JSON]:
    """The messages after id ``after``, oldest first (at most ``limit``; the newest ``limit``
    when reading from the start)."""
    with Session(engine) as session:
        query = select(ChatRow).where(ChatRow.game_id == game_id, ChatRow.id > after)
        if after == 0:
            rows = list(session.scalars(query.order_by(ChatRow.id.desc()).limit(limit)))[::-1]
        else:
            rows = list(session.scalars(query.order_by(ChatRow.id).limit(limit)))
        return [_public(r) for r in rows]


def forget_seats(session: Session, user_id: str, seats: list[tuple[str, int]]) -> int:
    """Delete what an account wrote, and what the seats it held wrote (for its deletion, in its
    transaction). Returns the number of messages deleted."""
    deleted = _count(session.execute(delete(ChatRow).where(ChatRow.user_id == user_id)))
    for game_id, seat in seats:
        deleted += _count(session.execute(delete(ChatRow).where(ChatRow.game_id == game_id, ChatRow.seat == seat)))
    return deleted


def _count(result: object) -> int:
    # A DELETE's result is a CursorResult (its row count); the general Result type has none.
    return int(getattr(result, "rowcount", 0) or 0)

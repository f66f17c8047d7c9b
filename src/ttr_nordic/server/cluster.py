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
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.engine import Engine

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

"""Secret seat tokens, and the game-creation token buckets kept in PostgreSQL.

A seat's token is shown once, to its player; only its SHA-256 is stored.

>>> len(new_token()) >= 32, hash_token("abc") == hash_token("abc")
(True, True)
"""

from __future__ import annotations

import hashlib
import secrets
import time

from sqlalchemy import text
from sqlalchemy.engine import Engine


def hash_token(token: str) -> str:
    """The stored form of a seat token (hex SHA-256)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A new secret seat token (URL-safe)."""
    return secrets.token_urlsafe(24)


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


def client_key(client: str) -> str:
    """The bucket key of a client address (its hash: addresses are not stored).

    >>> client_key("127.0.0.1") == client_key("127.0.0.1") != client_key("10.0.0.1")
    True
    """
    return hashlib.sha256(f"ttr-client:{client}".encode()).hexdigest()


def take_creation_token(engine: Engine, client: str, rate: float, burst: float) -> bool:
    """On PostgreSQL: take a token from the bucket of ``client`` (see :func:`client_key`),
    refilled at ``rate`` a second up to ``burst``; whether there was one. Blocks: run it in a
    database thread."""
    with engine.begin() as connection:
        parameters = {"client": client, "rate": rate, "burst": burst}
        granted = connection.execute(_TAKE_CREATION_TOKEN, parameters).scalar_one()
        if secrets.randbelow(100) == 0:  # now and then, forget clients unseen for an hour
            connection.execute(_FORGET_OLD_BUCKETS)
    return bool(granted)


class CreationLimit:
    """A token bucket per client address: ``burst`` games at once, then ``per_minute`` (one
    process; on PostgreSQL the buckets are in the database, see :func:`take_creation_token`).

    >>> limit = CreationLimit(per_minute=60, burst=2)
    >>> [limit.allow("10.0.0.1", now=0.0) for _ in range(3)], limit.allow("10.0.0.1", now=1.0)
    ([True, True, False], True)
    """

    def __init__(self, per_minute: float = 20.0, burst: int = 10, clients: int = 10_000) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.clients = clients
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str, now: float | None = None) -> bool:
        moment = time.monotonic() if now is None else now
        tokens, last = self.buckets.pop(client, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - last) * self.rate)
        allowed = tokens >= 1.0
        self.buckets[client] = (tokens - 1.0 if allowed else tokens, moment)
        if len(self.buckets) > self.clients:  # forget the longest-unseen clients
            for key in list(self.buckets)[: len(self.buckets) - self.clients]:
                del self.buckets[key]
        return allowed

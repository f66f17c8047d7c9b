"""Accounts: users, passwords, sessions, sign-in throttling, seats held by accounts.

Accounts are optional: guests play exactly as before, with their seat tokens. An account
is a user name (3-20 letters, digits, ``_`` or ``-``, starting with a letter; unique without
regard to case) and a password (Argon2id, verified and then rehashed when the parameters
changed) and, where the browser offers it, passkeys (:mod:`.passkeys`).

A session is a random token in an HttpOnly cookie; the database keeps its SHA-256 only, so
every server process on one database knows it. The CSRF token of a session is derived from
the session's token (:func:`csrf_token`): a page reads it from ``GET /api/account`` and sends
it in a header; another site can neither read it nor send the header.

Guessing is throttled per account and per address (failures counted in the database, so
across processes). An unknown name and a wrong password answer the same words, after the
same work (a hash is verified either way).

Everything here is synchronous (run it in a thread): the routes are in :mod:`.account_routes`.

>>> check_name("Astrid_1")
'Astrid_1'
>>> check_name("1bad")
Traceback (most recent call last):
...
ttr_nordic.server.accounts.AccountError: a user name is 3 to 20 letters (a-z), digits, _ or -, starting with a letter
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .account_db import SeatAccountRow, SessionRow, ThrottleRow, UserRow
from .db import ActionRow, GameRow, SeatRow, utcnow
from .games import hash_token

log = logging.getLogger(__name__)

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
SESSION_DAYS = 30
#: A session's last use is written at most this often.
SEEN_EVERY = timedelta(minutes=10)
#: What a deleted account's seats are called from then on.
DELETED_NAME = "deleted player"
BAD_CREDENTIALS = "wrong user name or password"

HASHER = PasswordHasher()  # Argon2id with the library's default parameters


class AccountError(Exception):
    """A refused account request: an HTTP status, a code and one line for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def check_name(name: str) -> str:
    """``name`` if it is a valid user name, else :class:`AccountError`."""
    if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
        raise AccountError(
            422, "BAD_NAME", "a user name is 3 to 20 letters (a-z), digits, _ or -, starting with a letter"
        )
    return name


def check_password(password: str) -> str:
    """``password`` if it is long enough and not too long, else :class:`AccountError`.

    >>> check_password("correct horse")
    'correct horse'
    """
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(422, "BAD_PASSWORD", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session: an HMAC of a fixed label under the session's secret token
    (so nothing more is stored, and it changes with the session).

    >>> csrf_token("a") == csrf_token("a") != csrf_token("b")
    True
    """
    return hmac.new(session_token.encode("utf-8"), b"ttr-nordic csrf", hashlib.sha256).hexdigest()


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    """A hash verified for an unknown name, so that it costs what a known name costs."""
    return HASHER.hash(secrets.token_urlsafe(16))


@dataclass(frozen=True)
class User:
    """A signed-in account.

    >>> User("1", "Astrid", True).public()["name"]
    'Astrid'
    """

    id: str
    name: str
    has_password: bool

    def public(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "has_password": self.has_password}


@dataclass(frozen=True)
class Throttle:
    """Failed sign-ins allowed per ``window`` for one account and for one address."""

    per_account: int = 10
    per_address: int = 50
    sign_ups: int = 20  # new accounts per address
    window: timedelta = timedelta(minutes=15)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class AccountService:
    """Accounts on one database (every server process on it shares them)."""

    def __init__(self, engine: Engine, throttle: Throttle | None = None) -> None:
        self.engine = engine
        self.throttle = throttle or Throttle()

    # ---------------------------------------------------------------- sessions

    def _new_session(self, session: Session, user_id: str) -> str:
        token = secrets.token_urlsafe(32)
        now = utcnow()
        if secrets.randbelow(50) == 0:  # now and then
            self.forget_expired(session)
        session.add(
            SessionRow(
                token_hash=sha256(token),
                user_id=user_id,
                created_at=now,
                last_seen_at=now,
                expires_at=now + timedelta(days=SESSION_DAYS),
            )
        )
        return token

    def forget_expired(self, session: Session) -> None:
        """Delete expired sessions and failed sign-ins older than the throttle's window."""
        now = utcnow()
        session.execute(delete(SessionRow).where(SessionRow.expires_at < now))
        session.execute(delete(ThrottleRow).where(ThrottleRow.window_start < now - self.throttle.window))

    def session_user(self, token: str) -> User | None:
        """The account of a session token (None: unknown or expired), its last use recorded."""
        if not token or len(token) > 100:
            return None
        digest = sha256(token)
        now = utcnow()
        with Session(self.engine) as session:
            found = session.execute(
                select(SessionRow, UserRow)
                .join(UserRow, UserRow.id == SessionRow.user_id)
                .where(SessionRow.token_hash == digest)
            ).one_or_none()
            if found is None:
                return None
            row, user = found
            if _aware(row.expires_at) <= now:
                session.delete(row)
                session.commit()
                return None
            if now - _aware(row.last_seen_at) >= SEEN_EVERY:
                row.last_seen_at = now
                row.expires_at = now + timedelta(days=SESSION_DAYS)
                session.commit()
            return User(user.id, user.name, user.password_hash is not None)

    def sign_out(self, token: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.token_hash == sha256(token)))

    def sign_out_everywhere(self, user_id: str, keep_token: str | None = None) -> int:
        """End the account's sessions (but ``keep_token``'s); returns how many ended."""
        with Session(self.engine) as session, session.begin():
            query = delete(SessionRow).where(SessionRow.user_id == user_id)
            if keep_token is not None:
                query = query.where(SessionRow.token_hash != sha256(keep_token))
            ended: int = session.execute(query).rowcount  # type: ignore[attr-defined]
            return ended

    def session_count(self, user_id: str) -> int:
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count()).where(SessionRow.user_id == user_id)) or 0)

    # ---------------------------------------------------------------- sign-up and sign-in

    def sign_up(self, name: str, password: str, address: str = "") -> tuple[User, str]:
        """Create an account; returns it and a new session token. One address creates at
        most ``throttle.sign_ups`` accounts in a window (429 after)."""
        check_name(name)
        check_password(password)
        key = sha256(f"sign-up:{address}")
        with Session(self.engine) as session:
            if self._throttled(session, [key], [self.throttle.sign_ups]):
                raise AccountError(429, "TOO_MANY_ACCOUNTS", "too many new accounts from this address: wait 15 minutes")
        self._fail([key])  # counted whether or not the name is free
        digest = HASHER.hash(password)
        user_id = uuid.uuid4().hex
        try:
            with Session(self.engine) as session, session.begin():
                session.add(UserRow(id=user_id, name=name, name_key=name.lower(), password_hash=digest))
                session.flush()
                token = self._new_session(session, user_id)
        except IntegrityError:
            raise AccountError(409, "NAME_TAKEN", f"the user name {name} is taken: choose another") from None
        return User(user_id, name, True), token

    def _throttled(self, session: Session, keys: list[str], limits: list[int]) -> bool:
        now = utcnow()
        for key, limit in zip(keys, limits, strict=True):
            row = session.get(ThrottleRow, key)
            if row is not None and now - _aware(row.window_start) < self.throttle.window and row.failures >= limit:
                return True
        return False

    def _fail(self, keys: list[str]) -> None:
        now = utcnow()
        for key in keys:
            for _ in range(3):  # another process may create the row at once: then update it
                try:
                    with Session(self.engine) as session, session.begin():
                        row = session.get(ThrottleRow, key, with_for_update=True)
                        if row is None:
                            session.add(ThrottleRow(key=key, failures=1, window_start=now))
                        elif now - _aware(row.window_start) >= self.throttle.window:
                            row.failures, row.window_start = 1, now
                        else:
                            row.failures += 1
                    break
                except IntegrityError:
                    continue

    def sign_in(self, name: str, password: str, address: str) -> tuple[User, str]:
        """Check a name and password; returns the account and a new session token. Unknown
        names and wrong passwords are refused alike (401, same words, a hash verified either
        way); too many failures for the name or the address: 429."""
        name_key = name.lower() if isinstance(name, str) else ""
        keys = [sha256(f"account:{name_key[:40]}"), sha256(f"address:{address}")]
        limits = [self.throttle.per_account, self.throttle.per_address]
        with Session(self.engine) as session:
            if self._throttled(session, keys, limits):
                raise AccountError(429, "TOO_MANY_ATTEMPTS", "too many failed sign-ins: wait 15 minutes and try again")
            user = session.scalars(select(UserRow).where(UserRow.name_key == name_key)).one_or_none()
        stored = user.password_hash if user is not None and user.password_hash else None
        ok = False
        try:
            ok = HASHER.verify(stored or _dummy_hash(), password[:MAX_PASSWORD]) and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            ok = False
        if not ok or user is None or stored is None or len(password) > MAX_PASSWORD:
            self._fail(keys)
            raise AccountError(401, "BAD_CREDENTIALS", BAD_CREDENTIALS)
        with Session(self.engine) as session, session.begin():
            if HASHER.check_needs_rehash(stored):
                session.execute(
                    update(UserRow).where(UserRow.id == user.id).values(password_hash=HASHER.hash(password))
                )
            session.execute(delete(ThrottleRow).where(ThrottleRow.key == keys[0]))
            token = self._new_session(session, user.id)
        return User(user.id, user.name, True), token

    def sign_in_user(self, user_id: str) -> tuple[User, str]:
        """A new session for an account whose passkey was verified."""
        with Session(self.engine) as session, session.begin():
            user = session.get(UserRow, user_id)
            if user is None:
                raise AccountError(401, "BAD_CREDENTIALS", "this passkey's account no longer exists")
            token = self._new_session(session, user_id)
            return User(user.id, user.name, user.password_hash is not None), token

    def _check_own_password(self, user_id: str, password: str) -> None:
        with Session(self.engine) as session:
            user = session.get(UserRow, user_id)
        stored = user.password_hash if user is not None else None
        try:
            ok = stored is not None and HASHER.verify(stored, password[:MAX_PASSWORD])
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            ok = False
        if not ok:
            raise AccountError(403, "WRONG_PASSWORD", "the current password is wrong")

    def change_password(self, user_id: str, current: str, new: str, keep_token: str) -> int:
        """Set a new password (the current one checked) and end every other session."""
        check_password(new)
        self._check_own_password(user_id, current)
        digest = HASHER.hash(new)
        with Session(self.engine) as session, session.begin():
            session.execute(update(UserRow).where(UserRow.id == user_id).values(password_hash=digest))
        return self.sign_out_everywhere(user_id, keep_token)

    def delete_account(self, user_id: str, password: str | None) -> list[tuple[str, int]]:
        """Delete an account (its password checked, if it has one): its sessions, passkeys,
        seats' links and rating go; its games stay, each seat it held renamed
        :data:`DELETED_NAME`. Returns those seats ``(game id, seat)``."""
        with Session(self.engine) as session:
            user = session.get(UserRow, user_id)
            has_password = user is not None and user.password_hash is not None
        if has_password:
            self._check_own_password(user_id, password or "")
        with Session(self.engine) as session, session.begin():
            seats = [
                (game_id, seat)
                for game_id, seat in session.execute(
                    select(SeatAccountRow.game_id, SeatAccountRow.seat).where(SeatAccountRow.user_id == user_id)
                )
            ]
            for game_id, seat in seats:
                session.execute(
                    update(SeatRow).where(SeatRow.game_id == game_id, SeatRow.seat == seat).values(name=DELETED_NAME)
                )
            from .chat import forget_seats  # the chat's rows (migration 0004) go with the account

            forget_seats(session, user_id, seats)
            session.execute(delete(UserRow).where(UserRow.id == user_id))
        log.info("an account was deleted (%d seats renamed)", len(seats))
        return seats

    # ---------------------------------------------------------------- seats held by accounts

    def claim(self, user_id: str, pairs: list[tuple[str, str]]) -> list[str]:
        """Record the account on each seat that a token opens (a guest's games move to the
        account); returns the ids of the games claimed. A seat held by another account stays
        its; a rated game's seats are claimed only before its first move, one per account."""
        from .account_db import GameRatingRow

        claimed: list[str] = []
        with Session(self.engine) as session, session.begin():
            for game_id, token in pairs:
                digest = hash_token(token)
                seats = [
                    row.seat
                    for row in session.scalars(select(SeatRow).where(SeatRow.game_id == game_id))
                    if row.token_hash is not None and hmac.compare_digest(row.token_hash, digest)
                ]
                if not seats:
                    continue
                held = dict(
                    session.execute(
                        select(SeatAccountRow.seat, SeatAccountRow.user_id).where(SeatAccountRow.game_id == game_id)
                    ).all()
                )
                if session.get(GameRatingRow, game_id) is not None:
                    started = session.scalar(select(func.count()).where(ActionRow.game_id == game_id))
                    if started or user_id in held.values() or len(seats) != 1:
                        continue
                new = [seat for seat in seats if seat not in held]
                for seat in new:
                    session.add(SeatAccountRow(game_id=game_id, seat=seat, user_id=user_id, claimed_at=utcnow()))
                if new or any(held.get(seat) == user_id for seat in seats):
                    claimed.append(game_id)
        return claimed

    def seats_held(self, user_id: str, game_id: str) -> frozenset[int]:
        """The seats of ``game_id`` that the account holds."""
        with Session(self.engine) as session:
            return frozenset(
                session.scalars(
                    select(SeatAccountRow.seat).where(
                        SeatAccountRow.game_id == game_id, SeatAccountRow.user_id == user_id
                    )
                )
            )

    def user_by_name(self, name: str) -> UserRow | None:
        with Session(self.engine) as session:
            return session.scalars(select(UserRow).where(UserRow.name_key == name.lower())).one_or_none()

    def game_ids(self, user_id: str, limit: int) -> list[str]:
        """The games whose seats the account holds, newest first."""
        with Session(self.engine) as session:
            query = (
                select(GameRow.id)
                .join(SeatAccountRow, SeatAccountRow.game_id == GameRow.id)
                .where(SeatAccountRow.user_id == user_id)
                .group_by(GameRow.id, GameRow.updated_at)
                .order_by(GameRow.updated_at.desc())
                .limit(limit)
            )
            return list(session.scalars(query))

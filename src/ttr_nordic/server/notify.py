"""Reminders: tell a player whose tab is closed that it is their turn, by e-mail and Web Push.

Only seats held by accounts are reminded (a guest seat's link lives in its browser only). Each
account chooses in its settings: an e-mail address, e-mail on or off, push on or off, and the
interval (at most one reminder per game per interval). Whatever the settings, one address gets
at most :data:`MAX_MAILS_PER_ADDRESS_PER_HOUR` mails an hour, so nobody can point reminders at
someone else's inbox and flood it. The link in a mail opens the game page (signing in opens the
seat); it carries no secret. Neither a mail's text nor a push key is ever logged.

The clock sweeper (:mod:`.clocks`) decides when a reminder is due, on whichever process.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import smtplib
import ssl
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text, delete, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..web.i18n import DEFAULT as DEFAULT_LANGUAGE
from ..web.i18n import LANGUAGES, translate
from .account_db import SeatAccountRow
from .db import Base, utcnow

if TYPE_CHECKING:
    from .clocks import Clock
    from .games import GameService
    from .live import LiveGame

log = logging.getLogger(__name__)

#: The intervals a player may choose between reminders of one game, in seconds (1 hour to 3 days).
INTERVAL_BOUNDS = (3_600, 259_200)
DEFAULT_INTERVAL_S = 86_400
#: The most reminder mails one address receives in an hour, whatever the accounts pointing at it.
MAX_MAILS_PER_ADDRESS_PER_HOUR = 6
_EMAIL = re.compile(r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


class SettingsError(ValueError):
    """Reminder settings that cannot be used (one line)."""


class ReminderSettingsRow(Base):
    __tablename__ = "reminder_settings"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    email_on: Mapped[bool] = mapped_column(Boolean)
    push_on: Mapped[bool] = mapped_column(Boolean)
    interval_s: Mapped[int] = mapped_column(Integer)
    # The language of the mails and push messages (null: saved before it was asked, English).
    language: Mapped[str | None] = mapped_column(String(8), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PushSubscriptionRow(Base):
    __tablename__ = "push_subscriptions"

    endpoint: Mapped[str] = mapped_column(String(1000), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReminderSentRow(Base):
    __tablename__ = "reminders_sent"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str] = mapped_column(String(32))
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    channel: Mapped[str] = mapped_column(String(8))  # "email" or "push"
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ServerKeyRow(Base):
    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


@dataclass(frozen=True)
class ReminderSettings:
    """One account's reminder settings.

    >>> parse_settings({"email": "ada@example.org", "email_on": True, "interval_s": 3600, "language": "de"})
    ReminderSettings(email='ada@example.org', email_on=True, push_on=False, interval_s=3600, language='de')
    """

    email: str | None = None
    email_on: bool = False
    push_on: bool = False
    interval_s: int = DEFAULT_INTERVAL_S
    #: The language of the reminders (one of :data:`ttr_nordic.web.i18n.LANGUAGES`).
    language: str = DEFAULT_LANGUAGE

    def public(self) -> dict[str, Any]:
        return {
            "email": self.email,
            "email_on": self.email_on,
            "push_on": self.push_on,
            "interval_s": self.interval_s,
            "language": self.language,
        }


def parse_settings(value: object) -> ReminderSettings:
    """Reminder settings from JSON; raises :class:`SettingsError` with a one-line reason.

    >>> parse_settings({"email_on": True})
    Traceback (most recent call last):
    ...
    ttr_nordic.server.notify.SettingsError: e-mail reminders need an e-mail address
    """
    if not isinstance(value, dict):
        raise SettingsError("reminder settings must be an object")
    unknown = sorted(str(k) for k in value if k not in ("email", "email_on", "push_on", "interval_s", "language"))
    if unknown:
        raise SettingsError(f"unknown reminder settings: {', '.join(unknown)}")
    email = value.get("email") or None
    if email is not None:
        if not isinstance(email, str) or len(email) > 254 or not _EMAIL.match(email.strip()):
            raise SettingsError("the e-mail address is not one (like name@example.org, at most 254 characters)")
        email = email.strip()
    flags = {}
    for name in ("email_on", "push_on"):
        flag = value.get(name, False)
        if not isinstance(flag, bool):
            raise SettingsError(f"{name} must be true or false")
        flags[name] = flag
    interval = value.get("interval_s", DEFAULT_INTERVAL_S)
    low, high = INTERVAL_BOUNDS
    if not isinstance(interval, int) or isinstance(interval, bool) or not low <= interval <= high:
        raise SettingsError(f"interval_s must be a whole number of seconds from {low} (1 hour) to {high} (3 days)")
    if flags["email_on"] and email is None:
        raise SettingsError("e-mail reminders need an e-mail address")
    language = value.get("language", DEFAULT_LANGUAGE)
    if not isinstance(language, str) or language not in LANGUAGES:
        raise SettingsError(f"language must be one of {', '.join(LANGUAGES)}")
    return ReminderSettings(email, flags["email_on"], flags["push_on"], interval, language)


@dataclass(frozen=True)
class SmtpServer:
    """Where reminder mails go: ``smtp://[user:password@]host[:port]`` (``smtps://`` for TLS from
    the start, ``smtp+starttls://`` to upgrade); the password is never logged.

    >>> SmtpServer.of("smtp+starttls://bot:secret@mail.example:587", "games@example")
    SmtpServer(host='mail.example', port=587, security='starttls', user='bot', sender='games@example')
    """

    host: str
    port: int
    security: str  # "plain", "tls" or "starttls"
    user: str | None
    sender: str
    password: str | None = None

    def __repr__(self) -> str:
        return (
            f"SmtpServer(host={self.host!r}, port={self.port!r}, security={self.security!r}, "
            f"user={self.user!r}, sender={self.sender!r})"
        )

    @classmethod
    def of(cls, url: str, sender: str) -> SmtpServer:
        parts = urlsplit(url)
        security = {"smtp": "plain", "smtps": "tls", "smtp+starttls": "starttls"}.get(parts.scheme)
        if security is None or not parts.hostname:
            raise SettingsError("the SMTP URL must look like smtp://host:port, smtps://… or smtp+starttls://…")
        if not re.match(r"^[^@\s<>]+@[^@\s<>]+$", sender):
            raise SettingsError("the reminders' from-address is not an e-mail address")
        port = parts.port or {"plain": 25, "tls": 465, "starttls": 587}[security]
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, security, user, sender, password)

    def send(self, message: EmailMessage) -> None:
        message["From"] = self.sender
        if self.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                self.host, self.port, timeout=20, context=ssl.create_default_context()
            )
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=20)
        with client:
            if self.security == "starttls":
                client.starttls(context=ssl.create_default_context())
            if self.user and self.password:
                client.login(self.user, self.password)
            client.send_message(message)


def reminder_mail(language: str, player: str, players: list[str], url: str, deadline: datetime | None) -> EmailMessage:
    """The reminder mail (subject and text, no addresses) in ``language``.

    >>> mail = reminder_mail("de", "Ada", ["Ada", "Bo"], "https://games.example/play/g1", None)
    >>> mail["Subject"]
    'Zug um Zug: Skandinavien: Du bist am Zug'
    """
    message = EmailMessage()
    message["Subject"] = translate(language, "email.subject")
    names = ", ".join(players)
    play = (
        translate(language, "email.play", url=url)
        if deadline is None
        else translate(language, "email.playBefore", url=url, deadline=f"{deadline:%Y-%m-%d %H:%M}")
    )
    message.set_content(
        translate(language, "email.turn", player=player, players=names)
        + f"\n{play}\n\n"
        + translate(language, "email.footer")
        + "\n"
    )
    return message


def push_message(language: str, players: list[str], url: str) -> dict[str, str]:
    """The Web Push reminder's JSON (title, body, the game page's path) in ``language``.

    >>> push_message("sv", ["Ada", "Bo"], "/play/g1")["title"]
    'Din tur'
    """
    return {
        "title": translate(language, "email.pushTitle"),
        "body": translate(language, "email.pushBody", players=", ".join(players)),
        "url": url,
    }


def read_settings(engine: Engine, user_id: str) -> ReminderSettings:
    """The reminder settings of account ``user_id`` (the defaults where it saved none; English
    where it saved them before the language was asked)."""
    with Session(engine) as session:
        row = session.get(ReminderSettingsRow, user_id)
        if row is None:
            return ReminderSettings()
        language = row.language if row.language in LANGUAGES else DEFAULT_LANGUAGE
        return ReminderSettings(row.email, row.email_on, row.push_on, row.interval_s, language)


def _address_hash(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Notifier:
    """Sends the reminders of ``service``'s games (the :attr:`.clocks.Clocks.remind` hook)."""

    def __init__(self, service: GameService, smtp: SmtpServer | None, base_url: str) -> None:
        self.service = service
        self.engine: Engine = service.engine
        self.smtp = smtp
        self.base_url = base_url.rstrip("/")
        self._vapid_pem: str | None = None
        self.sent = {"email": 0, "push": 0}
        # Mails are counted and sent one at a time in this process (SQLite's transactions do not
        # lock on reading; PostgreSQL's processes also take a lock per address, see _mail).
        self._mail_lock = threading.Lock()

    # ------------------------------------------------------------ settings (database threads)

    def settings_of(self, user_id: str) -> ReminderSettings:
        return read_settings(self.engine, user_id)

    def save_settings(self, user_id: str, settings: ReminderSettings) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(ReminderSettingsRow, user_id)
            if row is None:
                row = ReminderSettingsRow(user_id=user_id)
                session.add(row)
            row.email, row.email_on, row.push_on = settings.email, settings.email_on, settings.push_on
            row.interval_s, row.language, row.updated_at = settings.interval_s, settings.language, utcnow()

    def subscribe(self, user_id: str, endpoint: str, p256dh: str, auth: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == endpoint))
            session.add(PushSubscriptionRow(endpoint=endpoint, user_id=user_id, p256dh=p256dh, auth=auth))
            count = session.scalar(select(func.count()).where(PushSubscriptionRow.user_id == user_id)) or 0
            if count > 10:
                raise SettingsError("at most 10 browsers may get push reminders for one account")

    def unsubscribe(self, user_id: str, endpoint: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(
                delete(PushSubscriptionRow).where(
                    PushSubscriptionRow.endpoint == endpoint, PushSubscriptionRow.user_id == user_id
                )
            )

    def vapid_pem(self) -> str:
        """The server's VAPID private key (PEM): made and stored at first use, shared by every process."""
        if self._vapid_pem is not None:
            return self._vapid_pem
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        with Session(self.engine) as session, session.begin():
            row = session.get(ServerKeyRow, "vapid", with_for_update=True)
            if row is None:
                key = ec.generate_private_key(ec.SECP256R1())
                pem = key.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                ).decode()
                session.add(ServerKeyRow(name="vapid", value=pem))
            else:
                pem = row.value
        self._vapid_pem = pem
        return pem

    def vapid_public_key(self) -> str:
        """The application server key a browser subscribes with (base64url, uncompressed point)."""
        from cryptography.hazmat.primitives import serialization

        key = serialization.load_pem_private_key(self.vapid_pem().encode(), password=None)
        raw = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return _b64(raw)

    # ------------------------------------------------------------ reminding

    async def remind(self, game: LiveGame, seat: int, clock: Clock) -> datetime | None:
        """It is ``seat``'s turn: remind its account if its tab is closed; returns when to look again."""
        later = utcnow() + timedelta(seconds=self.service.clocks.remind_after_s)
        user_id = await self.service.store.in_db_thread(self._holder, game.id, seat)
        if user_id is None:
            return later  # a guest seat: nobody to remind (unless an account claims it meanwhile)
        if await self.service.seat_present(game, seat):
            return later  # playing now
        settings = await self.service.store.in_db_thread(self.settings_of, user_id)
        if settings.email_on and settings.email and self.smtp is not None:
            await self.service.store.in_db_thread(self._mail, game, seat, user_id, settings, clock)
        if settings.push_on:
            await self.service.store.in_db_thread(self._push, game, seat, user_id, settings)
        return utcnow() + timedelta(seconds=settings.interval_s)

    def _holder(self, game_id: str, seat: int) -> str | None:
        with Session(self.engine) as session:
            row = session.get(SeatAccountRow, (game_id, seat))
            return None if row is None else row.user_id

    def _may_send(self, session: Session, game_id: str, user_id: str, channel: str, interval_s: int,
                  address_hash: str | None) -> bool:  # fmt: skip
        now = utcnow()
        recent = session.scalar(
            select(func.count()).where(
                ReminderSentRow.game_id == game_id,
                ReminderSentRow.user_id == user_id,
                ReminderSentRow.channel == channel,
                ReminderSentRow.sent_at > now - timedelta(seconds=interval_s),
            )
        )
        if recent:
            return False
        if address_hash is not None:
            to_address = session.scalar(
                select(func.count()).where(
                    ReminderSentRow.address_hash == address_hash, ReminderSentRow.sent_at > now - timedelta(hours=1)
                )
            )
            if (to_address or 0) >= MAX_MAILS_PER_ADDRESS_PER_HOUR:
                log.warning("reminder mail of game %s not sent: its address had %d this hour", game_id, to_address)
                return False
        return True

    def _mail(self, game: LiveGame, seat: int, user_id: str, settings: ReminderSettings, clock: Clock) -> None:
        assert self.smtp is not None and settings.email is not None
        digest = _address_hash(settings.email)
        with self._mail_lock, Session(self.engine) as session, session.begin():
            # The address's rows are counted and written in one transaction, under a lock per
            # address on PostgreSQL, so two processes cannot both send the last allowed mail.
            if session.get_bind().dialect.name == "postgresql":
                session.execute(select(func.pg_advisory_xact_lock(int(digest[:15], 16))))
            if not self._may_send(session, game.id, user_id, "email", settings.interval_s, digest):
                return
            session.add(ReminderSentRow(game_id=game.id, user_id=user_id, address_hash=digest, channel="email"))
            session.flush()
            message = reminder_mail(
                settings.language, game.seats[seat].name, [s.name for s in game.seats],
                f"{self.base_url}/play/{game.id}", clock.deadline,
            )  # fmt: skip
            message["To"] = settings.email
            self.smtp.send(message)  # inside the transaction: a mail that fails is not counted
        self.sent["email"] += 1
        log.info("reminder mail sent for seat %d of game %s", seat, game.id)

    def _push(self, game: LiveGame, seat: int, user_id: str, settings: ReminderSettings) -> None:
        from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

        with Session(self.engine) as session, session.begin():
            if not self._may_send(session, game.id, user_id, "push", settings.interval_s, None):
                return
            subscriptions = [
                (row.endpoint, row.p256dh, row.auth)
                for row in session.scalars(select(PushSubscriptionRow).where(PushSubscriptionRow.user_id == user_id))
            ]
            if not subscriptions:
                return
            session.add(ReminderSentRow(game_id=game.id, user_id=user_id, channel="push"))
        payload = json.dumps(push_message(settings.language, [s.name for s in game.seats], f"/play/{game.id}"))
        for address, p256dh, auth in subscriptions:
            endpoint = urlsplit(address)
            try:
                webpush(
                    {
                        "endpoint": address,
                        "keys": {"p256dh": p256dh, "auth": auth},
                    },
                    payload,
                    vapid_private_key=self._vapid_key(),
                    vapid_claims={
                        "sub": f"mailto:{self.smtp.sender if self.smtp else 'reminders@localhost'}",
                        "aud": f"{endpoint.scheme}://{endpoint.netloc}",
                    },
                    timeout=20,
                )
                self.sent["push"] += 1
            except WebPushException as exc:
                status = exc.response.status_code if exc.response is not None else None
                # (the endpoint's host only: its path names the subscription)
                log.warning("push reminder to %s refused (%s)", endpoint.netloc, status)
                if status in (404, 410):  # the browser unsubscribed
                    with Session(self.engine) as session, session.begin():
                        session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == address))

    def _vapid_key(self) -> Any:
        from py_vapid import Vapid  # type: ignore[import-untyped]

        return Vapid.from_pem(self.vapid_pem().encode())

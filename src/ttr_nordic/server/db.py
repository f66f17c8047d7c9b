"""Storage: SQLAlchemy 2 models, the engine (SQLite by default, PostgreSQL by URL) and migrations.

A game is stored as its record: the config (players, seed, first player), the mode, the
seats, and one row per accepted action. The live state is always rebuilt by replaying
those actions, so nothing acknowledged is lost when the process dies.
"""

from __future__ import annotations

import array
import fcntl
import hashlib
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    mode: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    first_player: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    winners: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # The rule variant played (see :mod:`.variants`): the hash of its row in ``variants``; None: official.
    variant_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="game", order_by="SeatRow.seat", cascade="all, delete-orphan"
    )


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))  # "human" or "ai"
    ai_level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # SHA-256 of the seat's secret token (None for AI seats); hotseat seats share one.
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    game: Mapped[GameRow] = relationship(back_populates="seats")


class ActionRow(Base):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    index: Mapped[int] = mapped_column("idx", Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    notation: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class VariantRow(Base):
    """A rule variant some game is played under: its canonical JSON, stored once under its SHA-256."""

    __tablename__ = "variants"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CreationBucketRow(Base):
    """A client's game-creation token bucket (PostgreSQL: shared by every server process)."""

    __tablename__ = "creation_buckets"

    client: Mapped[str] = mapped_column(String(64), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    granted: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


def default_database_url() -> str:
    """A SQLite file in the user's data directory (``$XDG_DATA_HOME`` or ``~/.local/share``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    folder = Path(base) / "ttr-nordic"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'games.sqlite'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and cross-thread use."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


class DatabaseConfigError(ValueError):
    """A database URL this server cannot use (its message is one line, fit for a command's error)."""


#: The URL schemes ``serve`` accepts (SQLAlchemy dialect and driver).
SUPPORTED_SCHEMES = ("sqlite", "sqlite+pysqlite", "postgresql", "postgresql+psycopg")


def check_database_url(url: str) -> None:
    """Refuse a URL with a scheme this server does not use, or a SQLite file in a missing folder,
    with :class:`DatabaseConfigError` (before SQLAlchemy would fail with a long traceback).

    >>> try:
    ...     check_database_url("mysql://db/games")
    ... except DatabaseConfigError as exc:
    ...     print(str(exc).split(":")[0])
    unsupported database URL scheme 'mysql'
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseConfigError(
            f"not a database URL: {hide_password(url)!r} (e.g. sqlite:///PATH or postgresql+psycopg://USER@HOST/NAME)"
        ) from None
    if parsed.drivername not in SUPPORTED_SCHEMES:
        raise DatabaseConfigError(
            f"unsupported database URL scheme {parsed.drivername!r}: use sqlite:///PATH or "
            "postgresql+psycopg://USER:PASSWORD@HOST/NAME"
        )
    if parsed.get_backend_name() == "sqlite":
        name = parsed.database
        if not name or name == ":memory:" or name.startswith("file:"):
            return
        folder = Path(name).expanduser().resolve().parent
        if not folder.is_dir():
            raise DatabaseConfigError(f"the folder of the SQLite database {name!r} does not exist: {folder}")
    elif not parsed.database:
        raise DatabaseConfigError(f"the PostgreSQL URL {hide_password(url)!r} names no database (…/NAME)")


def hide_password(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``, for messages and logs.

    >>> hide_password("postgresql+psycopg://ttr:s3cret@db.example/ttr")
    'postgresql+psycopg://ttr:***@db.example/ttr'
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a URL)"


def database_error_reason(exc: BaseException) -> str:
    """The first line of the database driver's own message for ``exc`` (no traceback, no password)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return _PASSWORD_IN_URL.sub(r"\1***@", line)


_PASSWORD_IN_URL = re.compile(r"(://[^:/@\s]+:)[^@\s]+@")

#: The key of the advisory lock that ``migrate`` holds on PostgreSQL (any 64-bit number unique to
#: this purpose: the first 8 bytes of SHA-256 of "ttr-nordic:migrate").
MIGRATION_LOCK_KEY = int.from_bytes(hashlib.sha256(b"ttr-nordic:migrate").digest()[:8], "big", signed=True)


def _alembic_config() -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    return config


def head_revision() -> str:
    """The newest migration shipped in this package (e.g. ``"0002"``)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def known_revisions() -> frozenset[str]:
    """Every migration shipped in this package."""
    from alembic.script import ScriptDirectory

    return frozenset(script.revision for script in ScriptDirectory.from_config(_alembic_config()).walk_revisions())


def revision_gap(current: str | None, head: str) -> str | None:
    """Why a database at migration ``current`` cannot serve this version (head ``head``), or None.

    >>> revision_gap("0001", "0002")
    'the schema is at migration 0001, not 0002: run ttr-nordic db upgrade'
    """
    if current == head:
        return None
    if current is None:
        return f"the database has no schema yet (this version's is migration {head}): run ttr-nordic db upgrade"
    if current not in known_revisions():
        return (
            f"the schema is at migration {current}, which this version does not know (a newer version's?): "
            f"run that version, or this one on another database"
        )
    return f"the schema is at migration {current}, not {head}: run ttr-nordic db upgrade"


def current_revision(engine: Engine) -> str | None:
    """The migration the database is at (None: an empty database, no schema yet)."""
    # Read directly: Alembic's MigrationContext logs two lines each time (readiness is asked often).
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        revision: str | None = connection.execute(_VERSION).scalar()
        return revision


_VERSION = text("SELECT version_num FROM alembic_version")


@contextmanager
def _sqlite_migration_lock(database: Path | None) -> Iterator[None]:
    """An exclusive ``flock`` on ``<database>.migrate-lock`` while a process migrates (SQLite has no
    advisory locks; its own write lock is not held across Alembic's statements)."""
    if database is None:
        yield
        return
    try:
        handle = open(f"{database}.migrate-lock", "a")  # noqa: SIM115 - held for the whole block
    except OSError:
        yield  # a read-only folder: the migration (or the write check after it) says why
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def migrate(engine: Engine) -> str:
    """Bring the schema up to date with the migrations shipped in this package and answer the
    revision it is at (refused, with :class:`DatabaseNotWritable`, where SQLite's
    shared-memory file cannot be written).

    Several processes may call this at once on one empty database (a fresh start of every
    ``ttr-nordic serve`` behind a proxy): on PostgreSQL each takes the advisory lock
    :data:`MIGRATION_LOCK_KEY` for the migration's transaction, on SQLite a file lock beside the
    database, so one migrates and the others then find the schema at its head."""
    fault = shared_memory_fault(sqlite_path(engine))
    if fault is not None:
        raise DatabaseNotWritable(f"the game database {engine.url!r} cannot be opened safely: {fault}")
    from alembic import command

    config = _alembic_config()
    with _sqlite_migration_lock(sqlite_path(engine)), engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Released by the transaction's commit or rollback (or the session's end).
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        config.attributes["connection"] = connection
        current = connection.execute(_VERSION).scalar() if inspect(connection).has_table("alembic_version") else None
        if current is not None and current not in known_revisions():
            # Alembic would fail with "Can't locate revision" and a traceback.
            gap = revision_gap(current, head_revision())
            raise DatabaseTooNew(f"the game database {engine.url!r} cannot be used: {gap}")
        command.upgrade(config, "head")
        revision = connection.execute(_VERSION).scalar()
    assert isinstance(revision, str)
    return revision


class DatabaseTooNew(RuntimeError):
    """The database's schema was made by a newer version of this program (an unknown migration)."""


class DatabaseNotWritable(RuntimeError):
    """The database cannot store moves (a read-only file or folder, a read-only server)."""


def sqlite_path(engine: Engine) -> Path | None:
    """The file of a SQLite database (None for another database or an in-memory one)."""
    if engine.dialect.name != "sqlite":
        return None
    name = engine.url.database
    if not name or name == ":memory:" or name.startswith("file:"):
        return None
    return Path(name).resolve()


def file_identity(path: Path | None) -> tuple[int, int] | None:
    """(device, inode) of ``path``: a deleted or replaced database file has another, or none."""
    if path is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


#: Linux ``FS_IOC_GETFLAGS`` and the inode flags that forbid writing even to root.
_FS_IOC_GETFLAGS = 0x80086601
_UNWRITABLE_FLAGS = ((0x10, "immutable"), (0x20, "append-only"))


#: A descriptor of each file :func:`unwritable_attribute` looked at, by (device, inode), kept open.
_HELD: dict[tuple[int, int], int] = {}
_HELD_LOCK = threading.Lock()
#: The most files held so (a file replaced again and again is not followed past this).
_MAX_HELD = 256


def _held_descriptor(path: Path) -> int | None:
    """A read-only descriptor of ``path``, opened once per file and never closed.

    Closing *any* descriptor of a file releases every POSIX lock this process holds on it,
    SQLite's included: its lock on the shared-memory file that says "in use" would go, and
    another process opening the database (a backup's ``wal_checkpoint``) would then truncate and
    rebuild that file under this process's mapping of it (a SIGBUS)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (stat.st_dev, stat.st_ino)
    with _HELD_LOCK:
        fd = _HELD.get(key)
        if fd is not None or len(_HELD) >= _MAX_HELD:
            return fd
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return None
        opened = os.fstat(fd)
        # (Replaced meanwhile: this descriptor is of another file. Kept too, never closed.)
        _HELD.setdefault((opened.st_dev, opened.st_ino), fd)
        return fd if (opened.st_dev, opened.st_ino) == key else None


def unwritable_attribute(path: Path) -> str | None:
    """ "immutable" or "append-only" when ``path`` carries that file attribute (``chattr +i``,
    ``chattr +a``; Linux), else None (also where the attribute cannot be read).

    SQLite maps the WAL index, ``<database>-shm``, into memory and writes to it on every read
    and write; on a file made immutable such a write is a SIGBUS that kills the process with
    no word. So the file's attribute is checked before the database is used (through a
    descriptor held open: see :func:`_held_descriptor`)."""
    fd = _held_descriptor(path)
    if fd is None:
        return None
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, _FS_IOC_GETFLAGS, flags, True)
    except OSError:
        return None
    for bit, name in _UNWRITABLE_FLAGS:
        if flags[0] & bit:
            return name
    return None


def shared_memory_fault(database: Path | None) -> str | None:
    """Why SQLite could not safely use ``database``'s shared-memory file now, or None."""
    if database is None:
        return None
    shm = Path(f"{database}-shm")
    attribute = unwritable_attribute(shm)
    if attribute is None:
        return None
    return (
        f"the database's shared-memory file {shm} is {attribute}: SQLite would crash writing to it, "
        "so nothing is stored until it is writable again"
    )


def check_writable(engine: Engine) -> None:
    """Refuse to start on a database that cannot store moves, saying why: a write that changes
    nothing, rolled back, fails on a read-only SQLite file, folder or URL (``mode=ro``) and on a
    read-only PostgreSQL alike."""
    fault = shared_memory_fault(sqlite_path(engine))
    if fault is not None:
        raise DatabaseNotWritable(f"the game database {engine.url!r} cannot store moves: {fault}")
    try:
        with engine.connect() as connection, connection.begin() as transaction:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = version_num WHERE 1 = 0")
            transaction.rollback()
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise DatabaseNotWritable(f"the game database {engine.url!r} cannot store moves: {reason}") from exc

"""Storage: SQLAlchemy 2 models, the engine (SQLite by default, PostgreSQL by URL) and migrations.

A game is stored as its record: the config (players, seed, first player), the mode, the
seats, and one row per accepted action. The live state is always rebuilt by replaying
those actions, so nothing acknowledged is lost when the process dies.
"""

from __future__ import annotations

import array
import fcntl
import os
import threading
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


def migrate(engine: Engine) -> None:
    """Bring the schema up to date with the migrations shipped in this package (refused, with
    :class:`DatabaseNotWritable`, where SQLite's shared-memory file cannot be written)."""
    fault = shared_memory_fault(sqlite_path(engine))
    if fault is not None:
        raise DatabaseNotWritable(f"the game database {engine.url!r} cannot be opened safely: {fault}")
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


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

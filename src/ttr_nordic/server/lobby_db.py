"""Storage of the lobby and the chat: the tables of migration 0004.

Only hashes of secrets are kept: a seat's ticket (which becomes the game's seat token when the
table starts) is stored as its SHA-256, a creator's address as a keyed hash (see :func:`.tokens.client_key`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, utcnow


class TableRow(Base):
    """An open table of the lobby: "open" until full, then "started" (with its game) or "cancelled"."""

    __tablename__ = "lobby_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    time_control: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON, passed to the game
    # The rule variant played (see .variants): its hash in ``variants``; None: the official rules.
    variant_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    creator_key: Mapped[str] = mapped_column(String(64), index=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableSeatRow(Base):
    """A seat taken at a lobby table: its holder's name, ticket hash and account (if signed in)."""

    __tablename__ = "lobby_seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("lobby_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    ticket_hash: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    client_key: Mapped[str] = mapped_column(String(64), index=True)  # the holder's address, hashed
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatRow(Base):
    """One chat message at a game's table (apart from the game record)."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True)
    author: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RematchRow(Base):
    """A rematch offered after a game between people: the seats that accepted (digits, e.g.
    "02"), and the new game once every seat has."""

    __tablename__ = "rematch_offers"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    accepted: Mapped[str] = mapped_column(String(8))
    new_game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

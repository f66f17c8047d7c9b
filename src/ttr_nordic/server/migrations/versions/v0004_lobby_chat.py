"""The lobby's tables and their seats, the chat at a game's table, and rematch offers.

A lobby table becomes a game when its seats are full; the chat is kept apart from the game
record (its own table), and a message written by an account goes when the account does.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lobby_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("time_control", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("creator_key", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
    )
    op.create_index("ix_lobby_tables_status", "lobby_tables", ["status"])
    op.create_index("ix_lobby_tables_creator_key", "lobby_tables", ["creator_key"])
    op.create_index("ix_lobby_tables_game_id", "lobby_tables", ["game_id"])
    op.create_table(
        "lobby_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("lobby_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("ticket_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("client_key", sa.String(64), nullable=False),
        sa.Column("joined_at", _WHEN, nullable=False),
    )
    op.create_index("ix_lobby_seats_client_key", "lobby_seats", ["client_key"])
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("text", sa.String(300), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("ix_chat_messages_game_id_id", "chat_messages", ["game_id", "id"])
    op.create_index("ix_chat_messages_user_id", "chat_messages", ["user_id"])
    op.create_table(
        "rematch_offers",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("accepted", sa.String(8), nullable=False),
        sa.Column("new_game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematch_offers")
    op.drop_index("ix_chat_messages_user_id", table_name="chat_messages")
    op.drop_index("ix_chat_messages_game_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
    op.drop_index("ix_lobby_seats_client_key", table_name="lobby_seats")
    op.drop_table("lobby_seats")
    op.drop_index("ix_lobby_tables_game_id", table_name="lobby_tables")
    op.drop_index("ix_lobby_tables_creator_key", table_name="lobby_tables")
    op.drop_index("ix_lobby_tables_status", table_name="lobby_tables")
    op.drop_table("lobby_tables")

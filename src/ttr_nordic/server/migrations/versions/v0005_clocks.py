"""Time controls (each game's clock) and reminders (each account's settings, Web Push
subscriptions, and the e-mails sent, for the throttle).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "game_clocks",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("per_move_s", sa.Integer(), nullable=False),
        sa.Column("reserve_s", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("turn_started_at", _WHEN, nullable=False),
        sa.Column("deadline", _WHEN, nullable=True),
        sa.Column("reserves", sa.Text(), nullable=False),
        sa.Column("timeouts", sa.Text(), nullable=False),
        sa.Column("remind_at", _WHEN, nullable=True),
    )
    op.create_index("ix_game_clocks_deadline", "game_clocks", ["deadline"])
    op.create_index("ix_game_clocks_remind_at", "game_clocks", ["remind_at"])
    op.create_table(
        "reminder_settings",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("email_on", sa.Boolean(), nullable=False),
        sa.Column("push_on", sa.Boolean(), nullable=False),
        sa.Column("interval_s", sa.Integer(), nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint", sa.String(1000), primary_key=True),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])
    op.create_table(
        "reminders_sent",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("address_hash", sa.String(64), nullable=True),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("sent_at", _WHEN, nullable=False),
    )
    op.create_index("ix_reminders_sent_game_user", "reminders_sent", ["game_id", "user_id", "sent_at"])
    op.create_index("ix_reminders_sent_address", "reminders_sent", ["address_hash", "sent_at"])
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_index("ix_reminders_sent_address", table_name="reminders_sent")
    op.drop_index("ix_reminders_sent_game_user", table_name="reminders_sent")
    op.drop_table("reminders_sent")
    op.drop_index("ix_push_subscriptions_user_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("reminder_settings")
    op.drop_index("ix_game_clocks_remind_at", table_name="game_clocks")
    op.drop_index("ix_game_clocks_deadline", table_name="game_clocks")
    op.drop_table("game_clocks")

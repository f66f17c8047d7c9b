"""Rule variants: the variants games are played under, each stored once, and the variant of
each game and lobby table.

A variant other than the official rules is kept as its canonical JSON (the variant file's
layout, its board included when custom) under the SHA-256 of that text; ``games.variant_hash``
and ``lobby_tables.variant_hash`` name it (NULL: the official rules, as for every game and
table stored before this migration).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "variants",
        sa.Column("hash", sa.String(64), primary_key=True),  # SHA-256 of body, in hex
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # No foreign key: on SQLite adding one rebuilds the games table, whose rows the seats, actions
    # and clocks reference with ON DELETE CASCADE. The server stores the variant before the game,
    # and never deletes a variant (the hash names its content).
    op.add_column("games", sa.Column("variant_hash", sa.String(64), nullable=True))
    op.add_column("lobby_tables", sa.Column("variant_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("lobby_tables", "variant_hash")
    op.drop_column("games", "variant_hash")
    op.drop_table("variants")

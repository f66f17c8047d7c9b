"""The game-creation limit's buckets, shared by every server process on one database.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "creation_buckets",
        sa.Column("client", sa.String(64), primary_key=True),  # SHA-256 of the address, never the address
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_creation_buckets_updated_at", "creation_buckets", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_creation_buckets_updated_at", table_name="creation_buckets")
    op.drop_table("creation_buckets")

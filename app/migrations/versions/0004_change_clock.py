"""change clock: a revision per scope (the deck, each user's review state)

The review queue kept in memory by each server process (``app.review.queue``) reads these to notice writes
made by another process (a second worker, the CLI) instead of querying on every ``GET /api/review/next``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "changeclock",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rev", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("changeclock")

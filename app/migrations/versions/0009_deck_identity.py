"""deck identity: a random id per database, named by handbook exports and checked by their review import

``deckidentity``: one row (``scope = "deck"``), made on first use by ``app.models.deck.deck_id``.

Revision ID: 0009_deck_identity
Revises: 0008_verdicts_as_data
Create Date: 2026-12-03 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_deck_identity"
down_revision = "0008_verdicts_as_data"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deckidentity",
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("deck_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope"),
    )


def downgrade() -> None:
    op.drop_table("deckidentity")

"""claims store what they assert (a sympy expression over verify's vocabulary) and the reading it takes

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 14:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cardclaim") as batch:
        batch.add_column(sa.Column("asserts", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("reading", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("unverifiable", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("cardclaim") as batch:
        batch.drop_column("unverifiable")
        batch.drop_column("reading")
        batch.drop_column("asserts")

"""claim verdicts record how their numbers were obtained (measured / simulated / calculated)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 00:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("claimverdict") as batch:
        batch.add_column(sa.Column("method", sa.String(), nullable=False, server_default=""))
    # verdicts stored before this revision: derive the method from what they judged
    op.execute("UPDATE claimverdict SET method = 'calculated' WHERE judged = 'arithmetic'")
    op.execute("UPDATE claimverdict SET method = 'simulated' WHERE judged = 'simulated'")
    op.execute("UPDATE claimverdict SET method = 'none' WHERE judged = 'none'")
    op.execute("UPDATE claimverdict SET method = 'measured' WHERE method = ''")


def downgrade() -> None:
    with op.batch_alter_table("claimverdict") as batch:
        batch.drop_column("method")

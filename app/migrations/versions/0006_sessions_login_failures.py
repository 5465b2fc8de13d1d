"""web sessions that end, login failures shared by every worker

``apitoken.last_used_at``: when a web session was last seen, for the idle limit (``app.auth.sessions``).
``loginfailure``: the rate limiter's failed logins, in the database so that every worker and host counts
the same attempts (``app.auth.ratelimit``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 14:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "loginfailure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("loginfailure", schema=None) as batch_op:
        batch_op.create_index("ix_loginfailure_at", ["at"], unique=False)
        batch_op.create_index("ix_loginfailure_kind_subject_at", ["kind", "subject", "at"], unique=False)


def downgrade() -> None:
    op.drop_table("loginfailure")
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.drop_column("last_used_at")

"""index for counting a user's new items reviewed today (GET /api/review/next counts them every call)

Without it the count visits every review of the day (``ix_reviewlog_user_time``) to read ``was_new``, so
``next`` slowed down as a busy day went on.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 01:15:00
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_reviewlog_user_new_time", "reviewlog", ["user_id", "was_new", "reviewed_at"])


def downgrade() -> None:
    op.drop_index("ix_reviewlog_user_new_time", table_name="reviewlog")

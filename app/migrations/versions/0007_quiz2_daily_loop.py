"""the daily loop: buried and suspended items, undone answers, a daily review limit

``itemhold``: an item a user buried (until their next day) or suspended (until resumed).
``undorecord``: each committed ``POST /api/review/undo`` with its idempotency key and response, and the undone
answer's key, item and response (a retry of that answer is replayed, not graded again).
``usersettings.reviews_per_day``: how many items in review the quiz offers per day.
``ix_reviewlog_showing_id``: "was this drill showing answered?" without scanning the log.

Revision ID: 0007_quiz2
Revises: 0006
Create Date: 2026-12-01 20:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_quiz2"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "itemhold",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["reviewitem.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "item_id"),
    )
    with op.batch_alter_table("itemhold", schema=None) as batch_op:
        batch_op.create_index("ix_itemhold_user_id", ["user_id"], unique=False)
    op.create_table(
        "undorecord",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=128), nullable=False),
        sa.Column("undone_log_id", sa.Integer(), nullable=False),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("answer_key", sa.String(length=128), nullable=True),
        sa.Column("answer_item_id", sa.Integer(), nullable=True),
        sa.Column("answer_response", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "idempotency_key"),
    )
    with op.batch_alter_table("undorecord", schema=None) as batch_op:
        batch_op.create_index("ix_undorecord_user_id", ["user_id"], unique=False)
        batch_op.create_index("ix_undorecord_answer_key", ["user_id", "answer_key"], unique=False)
    with op.batch_alter_table("usersettings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reviews_per_day", sa.Integer(), nullable=False, server_default="200"))
    with op.batch_alter_table("reviewlog", schema=None) as batch_op:
        batch_op.create_index("ix_reviewlog_showing_id", ["showing_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("reviewlog", schema=None) as batch_op:
        batch_op.drop_index("ix_reviewlog_showing_id")
    with op.batch_alter_table("usersettings", schema=None) as batch_op:
        batch_op.drop_column("reviews_per_day")
    op.drop_table("undorecord")
    op.drop_table("itemhold")

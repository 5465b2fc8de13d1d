"""one-time login links, apart from API tokens

``loginlink``: a login link's hashed token, when it expires, when it was used or ended (``app.auth.links``).
API tokens (``apitoken``, kind "api") are unchanged: a link printed before this revision carried an API
token, which keeps working as one (``Authorization: Bearer``) but no longer signs a browser in.

Revision ID: 0010_login_links
Revises: 0009_deck_identity
Create Date: 2026-12-04 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_login_links"
down_revision = "0009_deck_identity"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "loginlink",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("loginlink", schema=None) as batch_op:
        batch_op.create_index("ix_loginlink_expires_at", ["expires_at"], unique=False)
        batch_op.create_index("ix_loginlink_token_hash", ["token_hash"], unique=True)
        batch_op.create_index("ix_loginlink_user_id", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_table("loginlink")

"""the new-item queue: a gather order and sibling burying per user

``usersettings.gather_order``: "deck" | "interleaved" | "random", the order new items are gathered in.
``usersettings.bury_siblings``: an answered item's siblings (items of the same card) wait until the next day.

Revision ID: 0011_gather_bury
Revises: 0010_login_links
Create Date: 2026-12-04 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_gather_bury"
down_revision = "0010_login_links"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("usersettings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("gather_order", sa.String(), nullable=False, server_default="interleaved"))
        batch_op.add_column(sa.Column("bury_siblings", sa.Boolean(), nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("usersettings", schema=None) as batch_op:
        batch_op.drop_column("bury_siblings")
        batch_op.drop_column("gather_order")

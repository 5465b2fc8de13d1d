"""verdicts stored as data, the check field gone

``claimverdict.evaluated``: the values the assertion took at each measured configuration; ``counterexamples``:
where it fails (at, value, claimed, text). Pages, quiz, exports and the CLI render from these fields instead of
parsing the reason sentences. ``judge``: who judged the verdict (a hand-written claim, or an annotation-free
judge of ``verify.judge.statements`` for a statement no claim annotates). Verdicts stored before this revision
get their ``evaluated`` from their run's report and their counterexample as text. ``claimverdict.check`` /
``judged`` and ``cardclaim.check`` held a field that claims no longer have (claims state what they assert):
dropped.

Revision ID: 0008_verdicts_as_data
Revises: 0007_quiz2
Create Date: 2026-12-03 12:40:00
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008_verdicts_as_data"
down_revision = "0007_quiz2"
branch_labels = None
depends_on = None


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def upgrade() -> None:
    with op.batch_alter_table("claimverdict") as batch:
        batch.add_column(sa.Column("evaluated", sa.JSON(), nullable=False, server_default=sa.text("'[]'")))
        batch.add_column(sa.Column("counterexamples", sa.JSON(), nullable=False, server_default=sa.text("'[]'")))
        batch.add_column(sa.Column("judge", sa.String(), nullable=False, server_default="claim"))
        batch.drop_column("check")
        batch.drop_column("judged")
    with op.batch_alter_table("cardclaim") as batch:
        batch.drop_column("check")
    conn = op.get_bind()
    verdict = sa.table("claimverdict", sa.column("id", sa.Integer), sa.column("run_id", sa.Integer),
                       sa.column("card_slug", sa.String), sa.column("claim_key", sa.String),
                       sa.column("evaluated", sa.JSON), sa.column("counterexamples", sa.JSON))
    runs = sa.table("verificationrun", sa.column("id", sa.Integer), sa.column("report", sa.JSON))
    for run_id, report in conn.execute(sa.select(runs.c.id, runs.c.report)).all():
        for claim in (_json(report) or {}).get("claims") or []:
            text = str(claim.get("counterexample") or "")
            conn.execute(verdict.update().where(
                verdict.c.run_id == run_id, verdict.c.card_slug == claim.get("card"),
                verdict.c.claim_key == claim.get("claim_id")).values(
                evaluated=claim.get("evaluated") or [],
                counterexamples=[{"at": "", "value": "", "claimed": "", "text": text}] if text else []))


def downgrade() -> None:
    with op.batch_alter_table("cardclaim") as batch:
        batch.add_column(sa.Column("check", sa.String(), nullable=False, server_default=""))
    with op.batch_alter_table("claimverdict") as batch:
        batch.add_column(sa.Column("judged", sa.String(), nullable=False, server_default=""))
        batch.add_column(sa.Column("check", sa.String(), nullable=False, server_default=""))
        batch.drop_column("judge")
        batch.drop_column("counterexamples")
        batch.drop_column("evaluated")

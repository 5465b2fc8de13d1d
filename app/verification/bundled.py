"""The report shipped with the deck (``verify/results/latest.json``): stored by ``proofdeck sync`` so a
fresh install shows verdicts before anyone runs ``proofdeck verify``.

It is stored when the database has no finished run, or when its latest finished run is an older bundled
report (the file changed: a new sweep was committed). A run made here (``proofdeck verify``, the admin
endpoint) is newer than anything shipped and is never replaced. Regenerate the file with
``make verify-report`` (``python -m verify --json verify/results/latest.json``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.core.db import new_session
from app.models.verification import VerificationRun
from app.verification.store import store_report

BUNDLED_HOST = "bundled report"


def load_bundled_report(engine: Engine, path: Path, *, after: Callable[[Session], None] | None = None) -> str:
    """Store ``path`` if the database has no newer run; returns what it did, for the sync output.

    ``after(session)`` runs once the report is stored, in its transaction, and commits it (``app.deck.verdicts``
    refreshes the review items)."""
    if not path.is_file():
        return f"no bundled verification report at {path}"
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:16]
    with new_session(engine) as session:
        latest = session.exec(select(VerificationRun).where(VerificationRun.status == "done")
                              .order_by(col(VerificationRun.finished_at).desc(), col(VerificationRun.id).desc())
                              .limit(1)).first()
        if latest is not None and not latest.host.startswith(BUNDLED_HOST):
            return f"verification: kept the run of {latest.finished_at:%Y-%m-%d %H:%M} on {latest.host}"
        if latest is not None and latest.host == f"{BUNDLED_HOST} {digest}":
            return "verification: bundled report already stored"
        data = json.loads(raw)
        run = store_report(session, data, host=f"{BUNDLED_HOST} {digest}", commit=after is None)
        if after is not None:
            after(session)  # in the same transaction, which it commits
        n = len(data.get("claims", []))
        return f"verification: stored the bundled report {path.name} ({n} verdicts, run {run.id})"

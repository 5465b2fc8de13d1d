"""Verdicts change what is reviewed: storing a verify report refreshes the misconception drills.

``app.verification`` stores reports and knows nothing of review items (it sits below ``app.items``); this
module, above both, is what every writer of a report calls (the CLI, the admin endpoint, start-up sync).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.items.items import refresh_after_verdicts
from app.models.verification import VerificationRun
from app.verification.bundled import load_bundled_report
from app.verification.store import store_report


def store_verdicts(session: Session, data: dict[str, Any], run: VerificationRun | None = None,
                   host: str | None = None) -> VerificationRun:
    """``store_report``, and the review items follow the verdicts, in one transaction: a poller that sees the
    run done sees its drills too, and a failure leaves neither."""
    run = store_report(session, data, run=run, host=host, commit=False)
    refresh_after_verdicts(session)  # commits
    session.refresh(run)
    return run


def load_bundled(engine: Engine, path: Path) -> str:
    """The deck's shipped report, stored while the database has no newer run (``load_bundled_report``)."""
    return load_bundled_report(engine, path, after=refresh_after_verdicts)

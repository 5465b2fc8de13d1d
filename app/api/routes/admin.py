"""Admin-only operations on the deck: sync ``cards/`` into the database."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from app.api.deps import AdminUser
from app.api.errors import errors
from app.core.db import new_session

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=errors(401, 403, 422))


class SyncResult(BaseModel):
    """Slugs added, updated and retired by the sync; how many were unchanged."""

    added: list[str]
    updated: list[str]
    unchanged: int
    retired: list[str]


@router.post("/sync")
def sync(_admin: AdminUser, request: Request) -> SyncResult:
    """Sync the server's cards folder (all or nothing); review items follow, history kept."""
    from app.core.dblock import database_lock
    from app.deck.sync import SyncError, sync_cards

    try:
        with database_lock(request.app.state.engine):  # a CLI sync or a starting worker goes first
            # the notes (mismatch, stale) are not part of the answer: listing them cost ~25 s of sympy
            report = sync_cards(request.app.state.engine, request.app.state.cards_dir, claim_notes=False)
    except SyncError as exc:
        raise HTTPException(422, detail=[str(e) for e in exc.errors]) from None

    from app.items.items import refresh_stale_items

    with new_session(request.app.state.engine) as session, session.begin():
        refresh_stale_items(session)
    return SyncResult(added=report.added, updated=report.updated, unchanged=len(report.unchanged),
                      retired=report.retired)

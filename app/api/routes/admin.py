"""``/api/admin``: admin-only operations on the deck: sync ``cards/`` into the database, start a verify sweep
as a background job (polled at ``GET /api/verification/runs/{id}``)."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from app.api.deps import AdminUser, SessionDep
from app.api.errors import errors
from app.core.db import new_session
from app.core.jsontypes import JsonInt
from app.deck.verdicts import store_verdicts
from app.models.card import utcnow
from app.models.verification import VerificationRun
from app.schemas.verification import RunPublic
from app.verification.public import run_public
from app.verification.runner import run_verify
from app.verification.store import fail_run, start_run

router = APIRouter(prefix="/api/admin")


class SyncResult(BaseModel):
    """Slugs added, updated and retired by the sync; how many were unchanged."""

    added: list[str]
    updated: list[str]
    unchanged: int
    retired: list[str]


@router.post("/sync", tags=["admin"], responses=errors(401, 403, 422))
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


class VerifyRequest(BaseModel):
    """What an admin may choose for a run started from the API (the CLI takes every option); strict types."""

    model_config = ConfigDict(strict=True)

    world_sizes: str = Field("2,4", pattern=r"^[1-9][0-9]?(,[1-9][0-9]?){0,3}$", description="e.g. 2,4")
    params: JsonInt = Field(1_000_000, ge=10_000, le=20_000_000, description="model parameters")
    with_torch: bool = Field(True, description="also run PyTorch's DDP / ZeroRedundancyOptimizer / FSDP2")


STALE_AFTER = timedelta(hours=1)  # a "running" row older than this belongs to a server that died


def _run_job(engine: Engine, run_id: int, body: VerifyRequest, cards_dir: Path) -> None:
    """The background job: the sweep in its own processes, then its verdicts stored on ``run_id``."""
    with new_session(engine) as session:
        run = session.get(VerificationRun, run_id)
        assert run is not None
        try:
            data = run_verify(world_sizes=body.world_sizes, params=body.params, with_torch=body.with_torch,
                              cards_dir=cards_dir)
            store_verdicts(session, data, run=run)
        except Exception as exc:  # the job reports every failure on its run row
            session.rollback()
            fail_run(session, run, f"{type(exc).__name__}: {exc}")


@router.post("/verification", response_model=RunPublic, status_code=202, tags=["verification"],
             responses=errors(401, 403, 409, 422))
def start_verification(_admin: AdminUser, request: Request, session: SessionDep,
                       body: VerifyRequest | None = None) -> RunPublic:
    """Start a verify sweep as a background job (admin only; no body: the defaults); poll
    ``GET /api/verification/runs/{id}``."""
    body = body or VerifyRequest.model_validate({})
    busy = session.exec(select(VerificationRun).where(VerificationRun.status == "running",
                                                      col(VerificationRun.created_at) > utcnow() - STALE_AFTER)).first()
    if busy is not None:
        raise HTTPException(409, detail=f"verification run {busy.id} is still running; wait for it to finish")
    run = start_run(session)
    assert run.id is not None
    threading.Thread(target=_run_job, args=(request.app.state.engine, run.id, body, request.app.state.cards_dir),
                     name=f"verify-run-{run.id}", daemon=True).start()
    return run_public(run)

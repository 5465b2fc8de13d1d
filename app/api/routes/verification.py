"""Verification verdicts per card (public) — runs are started by an admin (CLI or admin endpoint)."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from app.api.deps import AdminUser, SessionDep
from app.api.errors import IdPath, errors
from app.core.db import new_session
from app.core.jsontypes import JsonInt
from app.deck.verdicts import store_verdicts
from app.models.card import Card, utcnow
from app.models.verification import ClaimVerdict, VerificationRun
from app.verification.runner import run_verify
from app.verification.store import fail_run, latest_verdicts, start_run

router = APIRouter(tags=["verification"])


class RunPublic(BaseModel):
    id: int
    status: str
    created_at: str
    finished_at: str | None
    host: str
    backend: str
    device: str
    torch_version: str
    proofdeck_version: str
    world_sizes: list[int]
    error: str


class VerdictPublic(BaseModel):
    claim_id: str
    verdict: str
    method: str
    text_zh: str
    text_en: str
    predicted: Any
    measured: Any
    condition: str
    evaluated: list[dict[str, Any]]  # per measured configuration: config, quantities, relations (value, claimed)
    counterexamples: list[dict[str, str]]  # where a relation fails: at, value, claimed, text
    reason_zh: str
    reason_en: str


class CardVerification(BaseModel):
    slug: str
    run: RunPublic | None
    verdicts: list[VerdictPublic]


def run_public(run: VerificationRun) -> RunPublic:
    assert run.id is not None
    return RunPublic(id=run.id, status=run.status, created_at=run.created_at.isoformat(),
                     finished_at=run.finished_at.isoformat() if run.finished_at else None, host=run.host,
                     backend=run.backend, device=run.device, torch_version=run.torch_version,
                     proofdeck_version=run.proofdeck_version, world_sizes=list(run.world_sizes), error=run.error)


def verdict_public(v: ClaimVerdict) -> VerdictPublic:
    return VerdictPublic(claim_id=v.claim_key, verdict=v.verdict, method=v.method, text_zh=v.text_zh,
                         text_en=v.text_en, predicted=v.predicted, measured=v.measured, condition=v.condition,
                         evaluated=list(v.evaluated or []), counterexamples=list(v.counterexamples or []),
                         reason_zh=v.reason_zh, reason_en=v.reason_en)


@router.get("/api/cards/{slug}/verification", response_model=CardVerification,
            responses=errors(404, 422))
def card_verification(slug: str, session: SessionDep) -> CardVerification:
    """The latest verdict for each of the card's claims, and which machine and backend produced them."""
    if session.exec(select(Card.id).where(Card.slug == slug)).first() is None:
        raise HTTPException(404, detail=f"no card with slug '{slug}'")
    run, verdicts = latest_verdicts(session, slug)
    return CardVerification(slug=slug, run=run_public(run) if run else None,
                            verdicts=[verdict_public(v) for v in verdicts])


@router.get("/api/verification/runs/{run_id}", response_model=RunPublic, responses=errors(404, 422))
def get_run(run_id: IdPath, session: SessionDep) -> RunPublic:
    run = session.get(VerificationRun, run_id)
    if run is None:
        raise HTTPException(404, detail=f"no verification run with id {run_id}")
    return run_public(run)


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


@router.post("/api/admin/verification", response_model=RunPublic, status_code=202,
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

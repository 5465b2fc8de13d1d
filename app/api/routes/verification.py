"""Verification verdicts per card (public) — runs are started by an admin (CLI or admin endpoint)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel
from sqlmodel import select

from app.api.deps import SessionDep
from app.api.errors import IdPath, errors
from app.models.card import Card
from app.models.verification import ClaimVerdict, VerificationRun
from app.verification.store import latest_verdicts

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
    check: str
    verdict: str
    judged: str
    text_zh: str
    text_en: str
    predicted: Any
    measured: Any
    condition: str
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
    return VerdictPublic(claim_id=v.claim_key, check=v.check, verdict=v.verdict, judged=v.judged,
                         text_zh=v.text_zh, text_en=v.text_en, predicted=v.predicted, measured=v.measured,
                         condition=v.condition, reason_zh=v.reason_zh, reason_en=v.reason_en)


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

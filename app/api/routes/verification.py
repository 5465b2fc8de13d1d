"""``/api/verification``: one verification run, to poll (an admin starts runs: ``POST /api/admin/verification``
or ``proofdeck verify``; a card's verdicts are ``GET /api/cards/{slug}/verification``)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from app.api.deps import SessionDep
from app.api.errors import IdPath, errors
from app.models.verification import VerificationRun
from app.schemas.verification import RunPublic
from app.verification.public import run_public

router = APIRouter(prefix="/api/verification", tags=["verification"])


@router.get("/runs/{run_id}", response_model=RunPublic, responses=errors(404, 422))
def get_run(run_id: IdPath, session: SessionDep) -> RunPublic:
    run = session.get(VerificationRun, run_id)
    if run is None:
        raise HTTPException(404, detail=f"no verification run with id {run_id}")
    return run_public(run)

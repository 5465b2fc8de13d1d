"""A stored run and its verdicts in the API's shapes (``app.schemas.verification``)."""

from __future__ import annotations

from app.models.verification import ClaimVerdict, VerificationRun
from app.schemas.verification import RunPublic, VerdictPublic


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

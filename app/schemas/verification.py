"""Public (API) shapes of verification: a run (which machine, backend and versions judged the claims) and
a card's latest verdicts, as ``GET /api/cards/{slug}/verification`` and the run routes answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


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

"""The shape of the JSON report ``python -m verify --json FILE`` writes (validated before storing)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["confirmed", "refuted", "conditional", "unverifiable", "mismatch", "stale", "error"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Environment(_Open):
    torch: str = ""
    backend: str = ""
    device: str = ""
    world_sizes: list[int] = Field(default_factory=list)


class ClaimResult(_Open):
    card: str
    claim_id: str
    verdict: Verdict
    text_zh: str = ""
    text_en: str = ""
    method: str = ""
    predicted: Any = None
    measured: Any = None
    condition: str | None = ""
    evaluated: list[dict[str, Any]] = Field(default_factory=list)
    counterexamples: list[dict[str, Any]] = Field(default_factory=list)
    reason_zh: str = ""
    reason_en: str = ""


StatementVerdict = Literal["confirmed", "refuted", "conditional", "contradiction", "consistent", "claimed",
                           "unchecked", "unverifiable"]


class StatementResult(_Open):
    """A statement no claim annotates, judged by verify's annotation-free judges (verify/README.md)."""

    card: str
    key: str
    section: str = ""
    lang: str
    text: str
    sentence: str = ""
    verdict: StatementVerdict
    judge: str = ""
    detail: str = ""
    found: str = ""
    other: str = ""
    method: str = ""


class VerifyReport(_Open):
    environment: Environment
    runs: list[dict[str, Any]] = Field(default_factory=list)
    claims: list[ClaimResult] = Field(default_factory=list)
    statements: list[StatementResult] = Field(default_factory=list)

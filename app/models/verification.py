"""Verification results as stored: one run (environment, versions, machine) and a verdict per claim."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from app.models.card import utcnow


class VerificationRun(SQLModel, table=True):
    """One ``python -m verify`` sweep: where and with what it ran, and its whole JSON report."""

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    finished_at: datetime | None = None
    status: str = Field(default="running", index=True)  # running | done | failed
    error: str = Field(default="", sa_column=Column(Text, nullable=False))
    host: str = ""
    backend: str = ""
    device: str = ""
    torch_version: str = ""
    proofdeck_version: str = ""
    world_sizes: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    environment: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    report: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class ClaimVerdict(SQLModel, table=True):
    """The verdict on one card claim in one run, with predicted and measured values side by side."""

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="verificationrun.id", index=True, ondelete="CASCADE")
    card_slug: str = Field(index=True)
    claim_key: str
    verdict: str  # confirmed | refuted | conditional | unverifiable | mismatch | stale | error
    method: str = ""  # how the numbers were obtained: measured | simulated | calculated | construction | none
    judge: str = "claim"  # who judged: claim (hand-written) | arithmetic | fact | formula | parity (revision 0008)
    text_zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    text_en: str = Field(default="", sa_column=Column(Text, nullable=False))
    predicted: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    measured: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    condition: str = Field(default="", sa_column=Column(Text, nullable=False))
    # the values the assertion took at each measured configuration and where it fails, as the judge found them
    # (revision 0008): pages, quiz, exports and the CLI render from these, never from the reason sentences
    evaluated: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    counterexamples: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    reason_zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    reason_en: str = Field(default="", sa_column=Column(Text, nullable=False))

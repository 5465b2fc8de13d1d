"""Verdicts and the evidence they are judged on; every claim is judged from what it asserts.

    python -m verify

``verify.judge.claim`` judges one claim from its ``asserts`` (no check function holds a claim's number);
this package keeps the verdict record, the sweep's evidence and the deck-wide ``judge``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verify.judge.verdict import VERDICTS, Evidence, MissingEvidence, Verdict
from verify.reading.claims import Claim


def judge(claims: list[Claim], ev: Evidence, on_claim: Callable[[Claim], None] | None = None) -> list[dict[str, Any]]:
    """One JSON-ready verdict per claim, judged from what the claim asserts (``verify.judge.claim``);
    ``on_claim`` is told each claim once judged (progress)."""
    out = []
    for c in claims:
        out.append(judge_one(c, ev))
        if on_claim is not None:
            on_claim(c)
    return out


def judge_one(c: Claim, ev: Any) -> dict[str, Any]:
    """One claim's JSON-ready verdict (``ev``: an ``Evidence``, or what stands in for one while judging ahead)."""
    from verify.judge.claim import judge_claim

    v = judge_claim(c, ev)
    return {"card": c.card, "claim_id": c.claim_id, "section": c.section, "check": c.asserts,
            "text_zh": c.text_zh, "text_en": c.text_en, "reading": c.reading, **v.to_dict()}


__all__ = ["VERDICTS", "Evidence", "MissingEvidence", "Verdict", "judge", "judge_one"]

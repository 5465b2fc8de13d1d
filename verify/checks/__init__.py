"""Registry of checks (id → function) and the claim evaluator.

    python -m verify

Claims are judged from what they assert (``verify.claim_judge``); cards not yet converted name a legacy
check, registered by importing ``starter``.
"""

from __future__ import annotations

from typing import Any

from verify.checks import starter  # noqa: F401  (registers the starter cards' legacy checks)
from verify.checks.registry import CHECKS, VERDICTS, Evidence, Verdict, run_check
from verify.claims import Claim


def judge(claims: list[Claim], ev: Evidence) -> list[dict[str, Any]]:
    """One JSON-ready verdict per claim, judged from what the claim asserts (``verify.claim_judge``)."""
    from verify.claim_judge import judge_claim

    out = []
    for c in claims:
        v = judge_claim(c, ev)
        out.append({"card": c.card, "claim_id": c.claim_id, "section": c.section, "check": c.check or c.asserts,
                    "text_zh": c.text_zh, "text_en": c.text_en, "reading": c.reading, **v.to_dict()})
    return out


__all__ = ["CHECKS", "VERDICTS", "Evidence", "Verdict", "judge", "run_check"]

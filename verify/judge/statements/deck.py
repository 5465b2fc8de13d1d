"""The statements of every card of a run, judged: the report's ``statements`` and its parity contradictions.

    python -m verify   # after the claims: every card's statements, with the claims' verdicts of this run

A formula the formula judge recognises is then judged like a hand-written claim (``verify.judge.judge`` on
``quantity(args) == formula``): against the ledger and every measured configuration of this run.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from verify.judge.prepared import Prepared
from verify.judge.statements.card import judge_text
from verify.reading.cardfile import read_text, split
from verify.reading.claims import Claim


def _measured(row: dict[str, Any], evidence: Any, prepared: Prepared) -> dict[str, Any]:
    from verify.judge.pipeline import judge

    asserts = f"{row['other']} == {row['found']}"
    got = judge(Claim(row["card"], "statement", "", "", row["section"], asserts), evidence, prepared)
    if got["verdict"] in ("confirmed", "refuted", "conditional"):
        row = {**row, "verdict": got["verdict"], "method": got["method"], "asserts": asserts,
               "detail": f"{row['detail']}; judged as {asserts}: {got['reason_en']}"[:600]}
    return row


def judge_deck(cards: str | Path, claim_rows: list[dict[str, Any]], evidence: Any,
               prepared: Prepared | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(statements, contradictions) of every card in ``cards`` (``claim_rows``: this run's claim verdicts)."""
    verdicts: dict[str, dict[str, str]] = defaultdict(dict)
    for c in claim_rows:
        verdicts[c["card"]][c["claim_id"]] = c["verdict"]
    prepared = prepared or Prepared()
    statements: list[dict[str, Any]] = []
    contradictions: list[dict[str, Any]] = []
    for path in sorted(Path(cards).glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        text = read_text(path)
        slug = str(split(text, str(path)).meta.get("slug") or "")
        found = judge_text(text, str(path), tuple(sorted(verdicts.get(slug, {}).items())))
        for v in found.verdicts:
            row = {**v.to_dict(), "method": v.judge}
            if v.judge == "formula" and v.verdict == "confirmed" and v.other and v.found:
                row = _measured(row, evidence, prepared)
            statements.append(row)
        contradictions += found.contradictions
    return statements, contradictions

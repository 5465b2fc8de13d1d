"""zh/en contradictions: a card section's zh-only and en-only claims about one quantity, with different verdicts.

    python -m verify   # the report's ``contradictions`` (the seed card's zh "14Ψ" against its en "16Ψ")
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from verify.reading.asserts import AssertError, Parsed, parse


def subjects(parsed: Parsed) -> set[str]:
    """What an assertion is about: each relation's left side if it is one quantity, else its first quantity
    (``comm_volume(zero3) / comm_volume(ddp) == 3/2`` is about ZeRO-3's volume, not DDP's)."""
    out = set()
    for rel in parsed.relations:
        if rel.lhs in parsed.atoms:
            out.add(parsed.atoms[rel.lhs].label())
            continue
        first = next((a for sym, a in parsed.atoms.items() if sym in sp.sympify(rel.lhs).free_symbols), None)
        if first is not None:
            out.add(first.label())
    return out


def contradictions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """zh-only and en-only claims of one card section about a common quantity whose verdicts differ.

    One row per pair, both verdicts side by side (the seed card's zh "14Ψ" against its en "16Ψ")."""
    atoms: dict[int, set[str]] = {}
    for i, r in enumerate(rows):
        if r.get("asserts") and bool(r.get("text_zh")) != bool(r.get("text_en")):
            try:
                atoms[i] = subjects(parse(r["asserts"]))
            except AssertError:
                continue
    out = []
    for i, zh in ((i, rows[i]) for i in atoms if rows[i].get("text_zh")):
        for j, en in ((j, rows[j]) for j in atoms if rows[j].get("text_en")):
            common = atoms[i] & atoms[j]
            if (zh["card"], zh["section"]) == (en["card"], en["section"]) and common \
                    and zh["verdict"] != en["verdict"]:
                out.append({"card": zh["card"], "section": zh["section"], "quantity": ", ".join(sorted(common)),
                            "zh": {k: zh[k] for k in ("claim_id", "text_zh", "asserts", "verdict")},
                            "en": {k: en[k] for k in ("claim_id", "text_en", "asserts", "verdict")}})
    return out

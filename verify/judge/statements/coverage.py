"""Coverage: of every statement a card makes (bare numbers included), how many some judge judged.

    proofdeck claims coverage [SLUG]     # "judged / found" per card, and what is left unchecked, with why

A statement is judged when a hand-written claim quotes it, or an annotation-free judge (arithmetic, fact,
formula, parity) gave it a verdict; ``unchecked`` ones are listed with the reason no judge applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from verify.judge.statements.card import JUDGED, judge_text
from verify.reading.cardfile import read_text


@dataclass
class Coverage:
    card: str
    found: list[str] = field(default_factory=list)  # "lang: statement"
    judged: list[str] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)  # unchecked statement -> the reason

    @property
    def unchecked(self) -> list[str]:
        return [s for s in self.found if s not in self.judged]

    @property
    def ratio(self) -> float:
        return len(self.judged) / len(self.found) if self.found else 1.0


def text_coverage(text: str, source: str = "<card>") -> Coverage:
    result = judge_text(text, source)
    cov = Coverage(result.card)
    for v in result.verdicts:
        label = f"{v.lang}: {v.text}"
        cov.found.append(label)
        if v.verdict in JUDGED:
            cov.judged.append(label)
        else:
            cov.why[label] = v.detail
    return cov


def card_coverage(path: str | Path) -> Coverage:
    return text_coverage(read_text(path), str(path))


def deck_coverage(folder: str | Path, slug: str | None = None) -> list[Coverage]:
    out = []
    for path in sorted(Path(folder).glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        cov = card_coverage(path)
        if slug is None or cov.card == slug:
            out.append(cov)
    return out


@lru_cache(maxsize=256)
def page_summary(text: str) -> dict[str, Any]:
    """For the card page: ``{"found": Y, "checked": X, "unchecked": ["en: 16Ψ", ...]}`` (no torch: tested)."""
    cov = text_coverage(text)
    return {"found": len(cov.found), "checked": len(cov.judged), "unchecked": list(cov.unchecked)}

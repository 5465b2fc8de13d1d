"""Which of a card's quantitative statements its claims check: "checked / found" and the unchecked ones.

    proofdeck claims coverage [SLUG]

A statement is a formula (TeX) or a number with a unit or a multiplier ("4×", "50%", "256GB", "16Ψ",
"16-byte") in the card's sections and follow-up answers (``verify.reading.textnums``; bare numbers such as the
"4" of "p = 4" are not counted). It is checked when a claim that ``asserts`` something (or says why it is
``unverifiable``) quotes it. Statements are counted once per card and language (the same "$2\\Psi$" in
three places is one statement).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from verify.reading.cardfile import CardText, read_text, split
from verify.reading.claims import parse_claims
from verify.reading.textnums import is_notation, statements

COUNTED = ("formula", "multiplier", "percent", "size", "psi", "bytes")


@dataclass
class Coverage:
    card: str
    found: list[str] = field(default_factory=list)  # "lang: statement"
    checked: list[str] = field(default_factory=list)

    @property
    def unchecked(self) -> list[str]:
        return [s for s in self.found if s not in self.checked]

    @property
    def ratio(self) -> float:
        return len(self.checked) / len(self.found) if self.found else 1.0


def texts(card: CardText) -> dict[str, str]:
    """The card's prose per language: each ``## zh`` / ``## en`` block of the body, and the follow-ups."""
    out: dict[str, list[str]] = {"zh": [], "en": []}
    lang = None
    for line in card.body.splitlines():
        head = re.fullmatch(r"##\s+(zh|en)\s*", line)
        if head:
            lang = head.group(1)
        elif line.startswith("# "):
            lang = None
        elif lang:
            out[lang].append(line)
    for fu in card.meta.get("follow_ups") or []:
        for lg in ("zh", "en"):
            out[lg].append(str((fu.get("answer") or {}).get(lg) or ""))
    return {lg: "\n".join(lines) for lg, lines in out.items()}


def _key(st_text: str) -> str:
    return re.sub(r"\s+", "", st_text)


def card_coverage(path: str | Path) -> Coverage:
    return text_coverage(read_text(path), str(path))


def text_coverage(text: str, source: str = "<card>") -> Coverage:
    """Coverage of one card file's text (front matter with claims, then the body)."""
    card = split(text, source)
    claims = [c for c in parse_claims(text, source) if c.asserts or c.unverifiable]
    cov = Coverage(str(card.meta.get("slug")))
    for lang, prose in texts(card).items():
        quoted = [getattr(c, f"text_{lang}") for c in claims]
        in_claims = {_key(st.text) for q in quoted for st in statements(q)}
        seen: set[str] = set()
        for st in statements(prose):
            key = _key(st.text)
            if st.kind not in COUNTED or is_notation(st) or key in seen:
                continue
            seen.add(key)
            label = f"{lang}: {st.text}"
            cov.found.append(label)
            if key in in_claims:
                cov.checked.append(label)
    return cov


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
    """For the web server's card page: ``{"found": Y, "checked": X, "unchecked": ["en: 16Ψ", ...]}``.

    Pure Python + sympy (never torch: tested); cached by the card file's text, so a page pays the LaTeX
    parsing once per edit of the card. ``found`` 0 means the card states nothing quantitative."""
    cov = text_coverage(text)
    return {"found": len(cov.found), "checked": len(cov.checked), "unchecked": list(cov.unchecked)}

"""The bilingual glossary (``glossary.yaml``): each group of terms is one concept token, ``~<group>``.

A term found in a card or in a query adds its group's token, in both directions: 显存 in a query finds
"GPU memory" in a card and the other way round. Terms match after :func:`app.search.text.normalise`;
see the YAML header for the spelling rules. :func:`term_pattern` is also what the handbook's script
compiles (the patterns are shipped as strings), so both sides find the same terms.
"""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from app.search.text import HERE, normalise

CONCEPT = "~"
_ASCII_ALNUM = re.compile(r"[a-z0-9]")


def term_pattern(term: str) -> str:
    """A regular expression (valid in Python and JavaScript) for one normalised glossary term."""
    words = [w for w in re.split(r"[\s\-_]+", normalise(term)) if w]
    body = r"[\s\-_]*".join(re.escape(w) for w in words)
    if body and words[-1][-1].isalpha() and words[-1][-1].isascii():
        body += "s?"
    head = r"(?<![a-z0-9])" if _ASCII_ALNUM.match(words[0][0]) else ""
    tail = r"(?![a-z0-9])" if _ASCII_ALNUM.match(words[-1][-1]) else ""
    return head + body + tail


@lru_cache(maxsize=1)
def groups() -> dict[str, list[str]]:
    data = yaml.safe_load((HERE / "glossary.yaml").read_text(encoding="utf-8"))
    return {str(name): [str(t) for t in terms] for name, terms in data["groups"].items()}


@lru_cache(maxsize=1)
def group_patterns() -> dict[str, str]:
    """Group name → one alternation of its terms, longest first (a longer term wins at a position)."""
    out = {}
    for name, terms in groups().items():
        ordered = sorted({normalise(t) for t in terms}, key=lambda t: (-len(t), t))
        out[name] = "|".join(f"(?:{term_pattern(t)})" for t in ordered)
    return out


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(p)) for name, p in group_patterns().items())


def concept_tokens(norm: str) -> list[str]:
    """``~group`` once per match of any of its terms in normalised text."""
    out: list[str] = []
    for name, pattern in _compiled():
        out += [CONCEPT + name] * sum(1 for _ in pattern.finditer(norm))
    return out


def concept_spans(norm: str, names: set[str]) -> list[tuple[int, int]]:
    """Where the terms of the concepts ``names`` (without ``~``) occur in normalised text."""
    return [m.span() for name, pattern in _compiled() if name in names for m in pattern.finditer(norm)]

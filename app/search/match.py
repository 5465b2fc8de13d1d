"""Rank the cards for a pasted question: the API (``GET /api/match``), the pages and the CLI call this.

score(card) = BM25(card document) + UNIT_WEIGHT x max BM25(the card's parts) (:mod:`app.search.index`).
The follow-up shown is the card's best-matching follow-up when it matches better than the card's head
(title + summary); the snippet is cut from the best-matching part, in the question's language when
that text matches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy.engine import Engine

from app.search.index import LANG_FIELDS, CardRow, SearchIndex, Unit, indexes
from app.search.snippet import Snippet, flatten, make_snippet, match_spans
from app.search.text import CJK_RUN, tokens

MAX_QUERY_CHARS = 2000  # a pasted question with its context fits; a page of text does not
MAX_LIMIT = 50
UNIT_WEIGHT = 1.0


class MatchQueryError(ValueError):
    """A query or parameter we cannot use; the message says what and how to fix it."""


@dataclass(frozen=True)
class FollowUpHit:
    id: str
    question_zh: str
    question_en: str
    score: float


@dataclass(frozen=True)
class Hit:
    card: CardRow
    score: float
    follow_up: FollowUpHit | None
    snippet: Snippet
    snippet_lang: str
    snippet_from: str  # head | section:<key> | follow_up:<id>


@dataclass(frozen=True)
class MatchResult:
    query: str
    tokens: list[str]
    lang: str
    hits: list[Hit]


def check_query(q: str, limit: int, lang: str) -> None:
    if len(q) > MAX_QUERY_CHARS:
        raise MatchQueryError(f"q is {len(q)} characters long; the limit is {MAX_QUERY_CHARS}: "
                              "paste the question alone, not the page around it")
    if not 1 <= limit <= MAX_LIMIT:
        raise MatchQueryError(f"limit {limit} is out of range (use 1 to {MAX_LIMIT})")
    if lang not in LANG_FIELDS:
        raise MatchQueryError(f"lang '{lang}' is not one of zh, en, both")


def _snippet(unit: Unit, lang: str, q: str, query: list[str]) -> tuple[Snippet, str]:
    """From the unit's text in the question's language (Chinese if it has any Chinese character) when
    that text matches at all, else in the other language asked for if it matches, else the first."""
    first = "zh" if CJK_RUN.search(q) else "en"
    codes = sorted(LANG_FIELDS[lang], key=lambda code: code != first)
    fallback: tuple[str, str, list[tuple[int, int]]] | None = None
    for code in codes:
        flat = flatten(getattr(unit, code))
        spans = match_spans(flat, query)
        if spans:
            return make_snippet(flat, query, spans), code
        if fallback is None or (flat and not fallback[1]):
            fallback = (code, flat, spans)
    assert fallback is not None
    code, flat, spans = fallback
    return make_snippet(flat, query, spans), code


def rank(index: SearchIndex, q: str, *, limit: int = 5) -> MatchResult:
    """The ``limit`` best cards for ``q`` in ``index`` (nothing when ``q`` has no token we index)."""
    query = tokens(q)
    if not query or not index.cards:
        return MatchResult(q, query, index.lang, [])
    card_scores = index.card_bm25.scores(query)
    unit_scores = index.unit_bm25.scores(query)
    starts = index.starts
    best_unit_score = np.maximum.reduceat(unit_scores, starts)  # each card's best part
    total = card_scores + UNIT_WEIGHT * best_unit_score
    candidates = np.flatnonzero(total > 0)
    order = candidates[np.lexsort((candidates, -total[candidates]))][:limit]
    hits = []
    for c in (int(i) for i in order):
        lo = int(starts[c])
        hi = int(starts[c + 1]) if c + 1 < len(starts) else len(index.units)
        parts = range(lo, hi)
        best = max(parts, key=lambda u: (unit_scores[u], -u))
        head = next(u for u in parts if index.units[u].kind == "head")
        follow_up = None
        fus = [u for u in parts if index.units[u].kind == "follow_up" and unit_scores[u] > unit_scores[head]]
        if fus:
            u = max(fus, key=lambda i: (unit_scores[i], -i))
            unit = index.units[u]
            follow_up = FollowUpHit(unit.key, unit.question_zh, unit.question_en, round(float(unit_scores[u]), 4))
        shown = index.units[best if unit_scores[best] > 0 else head]
        snippet, code = _snippet(shown, index.lang, q, query)
        where = shown.kind if shown.kind == "head" else f"{shown.kind}:{shown.key}"
        hits.append(Hit(index.cards[c], round(float(total[c]), 4), follow_up, snippet, code, where))
    return MatchResult(q, query, index.lang, hits)


def match(engine: Engine, q: str, *, limit: int = 5, lang: str = "both") -> MatchResult:
    """Check the parameters (:class:`MatchQueryError`), then rank the live cards for ``q``."""
    check_query(q, limit, lang)
    return rank(indexes(engine).get(lang), q, limit=limit)

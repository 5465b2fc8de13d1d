"""A short snippet of card text with the query's matched terms marked: plain text, offsets, escaped HTML.

Matches are found on the normalised text (:func:`app.search.text.normalise`, one character at a time so
every normalised character maps back to the card character it came from) with the rules that made the
tokens: English words whose stem is a query token, Chinese bigrams of the query, glossary terms of the
query's concepts. The HTML is the snippet escaped by ``markupsafe`` with ``<mark>`` around each match:
card text never becomes markup. Offsets are ``[start, end)`` in code points of ``text``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup, escape

from app.search.glossary import CONCEPT, concept_spans
from app.search.text import CJK_RUN, JOINER, SLASH_LIST, SPACED_NUMBER, WORD, normalise, stem

WIDTH = 160  # characters of card text around the best matches
LEAD = 30  # characters shown before the first match of the window
ELLIPSIS = "…"
_SPACE = re.compile(r"\s+")
_PART = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Snippet:
    text: str
    offsets: list[tuple[int, int]]
    html: str


def _normalised_with_map(text: str) -> tuple[str, list[int] | range]:
    """Normalised text and, per normalised character, the index of the character it came from."""
    norm = normalise(text)
    if len(norm) == len(text):  # the usual case (full-width → half-width, case): one for one
        return norm, range(len(text))
    chars: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        n = normalise(ch)
        chars.append(n)
        where += [i] * len(n)
    return "".join(chars), where


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


@lru_cache(maxsize=65536)
def _word_parts(word: str) -> tuple[str | None, tuple[tuple[int, int, str], ...]]:
    """(the joined form's token if the word has joiners, (start, end, token) of each part)."""
    whole = stem(JOINER.sub("", word)) if JOINER.search(word) else None
    return whole, tuple((p.start(), p.end(), stem(p.group(0))) for p in _PART.finditer(word))


def match_spans(text: str, query_tokens: Iterable[str]) -> list[tuple[int, int]]:
    """Merged ``[start, end)`` spans of ``text`` (original indices) that match the query's tokens."""
    wanted = set(query_tokens)
    if not text or not wanted:
        return []
    norm, where = _normalised_with_map(text)
    spans: list[tuple[int, int]] = []
    for m in WORD.finditer(norm):
        whole, parts = _word_parts(m.group(0))
        if whole is not None and whole in wanted:
            spans.append(m.span())
            continue
        spans += [(m.start() + s, m.start() + e) for s, e, tok in parts if tok in wanted]
    for m in SPACED_NUMBER.finditer(norm):
        if m.group(1) + m.group(2) in wanted:
            spans.append(m.span())
    for m in SLASH_LIST.finditer(norm):
        if any(m.group(1) + n in wanted for n in m.group(3).split("/")[1:]):
            spans.append(m.span())
    for run in CJK_RUN.finditer(norm):
        seg = run.group(0)
        for i in range(len(seg)):
            if seg[i:i + 2] in wanted and i + 2 <= len(seg):
                spans.append((run.start() + i, run.start() + i + 2))
            elif seg[i] in wanted:
                spans.append((run.start() + i, run.start() + i + 1))
    spans += concept_spans(norm, {t[len(CONCEPT):] for t in wanted if t.startswith(CONCEPT)})
    return _merge((where[s], where[e - 1] + 1) for s, e in spans if e > s)


def _window(spans: list[tuple[int, int]], length: int) -> tuple[int, int]:
    """The WIDTH-character window holding the most matched characters (ties: the earliest), starting
    LEAD characters before one of the matches."""
    if not spans:
        return 0, min(length, WIDTH)
    ends = [e for _, e in spans]
    covered_before = [0]
    for s, e in spans:
        covered_before.append(covered_before[-1] + e - s)
    best, best_start = -1, 0
    for i, (s, _) in enumerate(spans):
        start = max(0, s - LEAD)
        end = start + WIDTH
        first = bisect.bisect_right(ends, start)  # spans ending after start ...
        last = bisect.bisect_left([s2 for s2, _ in spans], end, lo=i)  # ... and starting before end
        covered = covered_before[last] - covered_before[first]
        if covered > best:
            best, best_start = covered, start
    end = min(length, best_start + WIDTH)
    return max(0, min(best_start, end - WIDTH)), end


def flatten(text: str) -> str:
    """Whitespace collapsed: what a snippet is cut from."""
    return _SPACE.sub(" ", text).strip()


def make_snippet(text: str, query_tokens: Iterable[str], spans: list[tuple[int, int]] | None = None) -> Snippet:
    """The best window of ``text`` (whitespace collapsed) with its matches marked (``spans``: the
    matches in the flattened text, when the caller has them already)."""
    flat = flatten(text)
    if spans is None:
        spans = match_spans(flat, query_tokens)
    start, end = _window(spans, len(flat))
    head = ELLIPSIS if start > 0 else ""
    tail = ELLIPSIS if end < len(flat) else ""
    body = flat[start:end]
    shift = len(head) - start
    offsets = [(max(s, start) + shift, min(e, end) + shift) for s, e in spans if e > start and s < end]
    snippet = head + body + tail
    html, last = [], 0
    for s, e in offsets:
        html += [str(escape(snippet[last:s])), "<mark>", str(escape(snippet[s:e])), "</mark>"]
        last = e
    html.append(str(escape(snippet[last:])))
    return Snippet(snippet, offsets, str(Markup("".join(html))))

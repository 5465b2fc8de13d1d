"""Verdicts where the text is: mark each claim's quoted words in a card text, for every surface.

One module does the marking for the card page, the quiz, the handbook, the Anki note and the Obsidian
note. It never builds markup from card text itself: :func:`place` finds each quote in the *Markdown
source* and inserts private-use sentinel characters around it (outside math and code spans, so TeX is
never cut), the surface renders that source with its own safe renderer (``render_markdown``, Anki's
MathJax renderer, or none for Obsidian), and :func:`finish_html` / :func:`finish_markdown` replace the
sentinels in the *rendered, escaped* output with the mark. The mark's words (a correction, a condition)
are escaped here; a sentinel that card text itself contains is removed before placing.

    html = finish_html(render_markdown(place(text, marks)), marks)

Refuted → the quote is highlighted and followed by "✗ <correction>"; conditional → "≈ <condition with
values>"; mismatch → "≠ …"; confirmed → a quiet "✓". The note is visible text (no hover), and a link to
the claim's row (``#claim-<id>``) that the keyboard reaches.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from verify.report.method_words import SIGNS as METHOD_SIGNS

_START, _END, _ALSO = "\ue000", "\ue001", "\ue002"
_BASE = 0xE100  # sentinel + chr(_BASE + i) names mark i (at most 256 marks per text)
_PRIVATE = re.compile("[\ue000-\ue1ff]")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>")
_BLOCK = {"p", "li", "ul", "ol", "div", "table", "thead", "tbody", "tr", "td", "th", "h1", "h2", "h3", "h4",
          "h5", "h6", "blockquote", "pre", "details", "summary", "math", "a"}
# math ($$..$$, $..$) and code (`..`) spans: a sentinel never goes inside one
_ATOMIC = re.compile(r"\$\$.+?\$\$|(?<!\\)\$[^$\n]+?\$|(`+).+?\1", re.DOTALL)

# the marks' CSS, one file for every surface (linked by the pages, inlined by the handbook and Anki)
MARKS_CSS = (Path(__file__).resolve().parents[1] / "static" / "marks.css").read_text(encoding="utf-8")

SIGNS = {"refuted": "✗", "conditional": "≈", "confirmed": "✓", "mismatch": "≠", "contradiction": "⇄"}
BASIS_SIGNS = METHOD_SIGNS  # a confirmed definition or worked arithmetic: ≝ / =, not ✓
MARKED = tuple(SIGNS)
# which verdict decides a phrase that several claims quote (a refutation outweighs a confirmation)
DECISIVE = {"refuted": 0, "mismatch": 1, "contradiction": 2, "conditional": 3, "confirmed": 4}


@dataclass(frozen=True)
class Mark:
    """One claim's verdict on one quote in one language; ``note`` is plain text (escaped on output)."""

    claim_id: str
    kind: str  # refuted | conditional | confirmed | mismatch
    quote: str
    note: str = ""
    href: str = ""  # where the claim's row is ("#claim-<id>", or "" for surfaces without one)
    basis: str = ""  # the verdict's method word (measured, simulated, definition, arithmetic …)
    method: str = ""  # shown after the note: the method with the configurations it ran at

    @property
    def sign(self) -> str:
        if self.kind == "confirmed" and self.basis in BASIS_SIGNS:
            return BASIS_SIGNS[self.basis]  # a definition or worked arithmetic is no ✓ proof
        return SIGNS.get(self.kind, "")

    def _replace_href(self, href: str) -> Mark:
        return replace(self, href=href)


@lru_cache(maxsize=4096)
def _squashed(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` without whitespace, and the index in ``text`` of each kept character (cached: an export looks
    up every claim's quote in the same few texts)."""
    keep = tuple(i for i, ch in enumerate(text) if not ch.isspace())
    return "".join(text[i] for i in keep), keep


def locate(text: str, quote: str) -> tuple[int, int] | None:
    """(start, end) of ``quote`` in ``text`` ignoring whitespace, "..." / "…" matching any words."""
    pieces = [re.sub(r"\s+", "", p) for p in re.split(r"\.\.\.|…", quote)]
    pieces = [p for p in pieces if p]
    if not pieces:
        return None
    flat, where = _squashed(text)
    pos, first, last = 0, -1, -1
    for piece in pieces:
        found = flat.find(piece, pos)
        if found < 0:
            return None
        if first < 0:
            first = found
        pos = last = found + len(piece)
    return where[first], where[last - 1] + 1


def _outside(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen (start, end) so neither edge falls inside a math or code span."""
    for m in _ATOMIC.finditer(text):
        if m.start() < start < m.end():
            start = m.start()
        if m.start() < end < m.end():
            end = m.end()
    return start, end


def _phrases(text: str, marks: Sequence[Mark], only: Collection[int] | None) -> dict[int, tuple[int, int, list[int]]]:
    """One mark per phrase: mark index → (start, end, indices of the marks it outweighs). Claims whose quotes
    end at the same words (one sentence quoted whole by one claim and its last words by another) would put
    two notes after one phrase; the decisive verdict (``DECISIVE``, then the longer quote) is shown, the
    others follow it as links. Quotes that only overlap keep their own notes, each at its own end."""
    spans: dict[int, tuple[int, int]] = {}
    for i, mark in enumerate(marks[:256]):
        if only is not None and i not in only:
            continue
        span = locate(text, mark.quote) if mark.quote and mark.sign else None
        if span is not None:
            spans[i] = _outside(text, *span)
    by_end: dict[int, list[int]] = {}
    for i, (_start, end) in spans.items():
        by_end.setdefault(end, []).append(i)
    out = {}
    for group in by_end.values():
        best = min(group, key=lambda k: (DECISIVE.get(marks[k].kind, 9), spans[k][0] - spans[k][1], k))
        out[best] = (*spans[best], [k for k in group if k != best])
    return out


def place(text: str, marks: Sequence[Mark], only: Collection[int] | None = None) -> str:
    """``text`` (Markdown) with a start and an end sentinel around each quote it contains (of the marks at
    the positions ``only``, default all), one mark per phrase (the outweighed marks' sentinels follow the end
    of the decisive one); finish with the same ``marks`` list."""
    text = _PRIVATE.sub("", text)
    inserts: list[tuple[int, float, str]] = []  # (position, order, sentinel): ends, then the also-links, then starts
    for i, (start, end, others) in _phrases(text, marks, only).items():
        tag = chr(_BASE + i)
        inserts += [(start, 1, _START + tag), (end, 0, _END + tag)]
        inserts += [(end, 0.5 + n / 1000, _ALSO + chr(_BASE + k)) for n, k in enumerate(others)]
    for pos, _, sentinel in sorted(inserts, key=lambda t: (t[0], t[1]), reverse=True):
        text = text[:pos] + sentinel + text[pos:]
    return text


def _balanced(fragment: str) -> bool:
    """True when ``fragment`` (rendered HTML) opens and closes only inline tags, each in order."""
    stack: list[str] = []
    for closing, name, selfclosing in _TAG.findall(fragment):
        name = name.lower()
        if name in _BLOCK:
            return False
        if selfclosing or name in ("br", "img", "wbr"):
            continue
        if closing:
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


def _attr(value: str) -> str:
    """An id-like attribute value: claim ids are kebab-case (``verify.reading.claims``); anything else is dropped."""
    return re.sub(r"[^A-Za-z0-9_#-]", "", value)


KIND_WORDS = {"refuted": "refuted", "conditional": "conditional", "confirmed": "confirmed", "mismatch": "mismatch"}


def note_html(mark: Mark) -> str:
    """The visible verdict after a quote: a link to the claim's row (keyboard-reachable), escaped; a screen
    reader hears the verdict's name before the note (the sign is hidden from it)."""
    quiet = mark.kind == "confirmed" or not mark.note
    kind_word = mark.basis if mark.sign in BASIS_SIGNS.values() else KIND_WORDS.get(mark.kind, "")
    label = (f'<span class="mark-sign" aria-hidden="true">{mark.sign}</span>'
             f'<span class="mark-kind">{kind_word}</span>')
    words = "" if quiet else f' <span class="mark-note">{_html.escape(mark.note)}</span>'
    if mark.method:  # how the numbers were obtained, where they ran (a confirmed mark too)
        words += f' <span class="mark-method">{_html.escape(mark.method)}</span>'
    attrs = f'class="claim-note claim-note-{mark.kind}" data-claim="{_attr(mark.claim_id)}"'
    if mark.href:
        return f'<a {attrs} href="{_attr(mark.href)}">{label}{words}</a>'
    return f'<span {attrs}>{label}{words}</span>'


def also_html(mark: Mark) -> str:
    """A claim outweighed on its phrase: its sign, a link to its row where the page has one."""
    label = (f'<span class="mark-sign" aria-hidden="true">{mark.sign}</span>'
             f'<span class="mark-kind">also {KIND_WORDS.get(mark.kind, "")}</span>')
    attrs = f'class="claim-also claim-also-{mark.kind}" data-claim="{_attr(mark.claim_id)}"'
    if mark.href:
        return f' <a {attrs} href="{_attr(mark.href)}">{label}</a>'
    return f' <span {attrs}>{label}</span>'


def _in_tag(html: str, pos: int) -> bool:
    """True when ``pos`` lies inside a tag (an attribute value such as a code fence's language)."""
    return html.rfind("<", 0, pos) > html.rfind(">", 0, pos)


def _text_only(rendered: str) -> str:
    """Drop every sentinel that the renderer put inside a tag: a mark is only ever text content."""
    out, last = [], 0
    for m in _PRIVATE.finditer(rendered):
        if _in_tag(rendered, m.start()):
            out.append(rendered[last:m.start()])
            last = m.end()
    return "".join(out) + rendered[last:]


def finish_html(rendered: str, marks: Sequence[Mark]) -> str:
    """Replace the sentinels in ``rendered`` (safe HTML of :func:`place`'s output) by the marks."""
    rendered = _text_only(rendered)
    for i, mark in enumerate(marks[:256]):
        tag = chr(_BASE + i)
        start, end = _START + tag, _END + tag
        a, b = rendered.find(start), rendered.find(end)
        if a < 0 or b < 0:
            rendered = rendered.replace(start, "").replace(end, "")
            continue
        wrap = a < b and _balanced(rendered[a + 2:b])
        cls = f'class="claim-mark claim-mark-{mark.kind}" data-claim="{_attr(mark.claim_id)}"'
        rendered = rendered.replace(start, f"<mark {cls}>" if wrap else "", 1)
        rendered = rendered.replace(end, ("</mark>" if wrap else "") + note_html(mark), 1)
    for i, mark in enumerate(marks[:256]):
        rendered = rendered.replace(_ALSO + chr(_BASE + i), also_html(mark), 1)
    return _PRIVATE.sub("", rendered)


# what the Spaced Repetition plugin or Obsidian would read as syntax in a mark's words: the inline-card and
# cloze separators, comments, links (any bracket), tags, emphasis, code, math, HTML; escaped where they occur,
# nothing else
_MD_SYNTAX = re.compile(r"::|==|%%|#(?=\S)|[*_`<>|$\\^\[\]]")


def escape_note(note: str) -> str:
    """A mark's words as plain Markdown: only the characters that would be syntax get a backslash
    (``N = 2: 10`` stays as it is; ``a::b`` becomes ``a:\\:b``)."""
    return _MD_SYNTAX.sub(lambda m: m.group(0)[0] + "\\" + m.group(0)[1:] if len(m.group(0)) == 2
                          else "\\" + m.group(0), note)


def note_markdown(mark: Mark) -> str:
    """The verdict as plain Markdown (Obsidian): `` **✗** *16Ψ, not 14Ψ*``, `` **✓** *measured* (at N=2, N=4)``
    (the method word, then where it ran): only the plugin's syntax escaped."""
    word, _sp, where = mark.method.partition(" ")
    note = word if mark.kind == "confirmed" and word else mark.note
    note, where = escape_note(note), escape_note(where)
    return f" **{mark.sign}**" + (f" *{note}*" if note else "") + (f" ({where})" if where else "")


def finish_markdown(text: str, marks: Sequence[Mark]) -> str:
    """Replace the sentinels in :func:`place`'s output by plain Markdown marks (no highlight syntax)."""
    for i, mark in enumerate(marks[:256]):
        tag = chr(_BASE + i)
        text = text.replace(_START + tag, "")
        text = text.replace(_END + tag, note_markdown(mark), 1).replace(_END + tag, "")
    return _PRIVATE.sub("", text)

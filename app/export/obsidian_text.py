"""Card Markdown → Obsidian Markdown that shows the same text and does nothing else.

Card text is split into code, math and plain text. Plain text is neutralised: raw HTML (``<``),
Obsidian comments (``%%``), wikilinks/embeds (``[[``), inline tags (``#tag``), links with a
non-web scheme (``javascript:``), block ids (`` ^word``) and everything the Spaced Repetition plugin
would turn into a card (``::``, ``==highlight==``, a ``?`` / ``??`` line) are escaped with Markdown
backslashes or entities, so they render as the same characters; a stray backtick becomes ``&#96;``
(the plugin counts ``\\``` as a code delimiter). Math is kept as ``$...$`` / ``$$...$$`` on one line
(no space before the closing ``$``, ``<``/``>`` as ``\\lt``/``\\gt``); a formula MathJax would turn
into a link or attributes (``\\href``, :mod:`app.export.tex`) is shown as code instead. Code is kept
verbatim: fences at column 0 as backtick fences (the plugin skips only those), and a code span the
plugin would misread (it decides "inside code" by counting the backticks on the line, and finds
clozes inside code) cut between the two characters of each ``::`` / ``==`` into adjacent spans joined
by a zero-width space (:func:`sr_unsafe` is the plugin's own test, line by line).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from app.export.tex import unsafe_tex

Kind = Literal["text", "code", "fence", "math", "display"]


@dataclass(frozen=True)
class Segment:
    kind: Kind
    text: str  # for math: the TeX between the delimiters


_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")  # any indentation: a fence in a list item too
_SAFE_SCHEMES = ("http:", "https:", "mailto:")
# A link destination (inline or in a reference definition) and what a renderer reads in it once
# entities, backslash escapes and %-escapes are decoded and whitespace/controls dropped.
_LINK_DEST = re.compile(r"\]\(\s*([^\s)]*)")
_REF_DEF = re.compile(r"^(\s*\[[^\]]*\]):(\s*([^\s]*))", re.M)
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_DROPPED = re.compile(r"[\x00-\x20\x7f<]+")
_INLINE_TAG = re.compile(r"(?<![\w&\\])#(?=[^\s#])")
_DOUBLED = re.compile(r"([%:=])(?=\1)")  # '%%' comment, '::' card, '==' cloze: split with a backslash
_SPECIAL = re.compile(r"[\\`$]")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_BLOCK_ID = re.compile(r"(?<!\S)\^(?=[A-Za-z0-9-])")  # ' ^word' ending a line is a block id: Obsidian hides it
_SR_LINE = re.compile(r"^(\s*)(\?{1,2})(\s*)$", re.M)


def segments(text: str) -> list[Segment]:
    """Split Markdown into code fences, code spans, display/inline math and plain text. A fence comes out
    at column 0 with its body dedented as CommonMark reads it (the Spaced Repetition plugin skips only
    fences at column 0; one in a list item would have its lines read as cards)."""
    out: list[Segment] = []
    lines = text.split("\n")
    buf: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            if buf:
                out += _inline_segments("\n".join(buf) + "\n")
                buf = []
            indent, fence = len(m.group(1).expandtabs(4)), m.group(2)
            closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            j = i + 1
            while j < len(lines) and not closing.match(lines[j]):
                j += 1
            body = [_dedent(line, indent) for line in lines[i + 1 : j]]
            ticks = "`" * max(3, _longest_run("\n".join(body), "`") + 1)
            out.append(Segment("fence", "\n".join([ticks + m.group(3).strip(), *body, ticks]) + "\n"))
            i = j + 1
            continue
        buf.append(lines[i])
        i += 1
    if buf:
        out += _inline_segments("\n".join(buf))
    if out and not text.endswith("\n") and out[-1].text.endswith("\n"):
        out[-1] = Segment(out[-1].kind, out[-1].text[:-1])
    return out


def _dedent(line: str, width: int) -> str:
    """``line`` less up to ``width`` columns of leading whitespace (a fenced body under an indented fence)."""
    if not width:
        return line
    expanded = line.expandtabs(4)
    lead = len(expanded) - len(expanded.lstrip(" "))
    return expanded[min(lead, width):]


def _longest_run(text: str, ch: str) -> int:
    runs = re.findall(rf"{re.escape(ch)}+", text)
    return max((len(r) for r in runs), default=0)


def _inline_segments(text: str) -> list[Segment]:
    out: list[Segment] = []
    plain: list[str] = []
    i, n = 0, len(text)

    def flush() -> None:
        if plain:
            out.append(Segment("text", "".join(plain)))
            plain.clear()

    while i < n:
        special = _SPECIAL.search(text, i)
        if special is None:
            plain.append(text[i:])
            break
        if special.start() > i:
            plain.append(text[i : special.start()])
            i = special.start()
        c = text[i]
        if c == "\\" and i + 1 < n:
            plain.append(text[i : i + 2])
            i += 2
            continue
        if c == "`":
            run = len(text[i:]) - len(text[i:].lstrip("`"))
            close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(text, i + run)
            if close and not _BLANK_LINE.search(text, i, close.start()):  # a code span ends with its paragraph
                flush()
                out.append(Segment("code", text[i : close.end()]))
                i = close.end()
                continue
            plain.append("`" * run)
            i += run
            continue
        if c == "$":
            if text.startswith("$$", i):
                end = text.find("$$", i + 2)
                if end > i + 2 and text[i + 2 : end].strip():
                    flush()
                    out.append(Segment("display", text[i + 2 : end]))
                    i = end + 2
                    continue
            else:
                close_at = _closing_dollar(text, i + 1)
                if close_at is not None:
                    flush()
                    out.append(Segment("math", text[i + 1 : close_at]))
                    i = close_at + 1
                    continue
        plain.append(c)
        i += 1
    flush()
    return out


def _closing_dollar(text: str, start: int) -> int | None:
    """Where inline math opened at ``start - 1`` closes, by the renderer's (Pandoc's) rules: no
    space just inside either dollar, so "costs $5 and $6" stays text; no blank line inside."""
    if start >= len(text) or text[start].isspace():
        return None
    j = start
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text.startswith("\n\n", j):
            return None
        if text[j] == "$":
            if text.startswith("$$", j):
                return None
            if not text[j - 1].isspace():
                return j
        j += 1
    return None


def unsafe_destination(dest: str) -> bool:
    """Whether a link destination names a scheme other than http(s)/mailto once decoded the ways a
    Markdown renderer and a browser would (``&#106;avascript:``, ``java%09script:``, ``javascript\\:``)."""
    decoded = dest
    for _ in range(3):  # nested encodings (``&amp;#106;``) decode again
        decoded = unquote(html.unescape(_MD_ESCAPE.sub(r"\1", decoded)))
    m = _SCHEME.match(_DROPPED.sub("", decoded).lower())
    return m is not None and f"{m.group(1)}:" not in _SAFE_SCHEMES


def neutralise_text(text: str) -> str:
    """Plain Markdown text that renders the same characters and creates no markup Obsidian acts on."""
    text = text.replace("<", "&lt;")
    text = _DOUBLED.sub(r"\1\\", text)
    text = text.replace("[[", "[\\[")
    text = _INLINE_TAG.sub(r"\\#", text)
    text = _LINK_DEST.sub(lambda m: m.group(0).replace("](", "]\\(", 1) if unsafe_destination(m.group(1))
                          else m.group(0), text)
    text = _REF_DEF.sub(lambda m: f"{m.group(1)}\\:{m.group(2)}" if unsafe_destination(m.group(3))
                        else m.group(0), text)
    return _BLOCK_ID.sub(r"\\^", text) if "^" in text else text


def clean_tex(tex: str) -> str:
    r"""TeX on one line, trimmed, without ``<``/``>``, plugin triggers (``::``, ``==``) or link
    syntax (``[[``, ``]]``); a bare ``%`` (a TeX comment) or ``#`` becomes ``\%`` / ``\#``."""
    tex = re.sub(r"\s*\n\s*", " ", tex).strip()
    tex = tex.replace("<", r"\lt{}").replace(">", r"\gt{}")
    tex = re.sub(r"(?<!\\)([%#])", r"\\\1", tex)
    for pair in ("::", "==", "[[", "]]"):
        while pair in tex:
            tex = tex.replace(pair, pair[0] + "{}" + pair[1])
    return tex


def to_obsidian(markdown: str) -> str:
    """Card Markdown as safe Obsidian Markdown (see the module docstring)."""
    segs = segments(markdown)
    text = _render(segs, split=False)
    if sr_unsafe(text):  # a code span the plugin takes for text (backtick parity) or for a cloze
        text = _render(segs, split=True)
    return text


def _render(segs: list[Segment], *, split: bool) -> str:
    parts: list[str] = []
    for seg in segs:
        if seg.kind == "text":
            parts.append(neutralise_text(_STRAY.sub(_escape_stray, seg.text)))
        elif seg.kind == "fence":
            parts.append(seg.text)
        elif seg.kind == "code":
            span = _split_span(seg.text) if split else seg.text
            if span.startswith("```") and (not parts or parts[-1].endswith("\n")):
                span = ZWSP + span  # a line starting with ``` opens a code block for the plugin
            parts.append(span)
        elif unsafe_tex(seg.text):  # MathJax would make a link or attributes of it: show the source
            parts.append(_code_span("$" * (1 + (seg.kind == "display")), seg.text))
        elif seg.kind == "math":
            parts.append(f"${clean_tex(seg.text)}$")
        else:
            parts.append(f"$${clean_tex(seg.text)}$$")
    return _escape_separators("".join(parts))


def _escape_separators(text: str) -> str:
    """A line that is only ``?`` or ``??`` (the plugin's multi-line separators) as ``\\?``, outside fences
    (only text can make such a line: code and math keep their delimiters on it)."""
    if "?" not in text or not _SR_LINE.search(text):
        return text
    lines, fence = text.split("\n"), ""
    for i, line in enumerate(lines):
        if fence:
            fence = "" if line.rstrip() == fence else fence
        elif line.startswith("```"):
            fence = line[: len(line) - len(line.lstrip("`"))]
        else:
            lines[i] = _SR_LINE.sub(r"\1\\\2\3", line)
    return "\n".join(lines)


_STRAY = re.compile(r"\\.|[`$]", re.S)
_TRIGGER_PAIR = re.compile(r"(?<=:)(?=:)|(?<==)(?==)")
_CLOZE = re.compile(r"==.+?==")  # the plugin's default cloze pattern, ==answer==, anywhere on a line
ZWSP = "&#8203;"


def _escape_stray(m: re.Match[str]) -> str:
    """A ``$`` or backtick left in plain text opens nothing here; escaped, it cannot pair with one in
    the text next to it on the note's line either (a title, a file name, the next section). A backtick
    becomes an entity, not ``\\```: the plugin counts backslash-escaped backticks as code delimiters."""
    if len(m.group(0)) == 2:
        return "&#96;" if m.group(0) == "\\`" else m.group(0)
    return "&#96;" if m.group(0) == "`" else "\\" + m.group(0)


def _split_span(span: str) -> str:
    """A code span holding ``::`` or ``==`` as adjacent code spans cut between the two characters, joined
    by a zero-width space: it shows the same code, and the line no longer holds the plugin's markers."""
    run = len(span) - len(span.lstrip("`"))
    body = span[run:-run]
    if body.startswith(" ") and body.endswith(" ") and body.strip(" "):
        body = body[1:-1]
    pieces = _TRIGGER_PAIR.split(body)
    if len(pieces) == 1:
        return span
    return ZWSP.join(_code_span("", piece) for piece in pieces)


def marker_outside_code(line: str, marker: str) -> bool:
    """The plugin's own test (``hasInlineMarker``): the first ``marker`` on the line counts as outside
    code unless an odd number of backticks stands on each side of it (escaped or not, any run length)."""
    at = line.find(marker)
    if at < 0:
        return False
    return not (line[:at].count("`") % 2 == 1 and line[at + len(marker):].count("`") % 2 == 1)


def sr_line_trigger(line: str) -> bool:
    """Whether the plugin's parser would make something of this line: a single-line card (``::``),
    a cloze (``==x==``), a multi-line separator (``?``/``??``) or a comment that hides what follows."""
    return (marker_outside_code(line, "::") or bool(_CLOZE.search(line)) or line.strip() in ("?", "??")
            or line.startswith("<!--"))


def sr_unsafe(text: str, *, skip_fences: bool = True) -> bool:
    """Whether any line of ``text`` triggers the plugin; fenced blocks at column 0 are skipped, as the
    plugin skips them (``skip_fences=False`` for text inside a callout, whose lines start with ``>``)."""
    if "::" not in text and "==" not in text and "?" not in text and "<!--" not in text:
        return False  # the common case
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if skip_fences and line.startswith(("```", "~~~")):
            close = re.match(r"`+|~+", line)
            assert close is not None
            i += 1
            while i < len(lines) and not lines[i].startswith(close.group(0)):
                i += 1
            i += 1
            continue
        if sr_line_trigger(line):
            return True
        i += 1
    return False


def _code_span(delim: str, tex: str) -> str:
    text = delim + (" ".join(tex.split()) if delim else tex) + delim
    ticks = "`" * (_longest_run(text, "`") + 1)
    stripped = text.startswith(" ") and text.endswith(" ") and text.strip(" ")  # CommonMark would trim one each side
    pad = " " if text.startswith("`") or text.endswith("`") or stripped else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def tables_as_lists(markdown: str) -> str:
    """GFM table rows as list items (``- a · b · c``): without a blank line above it, a table does
    not render in Obsidian, but a list does. Code fences are left alone."""
    out, fence = [], ""
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if m and (not fence or m.group(2).startswith(fence)):
            fence = "" if fence else m.group(2)[0] * 3
        row = None if fence else _TABLE_ROW.match(line)
        if row is None:
            out.append(line)
        elif not _TABLE_RULE.match(line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.group(1))]
            out.append("- " + " · ".join(cells))  # an empty cell keeps its place (a · · c)
    return "\n".join(out)


_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")


def one_block(*markdowns: str) -> str:
    """Texts as one block of Obsidian Markdown without blank lines (a blank line ends a Spaced
    Repetition card), except inside fenced code, which the plugin reads whole. Tables become lists, which
    need no blank line above them; where a blank line ended a list, a thematic break (``***``) ends it
    instead, so the next paragraph is not pulled into the last list item."""
    lines: list[str] = []
    in_list = gap = False
    for text in markdowns:
        if not text.strip():
            continue
        gap = bool(lines)
        fence = ""
        for line in to_obsidian(tables_as_lists(text)).split("\n"):
            if fence:  # segments() put every fence at column 0 with a closing run of the same length
                lines.append(line)
                fence = "" if line.rstrip() == fence else fence
                continue
            if line.startswith("```"):
                fence = re.match(r"`+", line).group(0)  # type: ignore[union-attr]
                in_list = gap = False
                lines.append(line)
                continue
            if not line.strip():
                gap = True
                continue
            if _LIST_ITEM.match(line):
                in_list = True
            elif in_list and gap and not line.startswith((" ", "\t")):
                lines.append("***")
                in_list = False
            gap = False
            lines.append(line)
    return "\n".join(lines)

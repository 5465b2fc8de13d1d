"""Put back the LaTeX backslashes a bank export lost: ``$4times$`` → ``$4\\times$``.

Only text inside math (``$...$`` and ``$$...$$``) is touched; prose outside math keeps words such as
"text", "right" or "times" as they are. Inside math, a run of letters regains its backslash only when
it is a *known command* used as a command:

- commands that take an argument (``frac``, ``sqrt``, ``text``, ``mathrm`` ...) only when a ``{``
  (or ``[`` for ``sqrt``) follows;
- ``left`` / ``right`` only when a delimiter follows;
- every other known command (Greek letters, ``times``, ``quad``, ``log`` ...) when it is a whole run
  of letters: ``12Psi`` and ``Psi /N`` are repaired, ``Psiq`` or ``times2x`` style words are not.

The content of ``\\text{...}`` (and the other text-mode commands) is copied verbatim, so
``\\text{left to right}`` stays prose. Already-correct TeX passes unchanged: the repair is idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from app.render.dollars import inline_math_end

GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
    "varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
# Commands without arguments, repaired when they form a whole run of letters.
SYMBOLS = frozenset(GREEK + (
    "times cdot cdots ldots dots div pm mp ast star circ bullet approx sim simeq propto equiv "
    "le ge leq geq neq ne ll gg infty partial nabla to rightarrow leftarrow Rightarrow Leftarrow "
    "leftrightarrow Leftrightarrow mapsto implies iff sum prod lim log ln exp max min sin cos tan "
    "quad qquad forall exists in notin subset subseteq cup cap emptyset langle rangle lceil rceil "
    "lfloor rfloor mid parallel perp"
).split())
# Commands that need a following argument in braces to count as commands.
WITH_ARGUMENT = frozenset(
    "frac dfrac tfrac sqrt text textbf textit textrm mathrm mathbf mathit mathbb mathcal mathsf mbox "
    "operatorname boldsymbol hat bar tilde vec dot ddot overline underline overbrace underbrace "
    "binom".split()
)
# Commands whose braced argument is prose: never repaired inside.
TEXT_MODE = frozenset("text textbf textit textrm mbox operatorname".split())
DELIMITED = frozenset("left right big Big bigg Bigg".split())
_DELIMITER_START = re.compile(r"\s*(?:[()\[\]|./]|\\[{}|]|\\[lr](?:angle|ceil|floor|vert|Vert)\b|\\\|)")

KNOWN_COMMANDS = SYMBOLS | WITH_ARGUMENT | DELIMITED


def _braced_end(tex: str, start: int) -> int:
    """Index just past the brace group opening at ``tex[start] == '{'`` (or the end if unclosed)."""
    depth = 0
    i = start
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(tex)


def _argument_end(tex: str, i: int) -> int:
    """After a text-mode command ending at ``i``: the end of its ``{...}`` argument, or ``i`` if none."""
    j = i
    while j < len(tex) and tex[j] == " ":
        j += 1
    return _braced_end(tex, j) if j < len(tex) and tex[j] == "{" else i


def _is_command(word: str, tex: str, end: int) -> bool:
    rest = tex[end:]
    if word in WITH_ARGUMENT:
        nxt = rest.lstrip(" ")[:1]
        return nxt == "{" or (word == "sqrt" and nxt == "[")
    if word in DELIMITED:
        return bool(_DELIMITER_START.match(rest))
    return word in SYMBOLS


_TEX_TOKEN = re.compile(r"\\([A-Za-z]+)|\\.|([A-Za-z]+)", re.S)


@lru_cache(maxsize=8192)
def repair_tex(tex: str) -> str:
    """Repair one formula's TeX (the text between the dollar signs); formulas recur, so results are cached."""
    out: list[str] = []
    last = 0
    for m in _TEX_TOKEN.finditer(tex):
        if m.start() < last:
            continue  # inside a text-mode argument copied verbatim
        out.append(tex[last : m.start()])
        command, word = m.group(1), m.group(2)
        if word is not None and _is_command(word, tex, m.end()):
            out.append("\\" + word)
            command = word
        else:
            out.append(m.group(0))
        last = m.end()
        if command in TEXT_MODE:
            end = _argument_end(tex, last)
            out.append(tex[last:end])
            last = end
    out.append(tex[last:])
    return "".join(out)


_SPAN_TOKEN = re.compile(r"\\.|\$\$|\$|\n", re.S)


def math_spans(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, delimiter length) of every ``$...$`` / ``$$...$$`` span; ``\\$`` is not a delimiter.

    The dollars pair as the renderer pairs them (:func:`app.render.dollars.inline_math_end`: no space
    inside the dollars, no digit after the closing one), so "costs $5 to $6" is prose. Inline math
    stays on one line; ``$$...$$`` may span lines. A ``$`` that opens nothing is text.
    """
    pos = 0
    while (m := _SPAN_TOKEN.search(text, pos)) is not None:
        start, token, pos = m.start(), m.group(0), m.end()
        if token[0] == "\\" or token == "\n":
            continue
        end = inline_math_end(text, start)
        if end is not None and (token == "$$" or "\n" not in text[start:end]):
            yield start, end, len(token)
            pos = end
        elif token == "$$":
            pos = start + 1  # not math: its second $ may still open a formula, as in the renderer


def repair_math(text: str) -> str:
    """Repair the TeX inside every math span of a Markdown text; everything else is unchanged."""
    if "$" not in text:
        return text
    out: list[str] = []
    last = 0
    for start, end, width in math_spans(text):
        out.append(text[last : start + width])
        out.append(repair_tex(text[start + width : end - width]))
        out.append(text[end - width : end])
        last = end
    out.append(text[last:])
    return "".join(out)

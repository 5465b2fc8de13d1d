"""Where inline math starts and ends: Pandoc's ``$`` rule, shared by the renderer and the importer.

An opening ``$`` must not be followed by a space, a closing ``$`` must not be preceded by a space nor
followed by a digit; ``\\$`` is a dollar sign. So "GPUs cost $5 to $6 an hour" and "$20,000 and
$30,000" stay prose, while ``$16\\Psi$`` is math. The renderer (:mod:`app.render.markdown`) parses with
:func:`inline_math`; the bank importer (:mod:`app.cards.latex_repair`) asks :func:`inline_math_end`
where a formula ends, so it repairs TeX exactly where the page will show a formula, never in prose.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath.index import math_inline_dollar

# markdown-it-py's dollarmath rule checks the spaces; the digit after the closing $ is checked below
# (its allow_digits=False would also refuse a digit *before* an opening $, which Pandoc allows: "2$x$").
_dollar = math_inline_dollar(allow_space=False, allow_digits=True, allow_double=True)


def inline_math(state: StateInline, silent: bool) -> bool:
    """markdown-it inline rule: ``$tex$`` (or ``$$tex$$`` inside a line) at ``state.pos``, Pandoc's way."""
    start = state.pos
    if not _dollar(state, True):  # silent: only finds the end (state.pos just past the closing $)
        return False
    end = state.pos
    if state.src[end : end + 1].isdigit():  # "$5 and 6$7": a closing $ before a digit is a price
        state.pos = start
        return False
    if silent:
        return True
    state.pos = start
    return _dollar(state, False)


@lru_cache(maxsize=1)
def _bare() -> MarkdownIt:
    return MarkdownIt("zero")


def inline_math_end(src: str, pos: int) -> int | None:
    """Index just past the formula that the ``$`` at ``src[pos]`` opens, or None when it is text."""
    state = StateInline(src, _bare(), {}, [])
    state.pos = pos
    return state.pos if inline_math(state, True) else None

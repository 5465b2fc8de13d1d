"""TeX that exports hand to a MathJax of someone else's (Anki's reviewer, Obsidian): which formulas
may go as math, and which only as text.

MathJax's ``html`` extension (autoloaded by default) turns ``\\href{url}{x}`` into a link,
``\\class``/``\\cssId``/``\\style``/``\\data`` into attributes, ``\\require`` loads extensions,
``\\mmlToken`` sets attributes and ``\\unicode`` picks glyphs and fonts. The pages never hand TeX to
MathJax (``app.render.math`` renders an allow-list of MathML on the server), so exports keep to the
same rule: a formula using any of these is exported as its source text in a code span instead.
"""

from __future__ import annotations

import re

UNSAFE_TEX = re.compile(r"\\(?:href|url|class|cssId|style|data|require|mmlToken|unicode|html[A-Za-z]*|bbox)"
                        r"(?![A-Za-z])")


def unsafe_tex(tex: str) -> bool:
    """Whether MathJax would turn ``tex`` into more than math (a link, attributes, an extension load)."""
    return UNSAFE_TEX.search(tex) is not None

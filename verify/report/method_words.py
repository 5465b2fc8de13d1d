"""A verdict's method in a word, with the configurations it ran at: what every surface shows next to a ✓.

    python -c "from verify.report.method_words import method_text; print(method_text('simulated', []))"

The card page, the quiz marks, the handbook, the Anki note and ``proofdeck verify`` say how a verdict's numbers were
obtained (issue 32): measured / counted / simulated / by construction / calculated, each with the configurations
the claim was evaluated at (``evaluated`` rows that have relations), and definition / arithmetic, which ran at
nothing. Pure Python, no torch or sympy: the web server imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# method -> (en, zh)
WORDS = {"measured": ("measured", "实测"), "counted": ("counted", "计数"), "simulated": ("simulated", "模拟"),
         "construction": ("by construction", "由代码构造决定"), "calculated": ("calculated", "计算"),
         "definition": ("definition", "定义"), "arithmetic": ("arithmetic", "算术")}
# a confirmed verdict of these methods is no ✓ proof: its own sign
SIGNS = {"definition": "≝", "arithmetic": "="}


def configurations(evaluated: Sequence[Any] | None) -> list[str]:
    """The labels of the configurations a verdict was evaluated at (``ring N=2``, ``L=16 k=4``)."""
    return [str(r.get("config", "")) for r in evaluated or () if isinstance(r, Mapping) and r.get("relations")]


def method_text(method: str | None, evaluated: Sequence[Any] | None, lang: str = "en", limit: int = 3) -> str:
    """``simulated at ring N=2, ring N=3, ring N=4 +1`` (``模拟：…`` in zh); the bare word where nothing ran."""
    if not method or method == "none":
        return ""
    en, zh = WORDS.get(method, (method, method))
    word = zh if lang == "zh" else en
    ran = configurations(evaluated)
    if not ran:
        return word
    shown = ", ".join(ran[:limit]) + (f" +{len(ran) - limit}" if len(ran) > limit else "")
    return f"{word}：{shown}" if lang == "zh" else f"{word} at {shown}"

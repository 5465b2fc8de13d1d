"""A drill (a question with fresh numbers, answered by a formula) and its worked solution.

    python -c "from verify.known.drills import worked; print(worked('bubble-fraction', {'p': 4, 'm': 8}))"

Each subject module of this package lists its ``DRILLS``; ``verify.known.drills`` gathers them. Pure Python: the
quiz imports them (no torch, no sympy).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Worked:
    """The formula a drill's answer comes from, as TeX over symbols, and each symbol's value for the inputs.
    ``substituted`` puts the numbers in; tests/items/test_worked_solutions.py parses both back with sympy and
    checks them against ``answer``, so the worked solution shown cannot drift from the formula."""

    lhs: str
    tex: str  # right-hand side; every symbol written with an explicit \cdot before it
    symbols: dict[str, float]

    def substituted(self) -> str:
        out = self.tex
        for sym in sorted(self.symbols, key=len, reverse=True):
            before = "" if sym.startswith("\\") else r"(?<![A-Za-z\\])"  # N, not the N of \Nu
            value = "{" + tex_number(self.symbols[sym]) + "}"
            out = re.sub(before + re.escape(sym) + "(?![A-Za-z])", value.replace("\\", "\\\\"), out)
        return out


def tex_number(v: float) -> str:
    """``7.5\\times 10^{9}`` for large or tiny values, else the shortest plain form."""
    text = f"{v:g}"
    if "e" not in text:
        return text
    mantissa, exp = text.split("e")
    return f"{mantissa}\\times 10^{{{int(exp)}}}"


@dataclass(frozen=True)
class Drill:
    key: str
    card: str  # slug of the card the drill belongs to
    choices: dict[str, tuple[Any, ...]]  # input name -> values to draw from
    answer: Callable[..., float]  # inputs -> answer, in ``unit``
    unit: str
    question_en: str  # str.format template over the inputs
    question_zh: str
    worked: Callable[..., Worked] | None = None  # inputs -> the formula with its symbols' values

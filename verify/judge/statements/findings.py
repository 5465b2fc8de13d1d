"""What an annotation-free judge says of one statement, and the numbers it reads: written rounding, candidates.

    python -m verify   # every statement of every card gets one Finding per judge that applies to it

A finding names its judge (parity, arithmetic, formula, fact, claim) and says in words what it found; a
refutation carries the value found. The tolerance of a written number is half a unit of its last written digit
(in its own unit), widened to 1 % when ≈ / 约 / about stands before it.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from verify.reading.mathtext import Side

APPROX_SLACK = 0.01  # ≈ / 约 / about: at least 1 % either way


@dataclass(frozen=True)
class Finding:
    verdict: str  # confirmed | refuted | contradiction | consistent | unchecked
    judge: str  # parity | arithmetic | formula | fact | claim
    detail: str  # for people: "126/312 = 40.4 %, not 45 %"
    found: str = ""  # the value the judge found, where it refutes
    other: str = ""  # the other language's statement (a contradiction), or the quantity matched (a formula)


def number(side: Side) -> float | None:
    """The side's value as a float in base units (None: it has symbols)."""
    if side.formula:
        return None
    try:
        return float(side.value)
    except (TypeError, ValueError):
        return None


def tolerance(side: Side, approx: bool = False) -> float:
    """How far from ``side``'s value its written digits allow (base units)."""
    value = number(side)
    if value is None:
        return 0.0
    if side.number is None or side.number == 0:
        tol = abs(value) * 1e-9
    else:
        scale = abs(value / float(side.number))
        tol = 0.5 * 10.0 ** -side.digits * scale
    if approx or side.approx:
        tol = max(tol, APPROX_SLACK * abs(value))
    return tol + abs(value) * 1e-12


def human(value: float, unit: str = "") -> str:
    """A computed value for people, in the unit the text used: 40.4 %, 2.1 GB, 3.36."""
    if unit == "%":
        return f"{value * 100:.3g} %"
    if unit == "×":
        return f"{value:.3g}×"
    text = f"{value:,.0f}" if abs(value) >= 1e4 and abs(value - round(value)) < 1e-9 and abs(value) < 1e12 \
        else f"{value:.4g}"
    return f"{text} {unit}".strip()


def coefficient(expr: sp.Expr) -> sp.Expr:
    return expr.as_coeff_Mul()[0]

"""The card's own arithmetic: every equality, approximation or chain it writes, evaluated with units.

    python -c "from verify.judge.statements.arithmetic import check_text; print(check_text('MFU = 126/312 ≈ 45%'))"

Each relation of a chain (``16 × 7×10^9 = 112 GB``, ``126/312 ≈ 45%``, ``3Ψ/0.75Ψ = 4×``) is evaluated: both
sides in base units (bytes, seconds, FLOP; pint), a side without a unit read either as base units or in the
other side's unit, a percent as a fraction. Equal within the written rounding of the value side (half a unit
of its last digit; 1 % when written with ≈ / 约 / about) → ``confirmed``; else ``refuted`` with the value
computed ("126/312 = 40.4 %, not 45 %"). A result that is right in the sibling unit (GB for GiB) is a unit
slip, named as such. Sides with symbols are compared when their ratio is a number (Ψ cancels) or their
difference simplifies to 0; a definition (``M = 2ΨN``) is not arithmetic.
"""

from __future__ import annotations

import sympy as sp

from verify.judge.statements.findings import Finding, human, number, tolerance
from verify.judge.statements.fingerprint import ratio_varies
from verify.reading import units
from verify.reading.mathtext import Side
from verify.reading.statements import Statement

JUDGE = "arithmetic"


def _holds(op: str, a: float, b: float, tol: float) -> bool:
    if op in ("=", "≈"):
        return abs(a - b) <= tol
    return {"<": a < b + tol, "<=": a <= b + tol, ">": a > b - tol, ">=": a >= b - tol}[op]


def _symbolic(st: Statement, left: Side, right: Side) -> Finding | None:
    if any(isinstance(s.value, sp.Symbol) for s in (left, right)):
        return None  # a definition: "M = 2ΨN"
    if st.op not in ("=", "≈") or right.value == 0:
        return None
    if ratio_varies(left.value, right.value):  # no number, and so no identity either: sympy need not say so
        return None
    ratio = sp.simplify(left.value / right.value)
    if ratio.is_number:
        coef = right.value.as_coeff_Mul()[0]
        rel = 0.5 * 10.0 ** -right.digits / abs(float(coef)) if coef else 1e-9
        rel = max(rel, 0.01) if st.op == "≈" else rel
        ok = abs(float(ratio) - 1) <= rel + 1e-12
        detail = f"{left.text} = {sp.sstr(sp.nsimplify(left.value))}" + ("" if ok else f", not {right.text}")
        return Finding("confirmed" if ok else "refuted", JUDGE, detail, "" if ok else sp.sstr(sp.simplify(left.value)))
    if sp.simplify(left.value - right.value) == 0:
        return Finding("confirmed", JUDGE, f"{left.text} = {right.text} for every value")
    return None  # holds for some values only: not the card's arithmetic


def _interpretations(left: Side, right: Side) -> list[float]:
    """The values ``left`` may stand for against ``right``: in base units, or already in right's unit."""
    a = number(left)
    assert a is not None
    out = [a]
    if not left.dims and right.dims and right.number is not None and right.number != 0:
        b = number(right)
        assert b is not None
        out.append(a * b / float(right.number))  # left written in right's unit: 112 (GB) = 112 GB
    return out


def check(st: Statement) -> Finding | None:
    """The finding on one relation, or None when it is not arithmetic."""
    if st.right is None:
        return None
    left, right = st.left, st.right
    if left.formula or right.formula:
        return _symbolic(st, left, right)
    a, b = number(left), number(right)
    if a is None or b is None:
        return None
    if left.dims and right.dims and left.dims != right.dims:
        return Finding("unchecked", JUDGE, f"{left.text} and {right.text} are in different kinds of unit")
    tol = tolerance(right, st.op == "≈")
    if any(_holds(st.op, x, b, tol) for x in _interpretations(left, right)):
        return Finding("confirmed", JUDGE, f"{left.text} = {human(_shown(a, right), _unit(right))}")
    slip = _slip(st, a, right)
    if slip:
        return slip
    return Finding("refuted", JUDGE, f"{left.text} = {human(_shown(a, right), _unit(right))}, not {right.text}",
                   human(_shown(a, right), _unit(right)))


def _unit(side: Side) -> str:
    return side.unit


def _shown(base_value: float, right: Side) -> float:
    """A base-unit value in the unit the right side is written in."""
    if right.unit in ("", "%", "×") or right.number is None or right.number == 0:
        return base_value
    per_unit = float(right.value) / float(right.number)
    return base_value / per_unit if right.dims else base_value


def _slip(st: Statement, a: float, right: Side) -> Finding | None:
    """Right in the sibling unit (GB ↔ GiB): a unit slip."""
    written = units.unit(right.unit) if right.unit not in ("", "%", "×") else None
    other = units.sibling(written) if written is not None else None
    if other is None or right.number is None:
        return None
    per_other, _ = units.to_base(1.0, other)
    alt = float(right.number) * per_other
    if abs(a - alt) <= 0.5 * 10.0 ** -right.digits * per_other * (1 + (st.op == "≈")) + abs(alt) * 1e-12:
        name = f"{other:~}"
        return Finding("refuted", JUDGE, f"unit slip: {st.left.text} = {human(a / per_other, name)}, "
                                         f"which is {human(_shown(a, right), right.unit)}, not {right.text}",
                       human(_shown(a, right), right.unit))
    return None


def check_text(text: str) -> list[tuple[str, str]]:
    """(relation, finding) for every relation in ``text`` (a helper for people and tests)."""
    from verify.reading.pairing import Unit
    from verify.reading.statements import unit_statements

    out = []
    for st in unit_statements(Unit("en", "summary", 0, "para", text)):
        got = check(st)
        if got is not None:
            out.append((st.text, f"{got.verdict}: {got.detail}"))
    return out

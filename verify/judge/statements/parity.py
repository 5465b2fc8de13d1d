"""Parity: a zh unit and its en counterpart must state the same numbers and formulas.

    python -c "from verify.judge.statements.parity import compare_texts; \
print(compare_texts('节省 75% 的显存', 'a 50% saving of memory'))"

Each statement of one language is matched with one of the other that states the same value: within the
written rounding of either, a percent also as its complement or "more than" (75% saving = 4× less = 0.25 of),
a multiplier also as its reciprocal, units compared in base units (112 GB = 104.3 GiB), formulas by sympy. What
is left unmatched on both sides, of the same kind (two percents or multipliers, two sizes, two formulas, two
bare numbers) and in the same order, is a ``contradiction``; a statement that only one language makes is not.
"""

from __future__ import annotations

import sympy as sp

from verify.judge.statements.findings import number, tolerance
from verify.reading.mathtext import Side
from verify.reading.statements import Statement


def _kind(side: Side) -> str:
    if side.formula:
        return "formula"
    if side.unit in ("%", "×"):
        return "ratio"
    return "size:" + ",".join(k for k, _ in side.dims) if side.dims else "number"


def _candidates(side: Side) -> list[float]:
    v = number(side)
    if v is None:
        return []
    if side.unit == "%":
        return [v, 1 - v, 1 + v, v * 100]
    if side.unit == "×":
        return [v, 1 / v, 1 - 1 / v, v - 1] if v else [v]
    return [v]


def _counterpart(x: Side, y: Side) -> bool:
    """Two unmatched statements that stand for each other: the same kind, and for sizes and bare numbers the
    same written unit or the same written number (zh 112 GB, en 112 GiB)."""
    if _kind(x) != _kind(y):
        return False
    if _kind(x) == "formula":
        return bool(x.value.free_symbols & y.value.free_symbols)
    if _kind(x).startswith("size") or _kind(x) == "number":
        scaled = (x.value != x.number, y.value != y.number)
        return scaled[0] == scaled[1] and (units_alike(x, y) or x.number == y.number)
    return True


def units_alike(x: Side, y: Side) -> bool:
    from verify.reading import units

    ux = units.unit(x.unit) if x.unit else None
    uy = units.unit(y.unit) if y.unit else None
    return (ux is None and uy is None) or (ux is not None and uy is not None and ux == uy)


def same(a: Statement, b: Statement) -> bool:
    x, y = a.value_side, b.value_side
    if x.formula or y.formula:
        if not (x.formula and y.formula):
            return False
        try:
            return bool(sp.simplify(x.value - y.value) == 0)
        except (TypeError, ValueError):
            return False
    if x.dims != y.dims and x.dims and y.dims:
        return False
    tol = max(tolerance(x), tolerance(y))
    cx, cy = _candidates(x), _candidates(y)
    return any(abs(p - q) <= tol + 1e-9 * max(abs(p), abs(q)) for p in cx for q in cy)


def compare(zh: list[Statement], en: list[Statement]) -> tuple[list[tuple[Statement, Statement]],
                                                                  list[tuple[Statement, Statement]]]:
    """(matched pairs, contradictions) of one unit pair's statements."""
    used: set[int] = set()
    matched, left = [], []
    for a in zh:
        j = next((j for j, b in enumerate(en) if j not in used and same(a, b)), None)
        if j is None:
            left.append(a)
        else:
            used.add(j)
            matched.append((a, en[j]))
    right = [b for j, b in enumerate(en) if j not in used]
    contradictions = []
    for a in left:
        k = next((b for b in right if _counterpart(a.value_side, b.value_side)), None)
        if k is not None:
            right.remove(k)
            contradictions.append((a, k))
    return matched, contradictions


def compare_texts(zh: str, en: str) -> list[tuple[str, str]]:
    """The contradictions between two texts (a helper for people and tests)."""
    from verify.reading.pairing import Unit
    from verify.reading.statements import unit_statements

    _m, bad = compare(unit_statements(Unit("zh", "summary", 0, "para", zh)),
                      unit_statements(Unit("en", "summary", 0, "para", en)))
    return [(a.text, b.text) for a, b in bad]

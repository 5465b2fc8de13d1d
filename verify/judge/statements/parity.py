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
from verify.judge.statements.fingerprint import differ
from verify.reading.mathtext import Side
from verify.reading.statements import Statement


def _kind(side: Side) -> str:
    if side.formula:
        return "formula"
    if side.unit in ("%", "×"):
        return "ratio"
    return "size:" + ",".join(k for k, _ in side.dims) if side.dims else "number"


def _candidates(side: Side) -> list[tuple[float, float]]:
    """The intervals ``side`` may stand for: its value within its written rounding, and for a percent or a
    multiplier the readings another language may use (a 75 % saving = 0.25 of = 4× less; 4× = 0.25 of)."""
    v = number(side)
    if v is None:
        return []
    tol = tolerance(side)
    lo, hi = v - tol, v + tol
    out = [(lo, hi)]
    if side.unit == "%":
        out += [(1 - hi, 1 - lo), (1 + lo, 1 + hi), (lo * 100, hi * 100)]
        if lo > 0 and hi < 1:
            out.append((1 / (1 - lo), 1 / (1 - hi)))  # saving 75 % = 4× less
    elif side.unit == "×" and lo > 0:
        out += [(1 / hi, 1 / lo), (1 - 1 / lo, 1 - 1 / hi), (lo - 1, hi - 1)]
    return out


def _counterpart(x: Side, y: Side) -> bool:
    """Two unmatched statements that stand for each other: the same kind, and for sizes and bare numbers the
    same written unit or the same written number (zh 112 GB, en 112 GiB)."""
    if _kind(x) != _kind(y):
        return False
    if _kind(x) == "formula":
        return bool(x.value.free_symbols & y.value.free_symbols)
    vx, vy = number(x), number(y)
    if vx is not None and vy is not None and (vx == 0) != (vy == 0):
        return False  # "flushed to 0" is nobody's 5
    if vx is not None and vy is not None and vx and vy and not 1 / 16 <= vx / vy <= 16:
        return False  # a translation changes a number a little (75 % / 50 %, 13B / 6.7B), not by orders
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
            gap = x.value - y.value
            if gap == 0:  # written alike in both languages (nearly always): nothing left to simplify
                return True
            if differ(x.value, y.value):  # different values at one point: no simplify needed to say they differ
                return False
            return bool(sp.simplify(gap) == 0)
        except (TypeError, ValueError):
            return False
    if x.dims != y.dims and x.dims and y.dims:
        return False
    cx, cy = _candidates(x), _candidates(y)  # one side as written against the other's readings; touching
    return any(_overlap(p, q) for p in cx[:1] for q in cy) or any(_overlap(p, q) for p in cx for q in cy[:1])


def _overlap(p: tuple[float, float], q: tuple[float, float]) -> bool:
    """Two intervals share more than an end point (4 ± 0.5 and 3 ± 0.5 do not; 3.36 and 3.36 do)."""
    shared = min(p[1], q[1]) - max(p[0], q[0])
    width = min(p[1] - p[0], q[1] - q[0])
    if width <= 0:  # an exact value (0, a power written exactly)
        return shared >= -1e-12 * max(abs(p[0]), abs(q[0]), abs(p[1]), abs(q[1]))
    return shared > 1e-3 * width


def compare(zh: list[Statement], en: list[Statement]) -> tuple[list[tuple[Statement, Statement]],
                                                                  list[tuple[Statement, Statement]]]:
    """(matched pairs, contradictions) of one unit pair's statements. Statements written alike match first (a
    percent with a percent, a multiplier with a multiplier), then any reading of one another (75 % saving = 4×)."""
    used: set[int] = set()
    matched: dict[int, tuple[Statement, Statement]] = {}
    for alike in (True, False):
        for i, a in enumerate(zh):
            if i in matched:
                continue
            j = next((j for j, b in enumerate(en) if j not in used and (not alike or _written_alike(a, b))
                      and same(a, b)), None)
            if j is not None:
                used.add(j)
                matched[i] = (a, en[j])
    left = [a for i, a in enumerate(zh) if i not in matched]
    right = [b for j, b in enumerate(en) if j not in used]
    contradictions = []
    for a in left:
        k = next((b for b in right if (a.right is None) == (b.right is None)  # a number is no chain's counterpart
                  and _counterpart(a.value_side, b.value_side)), None)
        if k is not None:
            right.remove(k)
            contradictions.append((a, k))
    return [matched[i] for i in sorted(matched)], contradictions


def _written_alike(a: Statement, b: Statement) -> bool:
    return _kind(a.value_side) == _kind(b.value_side) and (a.value_side.unit in ("%", "×")) == (
        b.value_side.unit in ("%", "×")) and (a.value_side.unit == "%") == (b.value_side.unit == "%")


def compare_texts(zh: str, en: str) -> list[tuple[str, str]]:
    """The contradictions between two texts (a helper for people and tests)."""
    from verify.reading.pairing import Unit
    from verify.reading.statements import unit_statements

    _m, bad = compare(unit_statements(Unit("zh", "summary", 0, "para", zh)),
                      unit_statements(Unit("en", "summary", 0, "para", en)))
    return [(a.text, b.text) for a, b in bad]

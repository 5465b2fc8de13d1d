"""A formula's values at two fixed admissible points: the cheap proof that formulas differ, before sympy.

    python -c "import sympy as sp; from verify.judge.statements.fingerprint import differ; \
print(differ(sp.Symbol('s') * 2, sp.Symbol('s') + 1))"

``sp.simplify`` costs milliseconds a call, and the judges ask it whether two formulas are equal (parity: zh and
en state the same formula), alike in normal form (the card writes a formula twice) or in a constant ratio (the
card's arithmetic with symbols) for many pairs of a card, nearly all of them no. Two formulas equal as functions
take the same value at every admissible point where both are defined, so different values at one point prove that
``simplify(f - g)`` cannot be 0 and that their simplified forms cannot coincide; a ratio ``f / g`` that takes
different values at two points is no number, and one whose value is no symbol's power (``s``, ``1/t``, ``h²``)
is no such power, whatever simplify makes of it. An unknown function (the bank's ``O(N log N)``) is read as one
fixed linear function of its arguments. The judges then skip sympy, and ask it only when the values
agree (or cannot be computed): a verdict never depends on the points, only how often sympy runs does.

A point gives each symbol a value its assumptions admit (the vocabulary's symbols are positive, and integer ones
get integers) and different symbols, nearly always, different values (derived from the name alone: the same
points in every process). Values are evaluated to 30 digits and count as different only beyond a relative 1e-12,
far above the rounding of either.
"""

from __future__ import annotations

import cmath
import zlib
from collections.abc import Iterable
from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef

DIGITS = 30  # evalf's precision
REL_TOL = 1e-12  # values closer than this (relatively) may be equal: no proof that the formulas differ
POINTS = 2


def point(symbol: sp.Symbol, n: int = 0) -> sp.Rational:
    """The value ``symbol`` takes at point ``n``: an integer in 11..1019 for an integer symbol, else that plus a
    third."""
    base = sp.Integer(11 + zlib.crc32(f"{symbol.name}#{n}".encode()) % 1009)
    return base if symbol.is_integer else base + sp.Rational(1, 3)


@lru_cache(maxsize=8192)
def value(expr: sp.Expr, n: int = 0) -> complex | None:
    """``expr`` at point ``n``, or None (undefined there, infinite, or no number sympy can evaluate: an ``O(...)``,
    an unknown function)."""
    if expr.has(sp.Order):
        return None
    try:
        expr = expr.replace(lambda e: isinstance(e, AppliedUndef), _as_linear)
        got = expr.evalf(DIGITS, subs={x: point(x, n) for x in expr.free_symbols if isinstance(x, sp.Symbol)})
        if not got.is_number or got.free_symbols or got.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return None
        out = complex(got)
    except Exception:  # sympy raises many kinds on odd expressions: no value, no proof
        return None
    return out if cmath.isfinite(out) else None


def _as_linear(call: AppliedUndef) -> sp.Expr:
    """An unknown function read as one fixed linear function of its arguments (coefficients from its name): any
    reading of it keeps every identity sympy can prove, so values that differ under this one still prove that
    ``f - g`` never simplifies to 0 (``O(N log N)`` against ``12Ψ/N``: no sympy call)."""
    name = call.func.__name__

    def coefficient(i: int) -> sp.Rational:
        return sp.Rational(1 + zlib.crc32(f"{name}({i}".encode()) % 97, 7)

    return coefficient(-1) + sp.Add(*(coefficient(i) * arg for i, arg in enumerate(call.args)))


def _apart(a: complex | None, b: complex | None) -> bool:
    return a is not None and b is not None and abs(a - b) > REL_TOL * max(abs(a), abs(b))


def differ(f: sp.Expr, g: sp.Expr) -> bool:
    """``f`` and ``g`` are certainly not the same function (different values at a point); False when they may be
    equal, or when either has no value there."""
    return _apart(value(f), value(g))


def ratio_varies(f: sp.Expr, g: sp.Expr) -> bool:
    """``f / g`` is certainly no constant (different values at the two points); False when it may be one."""
    ratios = []
    for n in range(POINTS):
        a, b = value(f, n), value(g, n)
        if a is None or b is None or b == 0:
            return False
        ratios.append(a / b)
    return _apart(ratios[0], ratios[1])


def power_ratio(f: sp.Expr, g: sp.Expr, symbols: Iterable[sp.Symbol], exponents: Iterable[int]) -> bool:
    """``f / g`` may be one of ``symbols`` to one of ``exponents`` (its value at the point is one's, or unknown);
    False proves that it is none of them."""
    a, b = value(f), value(g)
    if a is None or b is None or b == 0:
        return True
    ratio = a / b
    powers = [complex(point(x)) ** k for x in symbols for k in exponents]
    return any(not _apart(ratio, p) for p in powers)

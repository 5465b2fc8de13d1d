"""Arithmetic that gives the same formula over numbers (the drills) and over sympy symbols (the judge).

    python -c "from verify.known.formulas.symbolic import ceil_log2; print(ceil_log2(5))"

A formula of this folder is written once and called twice: with numbers by the drills and the ledger, with
sympy symbols by ``verify.known.vocabulary`` (whose quantities are these formulas over symbols). Plain Python
``min``, ``math.ceil`` or ``Fraction`` cannot take a symbol; these helpers take either, computing with numbers
exactly as before and importing sympy only when handed a symbolic expression.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any


def _is_number(*xs: Any) -> bool:
    return all(isinstance(x, numbers.Real) for x in xs)


def ceil_log2(n: Any) -> Any:
    """⌈log₂ n⌉: rounds of a binomial tree over n ranks (0 for n = 1)."""
    if _is_number(n):
        return math.ceil(math.log2(n))
    import sympy

    return sympy.ceiling(sympy.log(n, 2))


def minimum(a: Any, b: Any) -> Any:
    if _is_number(a, b):
        return min(a, b)
    import sympy

    return sympy.Min(a, b)


def maximum(a: Any, b: Any) -> Any:
    if _is_number(a, b):
        return max(a, b)
    import sympy

    return sympy.Max(a, b)


def ratio(a: Any, b: Any) -> Any:
    """a/b, exact: a Fraction of two ints, else the quotient (a sympy expression for symbols)."""
    if isinstance(a, int) and isinstance(b, int):
        return Fraction(a, b)
    return a / b


def exact_quotient(a: Any, b: Any) -> Any:
    """a/b where b divides a: an int for ints (a // b), the quotient of symbols otherwise."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return a / b


def is_int(*xs: Any) -> bool:
    """Whether every argument is a plain int (a formula checks its preconditions on numbers, never on symbols)."""
    return all(isinstance(x, int) for x in xs)

"""Which vocabulary quantity a formula is: its ledger formula equal to it (``claims suggest``'s formula reading).

    python -c "import sympy as sp; from verify.known.vocabulary import SYMBOLS as S; \
from verify.reading.ledger_match import quantity_of; print(quantity_of(12 * S['h']**2 / S['t']))"
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from verify.known.vocabulary import ARG_VALUES, QUANTITIES, SYMBOLS


@lru_cache(maxsize=1)
def _ledgers() -> list[tuple[str, sp.Expr, frozenset[sp.Basic], tuple[complex, ...] | None]]:
    """Every quantity with arguments, its ledger formula, the formula's symbols and its :func:`_probe`, in
    vocabulary order."""
    import itertools

    out = []
    for q in QUANTITIES.values():
        for args in itertools.product(*(ARG_VALUES[kind] for kind in q.params)):
            try:
                formula = q.ledger(tuple(args))
            except (ValueError, KeyError, TypeError):
                continue
            if formula is not None and formula.free_symbols:
                out.append((f"{q.name}({', '.join(args)})", formula, frozenset(formula.free_symbols),
                            _probe(formula)))
    return out


@lru_cache(maxsize=1)
def _points() -> tuple[dict[sp.Symbol, sp.Rational], ...]:
    """Two assignments of unlike rationals to the vocabulary's symbols (where :func:`_probe` evaluates)."""
    names = sorted(SYMBOLS.values(), key=str)
    return tuple({x: sp.Rational(a * i + b, c) for i, x in enumerate(names)} for a, b, c in ((2, 3, 7), (3, 5, 11)))


def _probe(expr: sp.Expr) -> tuple[complex, ...] | None:
    """``expr``'s values at :func:`_points` (None where it has other symbols, or no finite value there)."""
    out = []
    for point in _points():
        try:
            value = complex(expr.xreplace(point).evalf(20))
        except (TypeError, ValueError, ZeroDivisionError, AttributeError):
            return None
        if not (abs(value) < 1e300):
            return None
        out.append(value)
    return tuple(out)


def _close(a: tuple[complex, ...], b: tuple[complex, ...]) -> bool:
    return all(abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-30) for x, y in zip(a, b, strict=True))


def quantity_of(value: sp.Expr) -> str | None:
    """``q(args)`` of the first quantity whose ledger formula equals ``value``. Two formulas that differ at a
    probe point are not equal: only the ones that agree there are cancelled exactly (sympy's ``cancel`` over
    each of the ledger's formulas was most of the time a card takes)."""
    probe, symbols = _probe(value), value.free_symbols
    for label, formula, formula_symbols, at in _ledgers():
        if formula_symbols != symbols:
            continue
        if probe is not None and at is not None and not _close(probe, at):
            continue
        if sp.cancel(formula - value) == 0:
            return label
    return None

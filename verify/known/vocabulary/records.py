"""The rows the vocabulary is written in: a symbol, a family of measured configurations, a quantity.

    python -c "from verify.known.vocabulary import QUANTITIES; print(QUANTITIES['bubble_fraction'])"

Every subject module of this package is plain data in these records (its ``SYMBOLS``, ``ARGS``, ``FAMILIES``
and ``QUANTITIES``) plus the small readers its measurements need; ``verify.known.vocabulary`` gathers them
into one table. A quantity's ledger formula calls ``verify.known.formulas`` / ``verify.known.ledger`` over
the sympy symbols below, so the judge reads the very function the drills and the ledger read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import sympy as sp


@dataclass(frozen=True)
class SymbolSpec:
    name: str
    meaning: str
    lower: int = 1  # smallest admissible value
    integer: bool = True
    grows: bool = False  # a claim may hold only as this symbol → ∞ (the judge tries that limit)

    @property
    def symbol(self) -> sp.Symbol:
        return sp.Symbol(self.name, positive=True, integer=self.integer or None)


def symbols(*specs: SymbolSpec) -> tuple[sp.Symbol, ...]:
    """The sympy symbols of ``specs``, in order (``p, m = symbols(*SYMBOLS)``)."""
    return tuple(s.symbol for s in specs)


class MeterUnavailable(LookupError):
    """A quantity this run cannot measure (no socket counters, no ring step, another backend): its claims come out
    ``unverifiable`` with this message, never judged from the ledger alone."""


@dataclass(frozen=True)
class Config:
    """One measured configuration: the symbol values the evidence ran with, and where to read it."""

    label: str  # "N=2"
    values: Mapping[str, Any]  # symbol name → value (e.g. {"N": 2})
    where: Mapping[str, Any] = field(default_factory=dict)  # family-specific handles (world size …)


Formula = Callable[..., Any]  # (*args) -> a sympy expression (or a number) in the symbols
# (evidence, config, args) -> (value, symbol values of that run, e.g. {"Psi": psi_pad}) or None (not measured there)
Measure = Callable[[Any, Config, tuple[str, ...]], "tuple[sp.Expr, dict[str, Any]] | None"]
ConfigsFn = Callable[[Any], list[Config]]


@dataclass(frozen=True)
class Family:
    """Where a group of quantities is measured: the configurations its evidence gives (each N of the ZeRO sweep,
    each simulated (p, m, v) …) and, for the vocabulary table, how ("ZeRO sweep runs")."""

    name: str
    configurations: ConfigsFn
    obtained: str
    # its measurement reads a claim's fixed values itself (a re-run, or another run of the same probe), so a claim
    # fixing every symbol is measured "at the claim's values"
    rerunnable: bool = False
    # measured by a probe that launches its own local Gloo ranks (verify.measure.experiments.dist_probe …)
    gloo_probe: bool = False
    # the symbols a re-run needs: a claim whose quantities fix fewer of them (global_batch(d=1)) is re-run at each
    # configuration with its fixed values put in, not "at the claim's values" alone (empty: no such check)
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Quantity:
    name: str
    params: tuple[str, ...]  # argument kinds, e.g. ("stage",)
    unit: str
    method: str  # measured | construction (holds because the reference code is written so) | simulated | calculated
    doc: str
    formula: Formula | None  # (*args) -> sympy expression in the symbols; None: measured only
    family: str = "none"  # the name of the Family it is measured in ("zero" = the ZeRO sweep's runs)
    measure: Measure | None = None
    # a measurement within this of the ledger agrees (profiler peaks, socket headers); may name symbols (M / 100)
    tolerance: sp.Expr = sp.Integer(0)
    # what the tolerance is, shown after it in a verdict's reason ("τ in the band within 1 % of the least waste")
    tolerance_says: str = ""
    # proportional to Ψ: a run's value is rescaled from its Ψ_pad to the model's Ψ before the assertion is
    # evaluated (so stages with different padding compare); the ledger check uses the raw value and Ψ_pad
    per_psi: bool = False

    def ledger(self, args: tuple[str, ...]) -> sp.Expr | None:
        return None if self.formula is None else ledger_formula(self.formula, args)


@cache
def ledger_formula(formula: Formula, args: tuple[str, ...]) -> sp.Expr:
    """A quantity's ledger formula at its arguments, exact (cached: ``ledger_formula.cache_clear()`` after a test
    mutates a formula)."""
    expr = sp.sympify(formula(*args))
    return expr if expr.is_Rational else sp.nsimplify(expr, rational=True)  # nsimplify rounds 2^-126 to 0

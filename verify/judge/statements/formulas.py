"""Known formulas: a formula the card writes, compared (sympy) with every quantity of the vocabulary.

    python -c "from verify.judge.statements.formulas import check_text; print(check_text('\\$4sbV/t^2\\$'))"

A formula over the vocabulary's symbols (Ψ, N, L, h, s, b, a, V, t, p, …) that equals a quantity's ledger
formula (``verify.known.vocabulary``, every argument tried) is ``confirmed`` as that quantity; ``python -m
verify`` then judges it like a hand-written claim, against the measurements. A near miss is ``refuted`` with the
formula it misses and a point where they differ: the same symbols and either (a) one term's coefficient off in
a formula of several terms (``12h² + 11h`` for ``12h² + 13h``), or (b) off by one symbol's power or a constant
factor in a formula of three symbols or more (``4sbV/t²`` for ``4sbV/t``). A multiple of one symbol (``2Ψ``,
``16Ψ``) names no quantity on its own: it is left to the other judges.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cache, lru_cache

import sympy as sp

from verify.judge.statements.findings import Finding
from verify.reading.statements import Statement

JUDGE = "formula"


@dataclass(frozen=True)
class Known:
    label: str  # quantity(args)
    expr: sp.Expr
    symbols: frozenset[sp.Symbol]
    print: float  # the value at a fixed random point (a quick test of equality)
    unit: str = ""  # the quantity's unit (bytes, FLOP, s, elements, …)


# what a sentence says it counts: a near miss is one only where the sentence counts what the quantity counts
# ("FLOPs are 24bsh² + 4bs²h" is no near miss of a size in bytes)
COUNTS = {"bytes": r"\bbytes?\b|\b[KMGT]i?B\b|字节|memory|显存|内存|activations?|激活|logits|states?|状态",
          "FLOP": r"FLOP|flop|算力|计算量|乘加|compute",
          "s": r"\btime\b|seconds?|\bms\b|时间|耗时|延迟|latency|\bsteps? time",
          "elements": r"elements?|numbers?|values?|元素|个数|个值|entries",
          "parameters": r"param|参数"}


def _point(symbols: frozenset[sp.Symbol]) -> dict[sp.Symbol, float]:
    rng = random.Random(",".join(sorted(x.name for x in symbols)))
    return {x: rng.uniform(2.0, 9.0) for x in symbols}


@lru_cache(maxsize=8192)
def _fingerprint(expr: sp.Expr) -> float | None:
    try:
        value = complex(expr.evalf(subs=_point(frozenset(expr.free_symbols))))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return value.real if abs(value.imag) < 1e-12 and value.real == value.real else None


@cache
def known() -> tuple[Known, ...]:
    """Every (quantity, arguments) of the vocabulary with a formula, once per distinct expression."""
    from verify.known.vocabulary import ARG_VALUES, QUANTITIES

    out: dict[str, Known] = {}
    for q in QUANTITIES.values():
        if q.formula is None:
            continue
        for args in itertools.product(*(ARG_VALUES[kind] for kind in q.params)):
            try:
                expr = sp.sympify(q.ledger(tuple(args)))
            except (ValueError, KeyError, TypeError, AssertionError):
                continue
            if expr is None or not expr.free_symbols or expr.has(sp.Min, sp.Max, sp.ceiling, sp.floor):
                continue
            fp = _fingerprint(expr)
            if fp is None:
                continue
            label = f"{q.name}({', '.join(args)})"
            out.setdefault(sp.srepr(expr), Known(label, expr, frozenset(expr.free_symbols), fp, q.unit))
    return tuple(out.values())


class Ledger:
    """The vocabulary's formulas (one tuple :func:`known` returns) grouped by their symbols, in its order: a formula
    is compared only with those of its own symbols. Hashed by identity, so that what is cached by it follows
    :func:`known` (a test that replaces the ledger gets a new one)."""

    def __init__(self, formulas: tuple[Known, ...]) -> None:
        self.formulas = formulas
        grouped: dict[frozenset[sp.Symbol], list[Known]] = {}
        for k in formulas:
            grouped.setdefault(k.symbols, []).append(k)
        self.by_symbols = {symbols: tuple(ks) for symbols, ks in grouped.items()}


_CURRENT: list[Ledger] = []  # the ledger of the tuple known() returned last


def _ledger() -> Ledger:
    formulas = known()
    if not _CURRENT or _CURRENT[0].formulas is not formulas:
        _CURRENT[:] = [Ledger(formulas)]
    return _CURRENT[0]


def _generic(expr: sp.Expr) -> bool:
    """A multiple of one symbol, or a bare symbol: names no quantity."""
    coeff, rest = expr.as_coeff_Mul()
    return len(expr.free_symbols) == 1 and (rest.is_Symbol or rest.is_Pow and rest.base.is_Symbol)


@lru_cache(maxsize=8192)
def _near(expr: sp.Expr, k: Known) -> bool:
    terms_e, terms_k = sp.Add.make_args(sp.expand(expr)), sp.Add.make_args(sp.expand(k.expr))
    if len(terms_e) >= 2 and len(terms_k) >= 2 and len(terms_e) == len(terms_k):
        diff = sp.Add.make_args(sp.expand(expr - k.expr))
        if len(diff) == 1 and diff[0] != 0:  # one term's coefficient off, by a typo's amount (13h → 11h)
            term = next((t for t in terms_k if sp.simplify(diff[0] / t).is_number), None)
            if term is not None and abs(float(diff[0] / term)) <= 0.35:
                return True
    if len(k.symbols) >= 3:
        ratio = sp.simplify(expr / k.expr)
        if ratio.is_number:
            return bool(ratio != 1)
        powers = sp.Mul.make_args(ratio)
        return len(powers) == 1 and (powers[0].is_Symbol or (powers[0].is_Pow and powers[0].base.is_Symbol
                                                               and abs(powers[0].exp) <= 2))
    return False


def _counts(sentence: str, k: Known) -> bool:
    """The sentence counts what ``k`` counts (its unit's words), and nothing another unit counts."""
    import re

    said = {unit for unit, rx in COUNTS.items() if re.search(rx, sentence)}
    return k.unit in said and len(said - {k.unit, "parameters"}) == 0 if k.unit in COUNTS else False


def _differs_at(expr: sp.Expr, k: Known) -> str:
    from verify.known.vocabulary import SPEC_OF

    at = {x: max(SPEC_OF[x].lower, 2) if x in SPEC_OF else 2 for x in k.symbols}
    shown = ", ".join(f"{x} = {v}" for x, v in sorted(at.items(), key=lambda kv: kv[0].name))
    return f"at {shown}: {sp.sstr(k.expr.subs(at))}, not {sp.sstr(expr.subs(at))}"


@lru_cache(maxsize=8192)
def _match(expr: sp.Expr, fp: float, ledger: Ledger) -> Known | None:
    """The first quantity whose ledger formula ``expr`` is (``fp``: its fingerprint), or None. Cached by the
    formula: a card writes its formulas in both languages, and often more than once."""
    for k in ledger.by_symbols.get(frozenset(expr.free_symbols), ()):
        if abs(k.print - fp) <= 1e-9 * max(1.0, abs(fp)) and _zero(expr - k.expr):
            return k
    return None


def _zero(gap: sp.Expr) -> bool:
    """``simplify(gap) == 0``; a gap sympy already reduced to 0 (the ledger's form written) needs no simplify."""
    return bool(gap == 0 or sp.simplify(gap) == 0)


@lru_cache(maxsize=8192)
def _sstr(expr: sp.Expr) -> str:
    """sympy's text of ``expr`` (cached: a formula confirmed in both languages is printed twice)."""
    return str(sp.sstr(expr))


def check(st: Statement) -> Finding | None:
    side = st.value_side
    expr = side.value
    if not side.formula or not expr.free_symbols <= _vocabulary() or _generic(expr) or side.dims:
        return None
    if st.right is not None and not st.left.value.is_Symbol and st.op != "=":
        return None
    fp = _fingerprint(expr)
    if fp is None:
        return None
    ledger = _ledger()
    k = _match(expr, fp, ledger)
    if k is not None:
        return Finding("confirmed", JUDGE, f"{side.text} is {k.label} (the ledger's formula)", _sstr(expr), k.label)
    for k in ledger.by_symbols.get(frozenset(expr.free_symbols), ()):
        if _counts(st.sentence, k) and _near(expr, k):
            return Finding("refuted", JUDGE, f"{k.label} is {_sstr(k.expr)}, not {_sstr(expr)} "
                                             f"({_differs_at(expr, k)})", _sstr(k.expr), k.label)
    return None


@cache
def _vocabulary() -> frozenset[sp.Symbol]:
    from verify.known.vocabulary import SYMBOLS

    return frozenset(SYMBOLS.values())


def check_text(text: str) -> list[tuple[str, str]]:
    from verify.reading.pairing import Unit
    from verify.reading.statements import unit_statements

    out = []
    for st in unit_statements(Unit("en", "summary", 0, "para", text)):
        got = check(st)
        if got is not None:
            out.append((st.text, f"{got.verdict}: {got.detail}"))
    return out

"""The ledger's verdict on an assertion: every quantity replaced by its formula, decided by sympy.

    python -c "from verify.judge.symbolic import symbolic; from verify.reading.asserts import parse; \
print(symbolic(parse('reduction(ddp, zero1) == 4')))"

Equal for every admissible value → ``confirmed``; equal only for particular values (``solve``) or only in a
limit (``limit``, the ratio of the two sides → 1) → ``conditional`` with that derived condition; else
``refuted`` with the smallest counterexample (each symbol at its lower bound, e.g. "N = 2: 8/5, claimed 4").
An order relation is proved over the admissible values (each symbol shifted to its lower bound) or refuted
on a sampled point. A pure function of the assertion's text and the ledger: cached by the text.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sympy as sp

from verify.judge.verdict import Counterexample
from verify.known.vocabulary import QUANTITIES, SPEC_OF, SYMBOLS
from verify.reading.asserts import Parsed, parse

_RANK = {"confirmed": 0, "conditional": 1, "refuted": 2, "unverifiable": 3}


@dataclass
class Outcome:
    verdict: str  # confirmed | conditional | refuted | unverifiable
    condition: str = ""  # derived by sympy (limit / solve), or the reading
    counterexamples: list[Counterexample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def counterexample(self) -> str:
        return "; ".join(str(c) for c in self.counterexamples)


def fmt(x: Any) -> str:
    """A number or expression for people: 8/5 → "1.6", 16*Psi/N → "16*Psi/N"."""
    x = sp.sympify(x)
    if x.is_Number:
        if x.is_Integer:
            return f"{int(x):,}" if abs(int(x)) >= 10**6 else str(int(x))
        return f"{float(x):.4g}"
    return str(sp.sstr(sp.nsimplify(x)))


def ledger_expr(parsed: Parsed, expr: sp.Expr) -> sp.Expr | None:
    """``expr`` with every quantity replaced by its ledger formula (None: some quantity is measured only)."""
    repl = {}
    for sym, atom in parsed.atoms.items():
        f = QUANTITIES[atom.quantity].ledger(atom.args)
        if f is None:
            return None
        repl[sym] = f.subs({SYMBOLS[k]: v for k, v in atom.fixed})
    return sp.sympify(expr).xreplace(repl).doit()


def _lowest(free: set[sp.Symbol], keep: tuple[sp.Symbol, ...] = ()) -> dict[sp.Symbol, int]:
    return {x: SPEC_OF[x].lower for x in free if x in SPEC_OF and x not in keep}


def _point(values: dict[sp.Symbol, Any]) -> str:
    return ", ".join(f"{x} = {v}" for x, v in sorted(values.items(), key=lambda kv: kv[0].name))


def holds(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr | int = 0) -> bool | None:
    """Whether ``lhs op rhs`` holds for numbers (None: not decidable, e.g. symbols left)."""
    try:
        d = sp.sympify(lhs - rhs)
        d = sp.nsimplify(d, rational=True) if d.is_number else sp.simplify(d)
        if not d.is_number:
            return None
        if op == "==":
            return bool(d == 0)
        if op == "≈":
            return bool(abs(d) <= tol)
        return bool({"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[op])
    except TypeError:
        return None


def _grid(free: set[sp.Symbol]) -> list[dict[sp.Symbol, int]]:
    """Small admissible points, smallest first (for counterexamples of what sympy cannot decide)."""
    syms = sorted(free, key=lambda x: x.name)
    ranges = [[SPEC_OF[x].lower + i for i in range(8)] + [SPEC_OF[x].lower + 64] if x in SPEC_OF else [1]
              for x in syms]
    pts = [dict(zip(syms, vals, strict=True)) for vals in itertools.product(*ranges)]
    return sorted(pts, key=lambda pt: sum(pt.values()))


def _counterexample(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr) -> Counterexample | None:
    free = (lhs - rhs).free_symbols
    psi = SYMBOLS["Psi"]
    for keep in ((psi,), ()):  # keep Ψ symbolic where it does not cancel: "N = 2: 8*Psi, claimed 7*Psi"
        at = _lowest(free, keep)
        got = holds(op, lhs.subs(at), rhs.subs(at), tol)
        claimed = ("" if op == "==" else op + " ") + fmt(rhs.subs(at))
        if got is False or (op == "==" and keep and sp.simplify(lhs.subs(at) - rhs.subs(at)) != 0):
            return Counterexample(_point(at) or "for every value", fmt(lhs.subs(at)), claimed)
    for pt in _grid(free):
        if holds(op, lhs.subs(pt), rhs.subs(pt), tol) is False:
            return Counterexample(_point(pt), fmt(lhs.subs(pt)), fmt(rhs.subs(pt)))
    return None


def _equal(lhs: sp.Expr, rhs: sp.Expr) -> Outcome:
    d = sp.simplify(lhs - rhs)
    if d == 0:
        return Outcome("confirmed")
    free = d.free_symbols
    conditions: list[str] = []
    for x in sorted(free, key=lambda s_: s_.name):
        spec = SPEC_OF.get(x)
        if spec is None or x.name == "Psi":
            continue
        try:
            sols = sp.solve(d, x)
        except NotImplementedError:
            sols = []
        good = [z for z in sols if z.is_number and z.is_integer and z >= spec.lower]
        if good:
            conditions.append(f"only when {x} = {', '.join(fmt(z) for z in good)}")
    if rhs != 0:
        ratio = sp.simplify(lhs / rhs)
        for x in sorted(ratio.free_symbols, key=lambda s_: s_.name):  # k + L/k against (k−1) + L/k: d = 1 has none
            spec = SPEC_OF.get(x)
            if spec is not None and spec.grows and x.name != "Psi":
                try:
                    lim = sp.limit(ratio, x, sp.oo)
                except (NotImplementedError, ValueError):  # e.g. Min has no series: no limit condition
                    continue
                if lim == 1:
                    conditions.append(f"only as {x} → ∞")
    cex = _counterexample("==", lhs, rhs, sp.Integer(0))
    if conditions:
        return Outcome("conditional", "; ".join(conditions), [cex] if cex else [])
    return Outcome("refuted", "", [cex or Counterexample("", fmt(lhs), fmt(rhs))])


def _order(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr) -> Outcome:
    d = sp.simplify(lhs - rhs)
    if op == "≈":
        if d.free_symbols:
            return Outcome("refuted", counterexamples=[Counterexample(
                "", fmt(lhs), f"≈ {fmt(rhs)}",
                f"approx needs numbers, {fmt(lhs)} has symbols (fix them with keyword arguments)")])
        if holds(op, lhs, rhs, tol):
            return Outcome("confirmed")
        return Outcome("refuted", counterexamples=[Counterexample("", fmt(lhs), f"≈ {fmt(rhs)}")])
    sign = d if op in (">", ">=") else -d
    shifted = sign.subs({x: SPEC_OF[x].lower + sp.Dummy(x.name, integer=SPEC_OF[x].integer or None, nonnegative=True)
                         for x in sign.free_symbols if x in SPEC_OF})
    proved = sp.simplify(shifted).is_positive if op in (">", "<") else sp.simplify(shifted).is_nonnegative
    if proved:
        return Outcome("confirmed")
    cex = _counterexample(op, lhs, rhs, tol)
    if cex:
        return Outcome("refuted", counterexamples=[cex])
    return Outcome("conditional", "held at every sampled admissible value; sympy could not prove it for all")


def combine(outs: list[Outcome]) -> Outcome:
    """The worst of several relations' outcomes, with every condition and the worst ones' counterexamples."""
    worst = max(outs, key=lambda o: _RANK[o.verdict])
    conds = [o.condition for o in outs if o.condition]
    cexs = [c for o in outs if o.verdict == worst.verdict for c in o.counterexamples]
    return Outcome(worst.verdict, "; ".join(dict.fromkeys(conds)), cexs)


def symbolic(parsed: Parsed) -> Outcome | None:
    """The ledger's verdict on the whole assertion (None when a quantity has no formula). Shared between
    callers through the cache: never mutate the outcome."""
    return _symbolic(parsed.source)


def ledger_relations(parsed: Parsed) -> list[tuple[str, sp.Expr, sp.Expr, sp.Expr]] | None:
    """(op, lhs, rhs, tolerance) of each relation on the ledger (None when a quantity is measured only); the
    web app words refutations from it (app.verification.refutation)."""
    out = []
    for rel in parsed.relations:
        lhs, rhs = ledger_expr(parsed, rel.lhs), ledger_expr(parsed, rel.rhs)
        if lhs is None or rhs is None:
            return None
        out.append((rel.op, lhs, rhs, rel.tol))
    return out


@lru_cache(maxsize=1024)
def _symbolic(source: str) -> Outcome | None:
    rels = ledger_relations(parse(source))
    if rels is None:
        return None
    return combine([_equal(lhs, rhs) if op == "==" else _order(op, lhs, rhs, tol) for op, lhs, rhs, tol in rels])

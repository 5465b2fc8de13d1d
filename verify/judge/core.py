"""Judge a claim from its ``asserts`` expression only: symbolically against the ledger, then per measurement.

    python -c "from verify.judge.core import symbolic; from verify.reading.asserts import parse; \
print(symbolic(parse('reduction(ddp, zero1) == 4')))"

Symbolic (sympy): each quantity is replaced by its ledger formula. Equal for every admissible value →
``confirmed``; equal only for particular values (``solve``) or only in a limit (``limit``, the ratio of the
two sides → 1) → ``conditional`` with that derived condition; else ``refuted`` with the smallest
counterexample (each symbol at its lower bound, e.g. "N = 2: 8/5, claimed 4").

Measured: in every configuration of the evidence (each N that ran, with that run's Ψ_pad) each quantity's
measured value is compared with its ledger value (a disagreement refutes: the ledger or the implementation
is wrong) and the assertion is evaluated on the measured values, shown next to the claim. A claim read
under a stated ``reading`` is at best ``conditional``, naming the reading.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import sympy as sp

from verify.known import vocabulary
from verify.known.vocabulary import FAMILIES, QUANTITIES, SPEC_OF, SYMBOLS, Config, MeterUnavailable
from verify.reading.asserts import Parsed, Relation

_RANK = {"confirmed": 0, "conditional": 1, "refuted": 2}


@dataclass
class Outcome:
    verdict: str  # confirmed | conditional | refuted
    condition: str = ""  # derived by sympy (limit / solve), or the reading
    counterexample: str = ""
    notes: list[str] = field(default_factory=list)


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


def _holds(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr | int = 0) -> bool | None:
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


def _counterexample(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr) -> str:
    free = (lhs - rhs).free_symbols
    psi = SYMBOLS["Psi"]
    for keep in ((psi,), ()):  # keep Ψ symbolic where it does not cancel: "N = 2: 8*Psi, claimed 7*Psi"
        at = _lowest(free, keep)
        got = _holds(op, lhs.subs(at), rhs.subs(at), tol)
        claimed = ("" if op == "==" else op + " ") + fmt(rhs.subs(at))
        if got is False or (op == "==" and keep and sp.simplify(lhs.subs(at) - rhs.subs(at)) != 0):
            return f"{_point(at) or 'for every value'}: {fmt(lhs.subs(at))}, claimed {claimed}"
    for pt in _grid(free):
        if _holds(op, lhs.subs(pt), rhs.subs(pt), tol) is False:
            return f"{_point(pt)}: {fmt(lhs.subs(pt))}, claimed {fmt(rhs.subs(pt))}"
    return ""


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
        return Outcome("conditional", "; ".join(conditions), cex)
    return Outcome("refuted", "", cex or f"{fmt(lhs)}, claimed {fmt(rhs)}")


def _order(op: str, lhs: sp.Expr, rhs: sp.Expr, tol: sp.Expr) -> Outcome:
    d = sp.simplify(lhs - rhs)
    if op == "≈":
        if d.free_symbols:
            return Outcome("refuted", counterexample=f"approx needs numbers, {fmt(lhs)} has symbols "
                                                     f"(fix them with keyword arguments)")
        ok = _holds(op, lhs, rhs, tol)
        return Outcome("confirmed") if ok else Outcome("refuted", counterexample=f"{fmt(lhs)}, claimed ≈ {fmt(rhs)}")
    sign = d if op in (">", ">=") else -d
    shifted = sign.subs({x: SPEC_OF[x].lower + sp.Dummy(x.name, integer=SPEC_OF[x].integer or None, nonnegative=True)
                         for x in sign.free_symbols if x in SPEC_OF})
    proved = sp.simplify(shifted).is_positive if op in (">", "<") else sp.simplify(shifted).is_nonnegative
    if proved:
        return Outcome("confirmed")
    cex = _counterexample(op, lhs, rhs, tol)
    if cex:
        return Outcome("refuted", counterexample=cex)
    return Outcome("conditional", "held at every sampled admissible value; sympy could not prove it for all")


SYMBOLIC_AHEAD: dict[str, Outcome | None] = {}  # assertion -> the ledger's verdict, judged ahead (verify.judge.ahead)


def symbolic(parsed: Parsed) -> Outcome | None:
    """The ledger's verdict on the whole assertion (None when a quantity has no formula)."""
    if parsed.source in SYMBOLIC_AHEAD:
        return SYMBOLIC_AHEAD[parsed.source]
    return _symbolic(parsed.source)


@lru_cache(maxsize=1024)
def _symbolic(source: str) -> Outcome | None:
    """Cached by the assertion's text: the ledger's verdict depends on nothing else."""
    from verify.reading.asserts import parse

    parsed = parse(source)
    outs = []
    for rel in parsed.relations:
        lhs, rhs = ledger_expr(parsed, rel.lhs), ledger_expr(parsed, rel.rhs)
        if lhs is None or rhs is None:
            return None
        outs.append(_equal(lhs, rhs) if rel.op == "==" else _order(rel.op, lhs, rhs, rel.tol))
    return combine(outs)


def reset_caches() -> None:
    """Forget cached ledger formulas and verdicts (tests that mutate a formula call this)."""
    from verify.judge.claim import DRIFT_AHEAD, _drift  # the text/assertion pairing reads the ledger's values too
    from verify.known.vocabulary import ledger_formula
    from verify.reading.asserts import _parse

    ledger_formula.cache_clear()
    _parse.cache_clear()
    _symbolic.cache_clear()
    _drift.cache_clear()
    SYMBOLIC_AHEAD.clear()
    DRIFT_AHEAD.clear()
    MEASURED_AHEAD.clear()


def combine(outs: list[Outcome]) -> Outcome:
    worst = max(outs, key=lambda o: _RANK[o.verdict])
    conds = [o.condition for o in outs if o.condition]
    cexs = [o.counterexample for o in outs if o.counterexample and o.verdict == worst.verdict]
    return Outcome(worst.verdict, "; ".join(dict.fromkeys(conds)), "; ".join(cexs))


# ------------------------------------------------------------------ measured configurations

def _same(a: sp.Expr, b: sp.Expr, tol: sp.Expr | int = 0) -> bool:
    a, b = sp.nsimplify(a, rational=True), sp.nsimplify(b, rational=True)
    if a == b:
        return True
    if a.is_number and b.is_number:
        return bool(abs(a - b) <= max(abs(b) * sp.Rational(1, 10**9), tol))
    return False


def configurations(parsed: Parsed, evidence: Any) -> list[Config]:
    if any(rel.lhs.has(sp.Derivative) or rel.rhs.has(sp.Derivative) for rel in parsed.relations):
        return []  # a derivative is of the ledger's formula: one measured point has none
    families = {QUANTITIES[a.quantity].family for a in parsed.atoms.values()}
    if len(families) != 1 or (family := families.pop()) not in FAMILIES:
        return []
    fixed = [a.fixed for a in parsed.atoms.values()]
    if family == "zero" and evidence is None:
        return []
    if FAMILIES[family].rerunnable and all(fixed):
        return [Config("at the claim's values", {})]
    try:
        configs = FAMILIES[family].configurations(evidence)
    except LookupError:
        return []
    if not FAMILIES[family].rerunnable and family != "checkpoint" and any(fixed):
        # a quantity at fixed values is measured only by the configurations that ran at those values (the Gloo
        # probe at N = 4); a worked example elsewhere (Ψ = 7.5B) is calculated from the ledger
        want = {k: sp.sympify(x) for f in fixed for k, x in f}
        return [c for c in configs if all(k in c.values and sp.sympify(c.values[k]) == x for k, x in want.items())]
    return configs


# assertion -> measured()'s (rows, disagreements), computed ahead where they read no run (verify.judge.ahead)
MEASURED_AHEAD: dict[str, tuple[list[dict[str, Any]], list[str]]] = {}


def measured(parsed: Parsed, evidence: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Per configuration: each quantity measured vs ledger, and the assertion's sides on the measured values.

    Returns (rows, disagreements): a disagreement is a quantity whose measurement differs from its ledger value.
    """
    if parsed.source in MEASURED_AHEAD:  # read no evidence and started no rank there: the same here
        ahead_rows, ahead_bad = MEASURED_AHEAD[parsed.source]
        return copy.deepcopy(ahead_rows), list(ahead_bad)
    rows, bad = [], []
    for cfg in configurations(parsed, evidence):
        values: dict[sp.Symbol, Any] = {SYMBOLS[k]: v for k, v in cfg.values.items()}
        meas: dict[sp.Symbol, sp.Expr] = {}
        row: dict[str, Any] = {"config": cfg.label, "quantities": {}}
        run_symbols: dict[str, Any] = {}
        try:
            for sym, atom in parsed.atoms.items():
                q = QUANTITIES[atom.quantity]
                fixed = {k: sp.sympify(x).subs(values) for k, x in atom.fixed}  # m=4*p at p = 4: 16
                at_cfg = Config(cfg.label, {**cfg.values, **fixed}, cfg.where)
                why = vocabulary.unavailable_here(q, evidence)
                if why:
                    raise MeterUnavailable(why)
                got = q.measure(evidence, at_cfg, atom.args) if q.measure else None
                if got is None:
                    raise LookupError(f"{atom.label()} not measured")
                value, syms = got
                run_symbols = run_symbols or syms
                # per-Ψ quantities: rescale this run's Ψ_pad to the model's Ψ so stages compare
                meas[sym] = value * sp.Rational(syms["psi"], syms["Psi"]) if q.per_psi and "psi" in syms else value
                at = {**values, **{SYMBOLS[k]: x for k, x in syms.items() if k in SYMBOLS},
                      **{SYMBOLS[k]: x for k, x in at_cfg.values.items()}}  # fixed values, evaluated here
                led = q.ledger(atom.args)
                entry = {"measured": fmt(value)}
                if led is not None:
                    lv = led.subs(at)
                    entry["ledger"] = fmt(lv)
                    if not _same(value, lv, sp.sympify(q.tolerance).subs(at)):
                        bad.append(f"{cfg.label}: {atom.label()} measured {fmt(value)}, ledger {fmt(lv)}")
                row["quantities"][atom.label()] = entry
        except LookupError as e:
            row["skipped"] = str(e)
            row["unavailable"] = isinstance(e, MeterUnavailable)
            rows.append(row)
            continue
        env = {**values, **{SYMBOLS[k]: x for k, x in run_symbols.items() if k in SYMBOLS}}
        if "psi" in run_symbols:
            env[SYMBOLS["Psi"]] = run_symbols["psi"]
        row["symbols"] = {str(k): fmt(x) for k, x in env.items()}
        sides, holds = [], True
        for rel in parsed.relations:
            lhs = sp.sympify(rel.lhs).xreplace(meas).subs(env).doit()
            rhs = sp.sympify(rel.rhs).xreplace(meas).subs(env).doit()
            # a measurement's own tolerance (profiler peaks: ± ½ unit) carries into the relation it is in
            tol = max([rel.tol, *(sp.sympify(QUANTITIES[parsed.atoms[x].quantity].tolerance).subs(env)
                                  for x in sp.sympify(rel.lhs - rel.rhs).free_symbols if x in parsed.atoms)])
            op = "≈" if rel.op == "==" and tol else rel.op
            ok = _holds(op, lhs, rhs, tol)
            sides.append({"value": fmt(lhs), "claimed": fmt(rhs), "op": rel.op, "holds": ok})
            holds = holds and bool(ok)
        row["relations"], row["holds"] = sides, holds
        rows.append(row)
    return rows, bad


def method_of(parsed: Parsed, rows: list[dict[str, Any]]) -> str:
    judged = [r for r in rows if "relations" in r]
    methods = {QUANTITIES[a.quantity].method for a in parsed.atoms.values()}
    if "construction" in methods:  # holds because the reference code was written so: never "measured"
        return "construction"
    if judged:  # the weakest method among the quantities names the claim's: a calculated factor is never "measured"
        return next(m for m in ("calculated", "simulated", "measured") if m in methods)
    return "calculated"


@dataclass
class Judgement:
    verdict: str
    condition: str
    counterexample: str
    evaluated: list[dict[str, Any]]
    method: str
    symbolic: str  # the ledger's verdict before measurements, "" when measured only
    disagreements: list[str]


def judge_parsed(parsed: Parsed, evidence: Any, reading: str = "") -> Judgement:
    sym = symbolic(parsed)
    sym = None if sym is None else replace(sym)  # the cached outcome is shared: never mutate it
    rows, bad = measured(parsed, evidence)
    judged = [r for r in rows if "relations" in r]
    failing = [r for r in judged if not r["holds"]]
    if bad:
        out = Outcome("refuted", counterexample="measurement disagrees with the ledger: " + "; ".join(bad))
    elif rows and not judged and any(r.get("unavailable") for r in rows):
        # a meter this run lacks (ss, the ring step, the asked backend): never a verdict from the ledger alone
        reasons = "; ".join(dict.fromkeys(str(r.get("skipped", "")) for r in rows if r.get("unavailable")))
        out = Outcome("unverifiable", f"not measured on this run: {reasons}")
    elif sym is None:
        if not judged:
            out = Outcome("unverifiable", "nothing measured this quantity in this run")
        elif failing:
            r = failing[0]
            out = Outcome("refuted", counterexample=f"{r['config']}: " + "; ".join(
                f"{s_['value']}, claimed {s_['op']} {s_['claimed']}" for s_ in r["relations"] if not s_["holds"]))
        else:
            out = Outcome("confirmed", notes=["held at every measured configuration (measured only, no formula)"])
    elif sym.verdict == "confirmed" and failing:
        r = failing[0]
        out = Outcome("refuted", counterexample=f"{r['config']}: measured " + "; ".join(
            f"{s_['value']}, claimed {s_['claimed']}" for s_ in r["relations"] if not s_["holds"]))
    else:
        out = sym
    if reading and out.verdict == "confirmed":
        out = Outcome("conditional", f"under the reading: {reading}")
    elif reading and out.verdict == "conditional":
        out.condition = f"{out.condition}; under the reading: {reading}"
    return Judgement(out.verdict, out.condition, out.counterexample, rows, method_of(parsed, rows),
                     "" if sym is None else sym.verdict, bad)


__all__ = ["Judgement", "Outcome", "Relation", "combine", "fmt", "judge_parsed", "ledger_expr", "symbolic"]

"""The measured side of a verdict: each quantity read in every configuration of the evidence.

    python -m verify   # the ZeRO sweep's runs, the Gloo probes, simulators and single-process experiments

In every configuration (each N that ran, with that run's Ψ_pad; each simulated case; each experiment's shape)
each quantity's measured value is compared with its ledger value (a disagreement refutes: the ledger or the
implementation is wrong) and the assertion is evaluated on the measured values, shown next to the claim.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from verify.judge.symbolic import fmt, holds
from verify.known import vocabulary
from verify.known.vocabulary import FAMILIES, QUANTITIES, SYMBOLS, Config, MeterUnavailable
from verify.reading.asserts import Parsed


def _same(a: sp.Expr, b: sp.Expr, tol: sp.Expr | int = 0) -> bool:
    a, b = sp.nsimplify(a, rational=True), sp.nsimplify(b, rational=True)
    if a == b:
        return True
    if a.is_number and b.is_number:
        return bool(abs(a - b) <= max(abs(b) * sp.Rational(1, 10**9), tol))
    return False


ONLY = "judged_family"  # Config.where key: a claim across families judges at a configuration only its atoms of one


def configurations(parsed: Parsed, evidence: Any) -> list[Config]:
    if all(_derivative(rel) for rel in parsed.relations):
        return []  # a derivative is of the ledger's formula: one measured point has none
    families = sorted({QUANTITIES[a.quantity].family for a in parsed.atoms.values()})
    if len(families) == 1:
        return _family_configs(families[0], list(parsed.atoms.values()), evidence)
    # several families: each one's configurations judge the relations whose quantities are all its own
    return [Config(c.label, c.values, {**c.where, ONLY: fam}) for fam in families for c in
            _family_configs(fam, [a for a in parsed.atoms.values() if QUANTITIES[a.quantity].family == fam], evidence)]


def _family_configs(family: str, atoms: list[Any], evidence: Any) -> list[Config]:
    if family not in FAMILIES or (family == "zero" and evidence is None):
        return []
    fixed = [a.fixed for a in atoms]
    if FAMILIES[family].rerunnable and all(fixed) and set(FAMILIES[family].needs) <= {k for f in fixed for k, _ in f}:
        return [Config("at the claim's values", {})]
    try:
        configs = FAMILIES[family].configurations(evidence)
    except LookupError:
        return []
    if _ran_only_where_fixed(family) and any(fixed):
        # a quantity at fixed values is measured only by the configurations that ran at those values (the Gloo
        # probe at N = 4); a worked example elsewhere (Ψ = 7.5B) is calculated from the ledger
        want = {k: sp.sympify(x) for f in fixed for k, x in f}
        matching = [c for c in configs if all(k in c.values and (sp.sympify(c.values[k]) == x or _renames(x, c))
                                              for k, x in want.items())]
        # none ran there, but the claim also states the formula at its general symbols: those relations are measured
        # at every configuration and the worked ones left to the ledger (``_runs_at``)
        return matching if matching or all(fixed) else configs
    return configs


def _derivative(rel: Any) -> bool:
    return bool(rel.lhs.has(sp.Derivative) or rel.rhs.has(sp.Derivative))


def _ran_only_where_fixed(family: str) -> bool:
    return not FAMILIES[family].rerunnable and family != "checkpoint"


def _renames(x: Any, cfg: Config) -> bool:
    """A fixed value that is a bare symbol the configuration does not set (``ring_send(M=Psi_u)``, ``N=t``) only
    renames the configuration's symbol: it runs there, with that symbol bound to the configuration's value."""
    return bool(sp.sympify(x).is_Symbol) and str(x) not in cfg.values


def _bind_renames(parsed: Parsed, cfg: Config, values: dict[sp.Symbol, Any]) -> None:
    """Bind each renaming symbol (``_renames``) of the claim's fixed values to the configuration's value, when every
    use agrees (``values`` is updated in place)."""
    bound: dict[sp.Symbol, set[Any]] = {}
    for atom in parsed.atoms.values():
        for k, x in atom.fixed:
            if k in cfg.values and _renames(x, cfg):
                bound.setdefault(sp.sympify(x), set()).add(cfg.values[k])
    values.update({sym: vals.pop() for sym, vals in bound.items() if len(vals) == 1 and sym not in values})


def _runs_at(atom: Any, cfg: Config, values: dict[sp.Symbol, Any]) -> bool:
    """Whether ``cfg`` ran at the atom's fixed values (a family that cannot re-run elsewhere)."""
    return all(k in cfg.values and sp.sympify(x).subs(values) == sp.sympify(cfg.values[k]) for k, x in atom.fixed)


def measured(parsed: Parsed, evidence: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Per configuration: each quantity measured vs ledger, and the assertion's sides on the measured values.

    Returns (rows, disagreements): a disagreement is a quantity whose measurement differs from its ledger value.
    """
    rows, bad = [], []
    for cfg in configurations(parsed, evidence):
        values: dict[sp.Symbol, Any] = {SYMBOLS[k]: v for k, v in cfg.values.items()}
        meas: dict[sp.Symbol, sp.Expr] = {}
        own_tol: dict[sp.Symbol, sp.Expr] = {}  # each quantity's tolerance at its own values (fixed ones included)
        row: dict[str, Any] = {"config": cfg.label, "quantities": {}}
        run_symbols: dict[str, Any] = {}
        elsewhere: set[sp.Symbol] = set()  # atoms fixed at values this configuration did not run at (worked numbers)
        _bind_renames(parsed, cfg, values)
        try:
            for sym, atom in parsed.atoms.items():
                q = QUANTITIES[atom.quantity]
                if cfg.where.get(ONLY, q.family) != q.family or (
                        _ran_only_where_fixed(q.family) and not _runs_at(atom, cfg, values)):
                    elsewhere.add(sym)
                    continue
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
                    own_tol[sym] = sp.sympify(q.tolerance).subs(at)
                    if not _same(value, lv, own_tol[sym]):
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
        sides, all_hold = [], True
        for rel in parsed.relations:
            if sp.sympify(rel.lhs - rel.rhs).free_symbols & elsewhere or _derivative(rel):
                continue  # a worked example at values no configuration ran, or a derivative: the ledger's alone
            lhs = sp.sympify(rel.lhs).xreplace(meas).subs(env).doit()
            rhs = sp.sympify(rel.rhs).xreplace(meas).subs(env).doit()
            # a measurement's own tolerance (profiler peaks: ± ½ unit) carries into the relation it is in
            gap = sp.sympify(rel.lhs - rel.rhs)
            inside = {x: QUANTITIES[parsed.atoms[x].quantity] for x in gap.free_symbols if x in parsed.atoms}
            tol = max([rel.tol, *(_carried(gap, x, q, own_tol, meas, env) for x, q in inside.items())])
            op = "≈" if rel.op == "==" and tol else rel.op
            ok = holds(op, lhs, rhs, tol)
            side = {"value": fmt(lhs), "claimed": fmt(rhs), "op": rel.op, "holds": ok}
            says = [q.tolerance_says for q in inside.values() if q.tolerance_says]
            if says:  # a tolerance that is itself a finding (a simulated band) is stated with the verdict
                side["within"] = f"± {fmt(tol)}: {says[0]}"
            sides.append(side)
            all_hold = all_hold and bool(ok)
        if not sides:
            row["skipped"], row["unavailable"] = "only worked examples, at values no configuration ran", False
            rows.append(row)
            continue
        row["relations"], row["holds"] = sides, all_hold
        rows.append(row)
    return rows, bad


def _carried(gap: sp.Expr, atom: sp.Symbol, q: Any, own_tol: dict[sp.Symbol, sp.Expr],
             meas: dict[sp.Symbol, sp.Expr], env: dict[sp.Symbol, Any]) -> sp.Expr:
    """A quantity's tolerance in the units of the relation it is in. A tolerance the run found (a simulated band,
    ``tolerance_says``) is taken at that atom's own values and scaled by how much the relation moves with it
    (young_interval(δ=30)/60 moves by 1/60 of a second's band); a fixed one carries as it is."""
    if not q.tolerance_says or atom not in own_tol:
        return sp.sympify(q.tolerance).subs(env)
    slope = sp.diff(gap, atom).xreplace(meas).subs(env).doit()
    return abs(slope) * own_tol[atom]

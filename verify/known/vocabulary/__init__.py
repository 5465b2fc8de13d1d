"""The vocabulary claims are written in: every quantity a card's ``asserts:`` may name, its symbols and units.

    python -c "from verify.known.vocabulary import table; print(table())"

One module per subject (``zero``, ``offload``, ``collectives``, ``pipeline``, ``activations``, ``numerics``,
``transformer``, ``serving``, ``data_parallel``, ``model_parallel``, ``checkpoints``), each plain data: its
``SYMBOLS`` (SymbolSpec rows), ``ARGS`` (argument kinds and their values), ``FAMILIES`` (where its quantities
are measured) and ``QUANTITIES`` (one row each: name, arguments, unit, how it is obtained — ``measured`` on
ranks, ``simulated`` step by step, ``calculated`` from its formula only —, its **ledger formula**, a call of
``verify.known.formulas`` / ``verify.known.ledger`` over the symbols, and the reader of its measurement in one
configuration of the evidence). This module gathers them into the tables below; nothing here holds a claim's
number.

Symbols are positive; integer ones have a lower bound (N ≥ 2 ranks, p ≥ 2 stages …) that the symbolic judge uses
for "for every admissible value", the smallest counterexample and limits (``grows``). A letter two subjects
declare is one symbol: the same assumptions are required (else an import error), the meanings are joined
(``d``: a head's width, and the data-parallel degree).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import sympy as sp

from verify.known.vocabulary import (
    activations,
    checkpoints,
    collectives,
    data_parallel,
    model_parallel,
    numerics,
    offload,
    pipeline,
    serving,
    transformer,
    zero,
)
from verify.known.vocabulary.records import Config, Family, MeterUnavailable, Quantity, SymbolSpec, ledger_formula
from verify.known.vocabulary.zero import impl_run_name

__all__ = ["ARG_VALUES", "FAMILIES", "HELPERS", "QUANTITIES", "SPEC_OF", "SUBJECTS", "SYMBOLS", "SYMBOL_SPECS",
           "UNITS", "Config", "Family", "MeterUnavailable", "Quantity", "SymbolSpec", "impl_run_name",
           "ledger_formula", "table", "unavailable_here"]

# the subjects, in the vocabulary's order (the table's rows, the first quantity a suggestion names)
SUBJECTS = (zero, collectives, pipeline, activations, offload, model_parallel, numerics, transformer,
            data_parallel, serving, checkpoints)


def _symbol_specs(declared: Iterable[SymbolSpec]) -> tuple[SymbolSpec, ...]:
    """Each letter once, in the order first declared; a letter declared again must keep its assumptions (lower
    bound, integer, grows) and adds its meaning."""
    out: dict[str, SymbolSpec] = {}
    for spec in declared:
        old = out.get(spec.name)
        if old is None:
            out[spec.name] = spec
        elif (old.lower, old.integer, old.grows) != (spec.lower, spec.integer, spec.grows):
            raise ValueError(f"symbol {spec.name!r} is declared twice with different assumptions: {old} and "
                             f"{spec}; rename one of them")
        else:
            out[spec.name] = SymbolSpec(spec.name, f"{old.meaning}; {spec.meaning}", lower=old.lower,
                                        integer=old.integer, grows=old.grows)
    return tuple(out.values())


def _unique(kind: str, rows: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, row in rows:
        if name in out and out[name] != row:
            raise ValueError(f"{kind} {name!r} is declared twice: {out[name]} and {row}")
        out[name] = row
    return out


SYMBOL_SPECS: tuple[SymbolSpec, ...] = _symbol_specs(spec for m in SUBJECTS for spec in m.SYMBOLS)
SYMBOLS: dict[str, sp.Symbol] = {s.name: s.symbol for s in SYMBOL_SPECS}
SPEC_OF: dict[sp.Symbol, SymbolSpec] = {s.symbol: s for s in SYMBOL_SPECS}

# units a claim may multiply by (decimal, as the cards write GB; GiB is 2^30)
UNITS: dict[str, sp.Expr] = {
    "KB": sp.Integer(10**3), "MB": sp.Integer(10**6), "GB": sp.Integer(10**9), "TB": sp.Integer(10**12),
    "GiB": sp.Integer(2**30), "MiB": sp.Integer(2**20), "billion": sp.Integer(10**9),  # "7.5B parameters"
    "ms": sp.Rational(1, 1000), "percent": sp.Rational(1, 100), "TFLOP": sp.Integer(10**12),
}

# argument values: stages, collectives, phases, schedules …
ARG_VALUES: dict[str, tuple[str, ...]] = _unique("argument kind", (kv for m in SUBJECTS for kv in m.ARGS.items()))
# where each family of quantities is measured
FAMILIES: dict[str, Family] = _unique("family", ((f.name, f) for m in SUBJECTS for f in m.FAMILIES))
QUANTITIES: dict[str, Quantity] = _unique("quantity", ((q.name, q) for m in SUBJECTS for q in m.QUANTITIES))

HELPERS = ("approx", "reduction", "sqrt", "ceiling", "floor", "log", "exp", "Min", "Max", "diff")


def _check() -> None:
    """Every quantity names argument kinds and a family that some subject declares."""
    for q in QUANTITIES.values():
        unknown = [kind for kind in q.params if kind not in ARG_VALUES]
        if unknown or (q.family != "none" and q.family not in FAMILIES):
            raise ValueError(f"quantity {q.name!r}: unknown argument kind {unknown} or family {q.family!r} (declare "
                             "it in its subject's ARGS / FAMILIES)")


_check()


def unavailable_here(q: Quantity, evidence: Any) -> str:
    """Why ``q`` cannot be measured for this evidence ("" if it can): a Gloo probe is not the backend or the
    ranks the run asked for (``--backend nccl``, torchrun), so its claims are unverifiable there, never judged
    on a silent fallback to local Gloo ranks."""
    family = FAMILIES.get(q.family)
    if family is None or not family.gloo_probe or evidence is None:
        return ""
    runs = getattr(evidence, "runs", None) or []
    backend = getattr(evidence, "backend", "gloo")
    if backend != "gloo":
        return (f"{q.name} is measured by a probe on local Gloo ranks; this run asked for {backend}, where it "
                "has no measurement yet (run it again with --backend gloo)")
    if any(r.get("launcher") == "torchrun" for r in runs):
        return (f"{q.name} is measured by a probe that forks its own local Gloo ranks, not the ranks torchrun "
                "launched; judge it with a plain `python -m verify` run")
    return ""


# the arguments the table's example shows first for each kind (else the kind's first value)
_EXAMPLE_ARGS = {"stage": "zero3", "collective": "all_gather", "phase": "forward", "schedule": "onef1b",
                 "impl": "fsdp2_reshard", "recipe": "mixed_adam", "part": "total", "format": "fp16", "limit": "max",
                 "scaler": "init_scale", "reshard": "reshard_true", "pcie": "serial"}


def _example(q: Quantity) -> tuple[tuple[str, ...], str]:
    """The first arguments the quantity's formula accepts, and the formula there."""
    first = {kind: _EXAMPLE_ARGS.get(kind, values[0]) for kind, values in ARG_VALUES.items()}
    choices = [[first[kind], *(x for x in ARG_VALUES[kind] if x != first[kind])] for kind in q.params]
    for args in itertools.product(*choices):
        try:
            return args, "measured only" if q.formula is None else sp.sstr(q.ledger(args))
        except (ValueError, KeyError, TypeError):
            continue
    return (), ""


def table() -> str:
    """The vocabulary as one Markdown table (``verify/README.md`` embeds it)."""
    rows = ["| quantity | arguments | unit | obtained | example: ledger formula | what |", "|---|---|---|---|---|---|"]
    for q in QUANTITIES.values():
        args, formula = _example(q)
        where = FAMILIES[q.family].obtained if q.family in FAMILIES else "formula only"
        rows.append(f"| `{q.name}` | {', '.join(q.params) or '—'} | {q.unit} | {q.method} ({where}) | "
                    f"`{q.name}({', '.join(args)})` = `{formula}` | {q.doc} |")
    return "\n".join(rows)

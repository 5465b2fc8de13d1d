"""A refuted claim in plain words: ``16Ψ, not 14Ψ: the 2Ψ of gradients is missing``.

The report's counterexample is the judge's *smallest* one (each symbol at its lower bound), which can be a
degenerate configuration ("L = 1: 1, claimed 0": one layer), and it words numbers as the judge prints them.
What a learner reads instead, in this order of preference:

1. the general form, when the failing relation's two sides are short formulas in Ψ and N only
   ("16Ψ/N, not 14Ψ/N"): true at every configuration, so none is named;
2. else the first measured configuration where it fails, naming only the symbols the relation depends on
   ("L = 10: 10 calls, not 0"), in the quantity's unit (numbers.human);
3. else (every measured configuration held) the smallest *non-degenerate* point of the ledger where it fails,
   every integer symbol at least 2 ("m = 2, p = 3: 2, not 3").

When the difference between the two sides is exactly one component of the quantity (the gradients of the
model state), the refutation says which is missing or extra. Uses the assertion reader and the ledger
(sympy only, never torch), cached by the assertion's text.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from app.verification.numbers import human, sym_human, unit_of

# a quantity's components that a claim can leave out, with the words that name them in a quote
COMPONENTS = {"model_state_bytes": (("param_bytes", "parameters", "参数", ("参数", "param")),
                                    ("grad_bytes", "gradients", "梯度", ("梯度", "grad")),
                                    ("optim_bytes", "optimizer states", "优化器状态", ("优化器", "optim", "adam")))}
_OPS = {"==": ("{v}, not {c}", "应为 {v}，不是 {c}"),
        ">": ("{v}, not more than {c}", "应为 {v}，并不大于 {c}"), ">=": ("{v}, less than {c}", "应为 {v}，小于 {c}"),
        "<": ("{v}, not less than {c}", "应为 {v}，并不小于 {c}"), "<=": ("{v}, more than {c}", "应为 {v}，大于 {c}"),
        "≈": ("{v}, not about {c}", "应为 {v}，并非约 {c}")}
_SAME = ("equal ({v} each), not {word}", "两者相等（都是 {v}），并非{word_zh}")
_WORDS = {">": ("more", "更多"), ">=": ("more", "更多"), "<": ("less", "更少"), "<=": ("less", "更少")}


@dataclass(frozen=True)
class Failure:
    """One failing relation at one configuration: values as strings, ``at`` "" for the general form."""

    op: str
    value: str
    claimed: str
    at: str = ""
    value_en: str = ""  # the value with its unit's English word ("10 calls"), when it has one
    same: bool = False  # an order relation whose two sides are equal
    missing: tuple[str, str, str] | None = None  # (amount, noun en, noun zh) when a component explains it
    extra: bool = False  # the claim counts the component too much instead of leaving it out

    def words(self, lang: str) -> str:
        zh = lang == "zh"
        if self.same and self.op in _WORDS:
            en_word, zh_word = _WORDS[self.op]
            body = (_SAME[1] if zh else _SAME[0]).format(v=self.value, word=en_word, word_zh=zh_word)
        else:
            value = self.value if zh or not self.value_en else self.value_en
            body = _OPS.get(self.op, _OPS["=="])[1 if zh else 0].format(v=value, c=self.claimed)
        where = f"{self.at}: " if self.at else ""
        why = ""
        if self.missing:
            amount, en, zh_noun = self.missing
            if zh:
                why = f"：多算了{zh_noun}的 {amount}" if self.extra else f"：漏了{zh_noun}的 {amount}"
            else:
                why = f": the {amount} of {en} is counted twice" if self.extra else f": the {amount} of {en} is missing"
        return where + body + why


def _get(v: Any, name: str) -> Any:
    return v.get(name) if isinstance(v, Mapping) else getattr(v, name, None)


@lru_cache(maxsize=1024)
def _ledger(asserts: str) -> tuple[Any, ...] | None:
    """(parsed, [(op, lhs, rhs) per relation]) of the assertion on the ledger, or None (unparsable, or a
    quantity measured only)."""
    try:
        from verify.judge.symbolic import ledger_relations
        from verify.reading.asserts import parse

        parsed = parse(asserts)
        rels = ledger_relations(parsed)
        return None if rels is None else (parsed, tuple(rels))
    except Exception:  # any reader or sympy failure: the report's own counterexample is used
        return None


def _fails(op: str, lhs: Any, rhs: Any, tol: Any) -> bool:
    from verify.judge.symbolic import holds

    return holds(op, lhs, rhs, tol) is False


def _identically_true(op: str, lhs: Any, rhs: Any) -> bool:
    import sympy as sp

    d = sp.simplify(lhs - rhs)
    return bool(d == 0) if op in ("==", "≈", "<=", ">=") else False


def _explain(parsed: Any, index: int, lhs: Any, rhs: Any, quote: str) -> tuple[tuple[str, str, str] | None, bool]:
    """The component the difference between the two sides is (None when none is, or several could be)."""
    import sympy as sp

    from verify.known.vocabulary import QUANTITIES

    rel = parsed.relations[index]
    atom = parsed.atoms.get(rel.lhs) if rel.lhs in parsed.atoms else None
    if atom is None or atom.quantity not in COMPONENTS:
        return None, False
    diff = sp.simplify(lhs - rhs)
    found = []
    for name, en, zh, named in COMPONENTS[atom.quantity]:
        part = QUANTITIES[name].ledger(atom.args)
        if part is None:
            continue
        for sign in (1, -1):
            if sp.simplify(part - sign * diff) == 0:
                found.append((sym_human(str(sp.nsimplify(part))), en, zh, named, sign < 0))
    lowered = quote.lower()
    # a component the quote names is there: the missing one is one it does not name
    unnamed = [f for f in found if f[4] or not any(w in lowered for w in f[3])]
    if len(unnamed) != 1:
        return None, False
    amount, en, zh, _named, extra = unnamed[0]
    return (amount, en, zh), extra


def _general(op: str, lhs: Any, rhs: Any) -> bool:
    """Both sides short formulas in Ψ and N (and not both plain numbers)."""
    free = {s.name for s in (lhs.free_symbols | rhs.free_symbols)}
    return bool(free) and free <= {"Psi", "N"} and max(len(str(lhs)), len(str(rhs))) <= 24


def _symbols_of(lhs: Any, rhs: Any) -> set[str]:
    return {s.name for s in (lhs.free_symbols | rhs.free_symbols)} - {"Psi"}


def _measured_failure(v: Any, index: int | None, names: set[str] | None) -> tuple[int, str, str, str, str] | None:
    """(relation index, op, value, claimed, where) at the first measured configuration where a relation fails."""
    for row in _get(v, "evaluated") or []:
        if not isinstance(row, Mapping) or row.get("holds") is not False:
            continue
        for i, rel in enumerate(row.get("relations") or []):
            if rel.get("holds") is False and (index is None or i == index):
                symbols = row.get("symbols") or {}
                if names is not None and symbols:
                    at = ", ".join(f"{k} = {symbols[k]}" for k in sorted(names) if k in symbols)
                else:
                    at = " ".join(p.replace("=", " = ") for p in str(row.get("config", "")).split() if "=" in p)
                return i, str(rel.get("op", "==")), str(rel.get("value", "")), str(rel.get("claimed", "")), at
    return None


def _non_degenerate(op: str, lhs: Any, rhs: Any, tol: Any) -> tuple[str, Any, Any] | None:
    """The smallest point with every integer symbol ≥ 2 (Ψ kept) where the relation fails."""
    from verify.known.vocabulary import SPEC_OF

    syms = sorted((s for s in (lhs.free_symbols | rhs.free_symbols) if s.name != "Psi"), key=lambda s: s.name)
    ranges = [[max(SPEC_OF[s].lower, 2) + i for i in range(6)] if s in SPEC_OF else [2] for s in syms]
    points = sorted(itertools.product(*ranges), key=sum)
    for values in points[:400]:
        at = dict(zip(syms, values, strict=True))
        lo, ro = lhs.subs(at), rhs.subs(at)
        if _fails(op, lo, ro, tol):
            return ", ".join(f"{s} = {v}" for s, v in at.items()), lo, ro
    return None


def failure(v: Any, psi: float | None = None) -> Failure | None:
    """How the claim fails, in people's numbers (None: no value to state, e.g. a note-only refutation).
    Cached by what it reads (every surface words the same verdict: page, quiz, handbook, Anki, Obsidian)."""
    fields = {name: _get(v, name) for name in ("asserts", "predicted", "text_zh", "text_en", "evaluated")}
    return _failure(json.dumps(fields, sort_keys=True, default=str), psi)


@lru_cache(maxsize=2048)
def _failure(key: str, psi: float | None) -> Failure | None:
    v = json.loads(key)
    asserts = str(_get(v, "asserts") or _get(v, "predicted") or "")
    unit = unit_of(asserts)
    first = asserts.split("==")[0]
    ratio = unit == "ratio" or "reduction(" in first or bool(re.search(r"\)\s*/\s*[A-Za-z_]", first))
    quote = f"{_get(v, 'text_zh') or ''} {_get(v, 'text_en') or ''}"
    ledger = _ledger(asserts) if asserts else None
    measured = _measured_failure(v, None, None)
    if ledger is not None:
        parsed, rels = ledger
        failing = [i for i, (op, lhs, rhs, _t) in enumerate(rels) if not _identically_true(op, lhs, rhs)]
        index = measured[0] if measured else (failing[0] if failing else None)
        if index is not None:
            op, lhs, rhs, tol = rels[index]
            missing, extra = _explain(parsed, index, lhs, rhs, quote) if op == "==" else (None, False)
            if _general(op, lhs, rhs):
                import sympy as sp

                same = sp.simplify(lhs - rhs) == 0
                return Failure(op, sym_human(str(lhs)), sym_human(str(rhs)), same=bool(same), missing=missing,
                               extra=extra)
            names = _symbols_of(lhs, rhs)
            found = _measured_failure(v, index, names)
            if found:
                _i, fop, value, claimed, at = found
                return Failure(fop, human(value, unit, psi, ratio, False), human(claimed, unit, psi, ratio, False),
                               at, human(value, unit, psi, ratio), same=value == claimed, missing=missing, extra=extra)
            point = _non_degenerate(op, lhs, rhs, tol)
            if point:
                at, lo, ro = point
                return Failure(op, _value(lo, unit, psi, ratio, False), _value(ro, unit, psi, ratio, False), at,
                               _value(lo, unit, psi, ratio, True), missing=missing, extra=extra)
    if measured:
        _i, op, value, claimed, at = measured
        return Failure(op, human(value, unit, psi, ratio, False), human(claimed, unit, psi, ratio, False), at,
                       human(value, unit, psi, ratio), same=value == claimed)
    return None


def _value(expr: Any, unit: str, psi: float | None, ratio: bool, word: bool) -> str:
    if expr.is_number:
        return human(f"{float(expr):.12g}", unit, psi, ratio, word)
    return sym_human(str(expr))


def refutation(v: Any, lang: str, psi: float | None = None) -> str:
    """The correction a refuted claim's mark states, in ``lang`` ("" when there is none to state)."""
    found = failure(v, psi)
    if found is not None:
        return found.words(lang)
    notes = [c for c in (_get(v, "counterexamples") or []) if isinstance(c, Mapping) and c.get("text")]
    return sym_human(str(notes[0]["text"]).split("; ")[0]) if notes else ""

"""The card against itself: a formula its own worked example or its other sections compute otherwise.

    python -c "from verify.judge.statements.consistency import check_card; ..."   # called by card.judge_card

Three checks, in each language on its own, over the whole card (no annotation, no vocabulary quantity needed):

- **Worked example.** A product formula (``4sbV/t²``, ``12·L·s·h²``) whose symbols get values (``s = 4096``,
  ``L = 32``) in its own paragraph or bullet or in the example's, and in the same section a worked product of
  numbers (``4 × 4096 × 4 × 128000 / 8 = …``) that multiplies the same numbers but one of them: the formula has
  a factor its own example does not (``4sbV/t²`` where the example divides by t once) and is a
  ``contradiction`` naming the example and the factor. (An example with one factor more may compute a larger
  quantity, ``b·k·d`` beside ``k·b``: not flagged.) The same numbers exactly, and the same value, make the
  formula ``confirmed`` by its example.
- **Written twice.** Two formulas of the same language that the same words introduce (the last two content
  words before each, "arithmetic intensity"; or the Chinese run, where "跨节点发送" qualifies "发送") and that
  differ by one symbol (or its square): the one the card writes less often is a ``contradiction`` naming the
  other. A tie flags the one with fewer symbols (a dropped ``/S``), else neither; a formula its own worked
  example judged is not compared again; a pitfall is never flagged (it states the mistaken formula on purpose).
- **Unit slip.** A size written with one unit where the card computes the same number with its sibling
  (``730 GiB`` where a worked ``8 × 80 × 1.14 GB ≈ 730 GB`` stands elsewhere): the unconfirmed one is a
  ``contradiction`` naming the unit slip (GB and GiB differ by 7.4 % at giga, 10 % at tera).

What it cannot see: a formula with no values or worked example beside it and written once; a sum (the worked
example of a sum is not a product of its numbers); a factor of 2 between two formulas written twice (too often
two quantities: reduce-scatter and all-reduce); formulas over letters the vocabulary lacks (m, n, k of a GEMM).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from verify.judge.statements.findings import Finding, human, number, tolerance
from verify.judge.statements.fingerprint import differ, power_ratio
from verify.reading.statements import Statement
from verify.reading.tokens import tokens

JUDGE = "card"


def _numbers(text: str) -> Counter[float]:
    """The numbers written in an expression, as a multiset (``4 × 4096 × 4 × 128000 / 8``); a power written
    with a superscript counts its base that many times (``12 × 32 × 4096²``: 4096 twice)."""
    out: Counter[float] = Counter()
    last: float | None = None
    for t in tokens(text):
        if t.kind != "atom" or t.value is None:
            continue
        if t.extra.get("sup"):
            if last is not None:
                out[last] += int(t.value) - 1
        else:
            last = _key(float(t.value))
            out[last] += 1
    return out


def _key(x: float) -> float:
    return float(f"{x:.9g}")


def _monomial(expr: sp.Expr) -> tuple[sp.Rational, dict[sp.Symbol, int]] | None:
    coeff, rest = expr.as_coeff_Mul()
    powers: dict[sp.Symbol, int] = {}
    for factor in sp.Mul.make_args(rest):
        base, exp = factor.as_base_exp()
        if not base.is_Symbol or not exp.is_Integer:
            return None
        powers[base] = powers.get(base, 0) + int(exp)
    return (sp.Rational(coeff), powers) if coeff.is_Rational and len(powers) >= 2 else None


def _assignments(statements: list[Statement]) -> dict[sp.Symbol, float]:
    out: dict[sp.Symbol, float] = {}
    for st in statements:
        if st.op == "=" and st.right is not None and st.left.value.is_Symbol and number(st.right) is not None \
                and not st.right.dims:
            out.setdefault(st.left.value, float(number(st.right) or 0))
    return out


@dataclass(frozen=True)
class Flag:
    statement: Statement
    finding: Finding


def _worked(section: list[Statement]) -> list[Flag]:
    by_unit: dict[int, dict[sp.Symbol, float]] = {}
    for st in section:
        by_unit.setdefault(st.unit.index, {}).update(
            {k: v for k, v in _assignments([st]).items() if k not in by_unit.get(st.unit.index, {})})
    chains = [st for st in section if st.right is not None and number(st.left) is not None
              and sum(_numbers(st.left.text).values()) >= 3]
    out: list[Flag] = []
    for st in section:
        side = st.value_side
        mono = _monomial(side.value) if side.formula and not side.dims else None
        if mono is None:
            continue
        coeff, powers = mono
        for chain in chains:  # the values stand beside the formula or beside its example, not elsewhere
            values = {**by_unit.get(chain.unit.index, {}), **by_unit.get(st.unit.index, {})}
            if not set(powers) <= set(values):
                continue
            at = float(side.value.subs({s: values[s] for s in powers}))
            shown = ", ".join(f"{s} = {human(values[s])}" for s in sorted(powers, key=lambda x: x.name))
            want: Counter[float] = Counter({_key(float(coeff)): 1} if coeff != 1 else {})
            for sym, k in powers.items():
                want[_key(values[sym])] += abs(k)
            got = _numbers(chain.left.text)
            value = number(chain.left)
            if value is None:
                continue
            if got == want and abs(value - at) <= max(tolerance(chain.left), 1e-9 * abs(at)):
                out.append(Flag(st, Finding("confirmed", JUDGE, f"at {shown}: {side.text} = {human(at)}, the card's "
                                            f"worked example {chain.left.text}", human(at))))
                break
            missing = want - got
            if not got - want and sum(missing.values()) == 1 and abs(value - at) > 0.01 * abs(at):
                factor = next(iter(missing))  # (an example with one more factor may compute a larger quantity)
                out.append(Flag(st, Finding("contradiction", JUDGE,
                                            f"at {shown}: {side.text} = {human(at)}, but the card's worked example "
                                            f"{chain.left.text} = {human(value)} has one factor {human(factor)} "
                                            f"fewer", human(value), chain.text)))
                break
    return out


_STOP_EN = {"is", "are", "of", "the", "a", "an", "be", "as", "to", "at", "its", "their", "and", "only", "each",
            "per", "then", "so", "by", "in", "on", "with", "gives", "give", "takes", "take", "equals", "about"}
_STOP_ZH = "为是的了：:约即有共只每则"
# words that introduce any formula: they say nothing about which quantity it is
_GENERIC = {"每卡", "每步", "每层", "每个", "大小", "总共", "共计", "显存", "内存", "代价", "时间", "数值", "公式",
            "size", "total", "memory", "cost", "time", "value", "formula", "number", "count", "sum", "result"}


def _label(st: Statement) -> str:
    """The words that introduce the formula: the last two content words before it in its clause ("global batch",
    "arithmetic intensity"), or the Chinese run before it ("算术强度", "跨节点发送"); "" when they say nothing."""
    return _label_in(st.unit.text, st.value_side.text)


@lru_cache(maxsize=8192)
def _label_in(text: str, formula: str) -> str:
    """:func:`_label` of the formula written ``formula`` in the unit ``text`` (cached: asked for every pair)."""
    at = text.find(formula)
    before = re.split(r"[,，;；。(（]", text[:at] if at >= 0 else "")[-1]
    cjk = re.findall(r"[\u4e00-\u9fff]+", before[-8:])
    if cjk and before.rstrip()[-1:] and re.match(r"[\u4e00-\u9fff：:]", before.rstrip()[-1]):
        word = cjk[-1].rstrip(_STOP_ZH)[-4:]
        return word if len(word) >= 2 and word not in _GENERIC else ""
    words = [re.sub(r"(?:es|s)$", "", w.lower()) for w in re.findall(r"[A-Za-z][A-Za-z-]+", before)
             if w.lower() not in _STOP_EN]
    if len(words) < 2 or words[-1] in _GENERIC or not all(re.fullmatch(r"[a-z][a-z-]{2,}", w) for w in words[-2:]):
        return ""
    return " ".join(words[-2:])


@lru_cache(maxsize=8192)
def _same_label(x: str, y: str) -> bool:
    """The same words, or (Chinese, whose compounds qualify to the left) one ends with the other: 跨节点发送 / 发送."""
    if not x or not y:
        return False
    if x == y:
        return True
    return bool(re.fullmatch(r"[\u4e00-\u9fff]+", x + y)) and (x.endswith(y) or y.endswith(x))


@lru_cache(maxsize=4096)
def _related(f: sp.Expr, g: sp.Expr) -> bool:
    """``f`` and ``g`` differ by a typo's amount: a factor 2, or one symbol (or its square)."""
    fs, gs = f.free_symbols, g.free_symbols
    if len(fs | gs) < 2 or len(fs ^ gs) > 1:
        return False
    if not power_ratio(f, g, fs | gs, (1, -1, 2, -2)):
        return False  # f / g is no symbol's power at the fingerprint's point: simplify cannot make it one
    try:
        ratio = sp.simplify(f / g)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    base, exp = ratio.as_base_exp()  # (a factor 2 is too often a second quantity: reduce-scatter and all-reduce)
    return bool(base.is_Symbol and exp in (1, -1, 2, -2))


@lru_cache(maxsize=4096)
def _normal(expr: sp.Expr) -> str:
    """The formula's normal form, as text: two formulas with the same one are the same formula written twice."""
    return str(sp.srepr(sp.simplify(expr)))


def _written(expr: sp.Expr, formulas: list[Statement]) -> int:
    """How many of ``formulas`` have ``expr``'s normal form. Only those of the same value at the fingerprint's
    point can (``fingerprint.differ`` rules the others out without sympy)."""
    return sum(not differ(expr, st.value_side.value) and _normal(st.value_side.value) == _normal(expr)
               for st in formulas)


def _twice(statements: list[Statement], settled: set[int]) -> list[Flag]:
    formulas = [st for st in statements if st.value_side.formula and not st.value_side.dims
                and len(st.value_side.value.free_symbols) >= 2]
    out: list[Flag] = []
    flagged: set[int] = set()
    labels = {id(st): _label(st) for st in formulas}
    for a in formulas:
        if a.unit.section == "pitfalls":
            continue  # a pitfall states the mistaken formula on purpose ("counting the MLP as 8bsh²")
        for b in formulas:
            if a is b or (a.unit.section, a.unit.index) == (b.unit.section, b.unit.index) or id(a) in flagged:
                continue
            fa, fb = a.value_side.value, b.value_side.value
            if not _same_label(labels[id(a)], labels[id(b)]) or not _related(fa, fb):
                continue
            na, nb = _written(fa, formulas), _written(fb, formulas)
            fewer = len(fa.free_symbols) < len(fb.free_symbols)
            if id(b) in settled:
                continue  # b's own worked example already judged it: a is not measured against it
            if na < nb or (na == nb and fewer):
                flagged.add(id(a))
                out.append(Flag(a, Finding("contradiction", JUDGE,
                                           f"the card writes {b.value_side.text} for the same {_label(a)} in "
                                           f"{b.unit.section}", b.value_side.text, b.value_side.text)))
    return out


def _slips(statements: list[Statement], confirmed: Callable[[Statement], bool]) -> list[Flag]:
    from verify.reading import units

    sure = [st for st in statements if confirmed(st) and st.value_side.single and st.value_side.unit]
    out: list[Flag] = []
    for st in statements:
        side = st.value_side
        if confirmed(st) or not side.single or not side.unit or (u := units.unit(side.unit)) is None:
            continue
        other = units.sibling(u)
        for good in sure:
            g = good.value_side
            if good.unit.section != st.unit.section and g.number == side.number and other is not None and \
                    units.unit(g.unit) == other:
                out.append(Flag(st, Finding("contradiction", JUDGE,
                                            f"a unit slip: the card computes {good.text} in {good.unit.section}, "
                                            f"in {g.unit}, not {side.unit}", g.text, good.text)))
                break
    return out


def check_card(statements: list[Statement], confirmed: Callable[[Statement], bool] = lambda st: False) -> list[Flag]:
    """Every flag of one language's statements (all sections); ``confirmed``: what another judge confirmed."""
    out: list[Flag] = []
    sections: dict[str, list[Statement]] = {}
    for st in statements:
        sections.setdefault(st.unit.section, []).append(st)
    for section in sections.values():
        out += _worked(section)
    seen = {id(f.statement) for f in out}
    out += [f for f in _twice(statements, seen) if id(f.statement) not in seen]
    seen = {id(f.statement) for f in out}
    out += [f for f in _slips(statements, confirmed) if id(f.statement) not in seen]
    return out

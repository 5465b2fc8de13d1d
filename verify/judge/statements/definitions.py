"""The card against itself, by name: a quantity the card names and defines twice with two different formulas.

    python -c "from verify.judge.statements.definitions import definitions; \
print(definitions('busbw_AG = algbw × (n−1)/n'))"

A card names what a formula computes (``busbw_AG = busbw_RS = algbw × (n−1)/n``, ``base′ = base · s^(d/(d−2))``,
``$M_{\\text{KV}} = 2Lgde \\cdot n_{\\text{tokens}}$``). When the same name, in the same language, is set equal to
two formulas over the same symbols that differ (sympy), one of them is a typo: the one the card writes less
often is a ``contradiction`` naming the other; on a tie the display formula (``$$…$$``) is the card's own
statement of the quantity, and the other is flagged. A one-letter name (``t``, ``M``) is left alone: cards reuse
those for many quantities (``t = S/B`` beside ``t ≈ α + S/B``). Formulas over different symbols are two
quantities (per GPU and in all), never compared; a pitfall states a mistaken formula on purpose before its ⟹
(that part is skipped) and the right one after it.

Unlike the other readers these formulas may use any letters (``n``, ``m``, ``algbw``): the name ties them
together, no vocabulary is needed. What it cannot see: a wrong formula written without a name, a name written
once, and a difference of symbols (an added ``/t`` is taken for another quantity).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp
from sympy.parsing.sympy_parser import parse_expr

from verify.judge.statements.findings import Finding
from verify.reading.mathtext import Side
from verify.reading.pairing import Unit
from verify.reading.statements import Statement, sentence_at
from verify.reading.tex import TEX, to_plain

JUDGE = "card"

_IDENT = r"[A-Za-zΑ-Ωα-ω][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?[′']?"
_DEFINES = re.compile(r"(?<![\w′'.])(" + _IDENT + r")\s*=(?!=)\s*")
_TOKEN = re.compile(r"(?P<space>\s+)|(?P<num>\d+(?:\.\d+)?)|(?P<id>" + _IDENT + r")|(?P<op>[-−+×·*/^()²³√])")
_FUNCTIONS = {"log", "ln", "exp", "sqrt", "max", "min", "log2", "sin", "cos"}


@dataclass(frozen=True)
class Definition:
    name: str  # as normalised: busbw_AG, base′
    text: str  # the formula as written
    value: sp.Expr
    start: int  # where the formula starts in the unit's text
    display: bool  # in a display formula ($$…$$ or a math unit)


def _named(name: str) -> bool:
    """A name a card gives one quantity: two letters or more, a subscript, or a prime (not ``t`` or ``M``)."""
    base = re.sub(r"[′']$", "", name).split("_")[0]
    return len(base) >= 2 or "_" in name or name[-1] in "′'"


def formula_at(text: str) -> tuple[str, sp.Expr] | None:
    """The formula ``text`` starts with (what is written up to the first word, clause or relation), and its value
    over symbols named as written; None when there is none (a number, a word)."""
    toks: list[tuple[str, str, int]] = []
    spaced = False
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            break  # something no formula holds: a comma, a CJK character, a relation
        pos = m.end()
        kind = m.lastgroup or ""
        if kind == "space":
            spaced = True
            continue
        prev = toks[-1][0] if toks else "op"
        prev_text = toks[-1][1] if toks else "("
        glued = not spaced
        spaced = False
        if kind in ("num", "id") and prev in ("num", "id") and not glued:
            break  # "algbw × 2(n−1)/n because…": a word after an operand ends the formula
        if kind in ("num", "id") and prev_text == ")" and not glued:
            break
        toks.append((kind, m.group(0), m.start()))
    while toks and toks[-1][0] == "op" and toks[-1][1] not in ")²³":
        toks.pop()
    depth = 0
    for n, (_k, t, _s) in enumerate(toks):
        depth += (t == "(") - (t == ")")
        if depth < 0:
            toks = toks[:n]
            break
    if depth > 0 or not any(k == "id" for k, _t, _s in toks) or len(toks) < 2:
        return None
    names: dict[str, str] = {}  # as written -> its placeholder (a name such as S or E would be sympy's own)
    out: list[str] = []
    for n, (kind, t, _s) in enumerate(toks):
        before = toks[n - 1] if n else None
        if before and (before[0] in ("num", "id") or before[1] in ")²³") and \
                (kind in ("num", "id") or t in "(√") and not (before[0] == "id" and before[1] in _FUNCTIONS):
            out.append("*")  # implicit product: 2r, r(n + m), L·g written Lg
        if kind == "id" and t not in _FUNCTIONS:
            out.append(names.setdefault(t, f"v{len(names)}"))
        else:
            out.append({"−": "-", "×": "*", "·": "*", "^": "**", "²": "**2", "³": "**3", "√": "sqrt"}.get(t, t))
    local = {v: sp.Symbol(t) for t, v in names.items()}
    try:
        value = parse_expr("".join(out), local_dict={**local, "sqrt": sp.sqrt, "log": sp.log, "ln": sp.log,
                                                     "exp": sp.exp, "max": sp.Max, "min": sp.Min})
    except (SyntaxError, TypeError, ValueError, ZeroDivisionError, AttributeError, sp.SympifyError):
        return None
    if not isinstance(value, sp.Expr) or not value.free_symbols:
        return None
    end = toks[-1][2] + len(toks[-1][1])
    return text[:end].strip(), value


def _greek(m: re.Match[str]) -> str:
    """``\\theta`` as θ (Unicode's name of the letter); any other command is left for ``to_plain``."""
    name = m.group(1)
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    try:
        return unicodedata.lookup(f"GREEK {case} LETTER {name.upper()}")
    except KeyError:
        return m.group(0)


def _tex_plain(body: str) -> str | None:
    """A TeX piece as plain math with its names kept (``\\text{busbw}_{\\text{AG}}`` → ``busbw_AG``), clauses
    (``\\quad``, ``\\to``) as ``;``; None when ``to_plain`` cannot read it."""
    body = re.sub(r"\\(?:text|mathrm|operatorname|mathit)\{([^{}]*)\}", r"\1", body)
    body = re.sub(r"\\(?:bar|hat|tilde)\{?([A-Za-z])\}?", r"\1bar", body)
    body = re.sub(r"\\(?:quad|qquad)|\\[,;!]", ";", body).replace(r"\prime", "′")
    body = re.sub(r"\\(?:to|rightarrow|in|approx|sim|le|ge|leq|geq)\b", ";", body)
    plain = to_plain(re.sub(r"\\([A-Za-z]+)", _greek, body))
    return None if plain is None else re.sub(r"_\((\w+)\)", r"_\1", plain)


def _found(text: str, offset: int, display: bool) -> Iterable[Definition]:
    done = 0
    for m in _DEFINES.finditer(text):
        if m.start() < done:
            continue  # a later name of a chain already read
        names = [m.group(1)]
        rest = m.end()
        while (more := _DEFINES.match(text, rest)) is not None:
            names.append(more.group(1))
            rest = more.end()
        done = rest
        formula = formula_at(text[rest:])
        if formula is None:
            continue
        written, value = formula
        for name in names:
            if _named(name) and not any(str(s) == name for s in value.free_symbols):
                yield Definition(name.replace("'", "′"), written, value, offset + rest, display)


@lru_cache(maxsize=8192)
def definitions(text: str, math_unit: bool = False) -> tuple[Definition, ...]:
    """The named formulas one unit's text defines, in plain text and in TeX."""
    out: list[Definition] = []
    for m in TEX.finditer(text):
        plain = _tex_plain(m.group(1) or m.group(2) or "")
        if plain is not None:  # (a piece's own offsets are not the text's: the piece's start stands for them all)
            out += [Definition(d.name, d.text, d.value, m.start(), math_unit or bool(m.group(1)))
                    for d in _found(plain, 0, False)]
    blank = TEX.sub(lambda m: " " * len(m.group(0)), text)
    out += list(_found(blank, 0, math_unit))
    return tuple(out)


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    try:
        return bool(sp.simplify(a - b) == 0)
    except (TypeError, ValueError, ZeroDivisionError):
        return True  # what sympy cannot compare is never flagged


def check_units(units: list[Unit], taken: int = 1000) -> list[tuple[Statement, Finding]]:
    """The formulas of one language's ``units`` that contradict the same name's other formula, each as a new
    statement (numbered from ``taken`` in its unit) with its finding."""
    found = [(u, d) for u in units for d in definitions(u.text, u.kind == "math")
             if u.section != "pitfalls" or d.start > u.text.find("⟹") >= 0]  # a pitfall's mistake, not its fix
    by_name: dict[str, list[tuple[Unit, Definition]]] = {}
    for u, d in found:
        by_name.setdefault(d.name, []).append((u, d))
    out: list[tuple[Statement, Finding]] = []
    for name, uses in by_name.items():
        classes: list[list[tuple[Unit, Definition]]] = []
        for use in uses:
            home = next((c for c in classes if _same(c[0][1].value, use[1].value)), None)
            (home.append(use) if home is not None else classes.append([use]))
        for c in classes:
            rivals = [o for o in classes if o is not c and o[0][1].value.free_symbols == c[0][1].value.free_symbols]
            if not rivals:
                continue
            best = max(rivals, key=len)
            fewer = len(c) < len(best)
            tie = len(c) == len(best) and any(d.display for _u, d in best) and not any(d.display for _u, d in c)
            if not (fewer or tie):
                continue
            other = next((d for _u, d in best if d.display), best[0][1])
            for n, (u, d) in enumerate(c):
                side = Side(d.text, d.value, start=d.start)
                st = Statement(u, taken + len(out) + n, side, sentence=sentence_at(u.text, d.start))
                out.append((st, Finding("contradiction", JUDGE, f"the card defines {name} = {other.text} elsewhere, "
                                        f"not {d.text}", other.text, other.text)))
    return out

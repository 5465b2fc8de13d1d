"""The numbers and formulas a piece of card text states: TeX in ``$...$`` and plain "4×", "50%", "256GB", "16Ψ".

    python -c "from verify.reading.textnums import statements; print(statements('reduces memory by \\$4\\\\times\\$'))"

Each statement is a sympy value with the text it came from and its kind (``multiplier``, ``percent``,
``size``, ``psi``, ``formula``, ``number``). TeX goes through sympy's LaTeX parser
(``sympy.parsing.latex``, ANTLR runtime 4.11); a span it cannot parse is reported with kind
``unparsed`` rather than guessed. Used to keep a claim's quoted text and its ``asserts`` together
(``verify.drift``), to measure coverage and to propose assertions for imported cards.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef

from verify.known.vocabulary import SYMBOLS


@dataclass(frozen=True)
class Statement:
    kind: str
    text: str
    value: sp.Expr | None  # None: unparsed TeX
    digits: int = 0  # decimals written (rounding of the text's number)
    start: int = 0


_NUM = r"(\d+(?:\.\d+)?)"
_TEX = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_TEX_MULT = re.compile(_NUM + r"\s*\\times\s*$")
_TEX_SCI = re.compile(_NUM + r"\s*\\times\s*10\^\{?(-?\d+)\}?")  # 3.40\times10^{38}
_PLAIN = [
    ("multiplier", re.compile(_NUM + r"\s*(?:×|x\b|倍)")),
    ("percent", re.compile(_NUM + r"\s*%")),
    ("size", re.compile(r"(?<![A-Za-z0-9.])" + _NUM + r"\s*(GB/s|Gbps|GiB|GB|MB|MiB|TB|KB|ms|B(?=\b|[^A-Za-z]))")),
    ("psi", re.compile(_NUM + r"\s*Ψ(?:\s*/\s*N)?")),
    ("bytes", re.compile(_NUM + r"[- ]?byte")),
]
_SIZE = {"GB": 10**9, "GiB": 2**30, "MB": 10**6, "MiB": 2**20, "TB": 10**12, "KB": 10**3, "B": 10**9,
         "ms": sp.Rational(1, 1000), "GB/s": 10**9, "Gbps": 10**9}
_SPLIT = re.compile(  # relations and separators (\\le, not \\left)
    r"=|(?:\\approx|\\to|\\rightarrow|\\Rightarrow|\\implies|\\ge|\\le|\\qquad|\\quad)(?![A-Za-z])|<|>|;|,")


def _written(num: str) -> sp.Rational:
    """A number as written ("12.5" is 25/2): exact, as parsed from its digits (sympy's ``nsimplify`` would search
    for a simple form with mpmath's PSLQ, the slowest part of reading a card's text, to reach the same value)."""
    return sp.Rational(num)


def _digits(num: str) -> int:
    return len(num.split(".")[1]) if "." in num else 0


@lru_cache(maxsize=4096)
def parse_tex(tex: str) -> sp.Expr | None:
    """One TeX formula as a sympy expression over the vocabulary's symbols (Ψ → Psi), or None."""
    from sympy.parsing.latex import LaTeXParsingError

    from verify.reading.latex import parse_latex  # sympy's, SLL prediction first: the same result, sooner

    cleaned = (tex.replace(r"\cdot", "*").replace(r"\left", "").replace(r"\right", "")
               .replace(r"\,", " ").replace(r"\;", " ").replace("\\text{", "\\mathrm{").strip())
    if not cleaned or re.search(r"\\(text|mathrm|operatorname|min|max|lceil)", cleaned):
        return None
    try:
        expr = parse_latex(cleaned)
    except (LaTeXParsingError, Exception):  # the ANTLR parser raises its own errors on odd input
        return None
    if not isinstance(expr, sp.Expr):
        return None
    # "\Psi_u(1-1/N)": the parser reads a symbol before parentheses as a function; a vocabulary symbol multiplies
    expr = expr.replace(lambda e: isinstance(e, AppliedUndef) and re.sub(r"[{}]", "", e.func.__name__) in SYMBOLS
                        and len(e.args) == 1,
                        lambda e: SYMBOLS[re.sub(r"[{}]", "", e.func.__name__)] * e.args[0])
    # B_{kv} parses as B_{k*v}, L_{max} as L_{m*(a*x)}: a subscript's letters are one name, not a product
    names = {x: re.sub(r"[{}*()]", "", x.name) for x in expr.free_symbols if isinstance(x, sp.Symbol)}
    return expr.xreplace({x: SYMBOLS[n] for x, n in names.items() if n in SYMBOLS}).doit()


def statements(text: str) -> list[Statement]:
    """Every quantitative statement in ``text`` (TeX first, then plain text outside TeX)."""
    out: list[Statement] = []
    plain = list(text)
    for mt in _TEX.finditer(text):
        tex = mt.group(1) or mt.group(2)
        for i in range(mt.start(), mt.end()):
            plain[i] = " "
        pct = re.fullmatch(r"\s*[<>]?\s*" + _NUM + r"\s*\\%\s*", tex)
        if pct:
            out.append(Statement("percent", mt.group(0), _written(pct.group(1)), _digits(pct.group(1)),
                                 mt.start()))
            continue
        mult = _TEX_MULT.search(tex.strip())
        if mult:
            out.append(Statement("multiplier", mt.group(0), _written(mult.group(1)), _digits(mult.group(1)),
                                 mt.start()))
            continue
        tex = re.sub(r"(\d)\{,\}(\d)", r"\1\2", tex)  # 8{,}388{,}608: TeX's thousands separator
        tex = re.sub(r"\\[;,!: ]", " ", tex)  # TeX spacing (\; \, \!) is not a separator
        parts = [x.strip() for x in _SPLIT.split(tex) if x.strip()]
        for part in parts:
            if re.fullmatch(r"(?:[A-Za-z]|\\[A-Za-z]+)(?:_\{?[a-z0-9]+\}?)?", part):
                continue  # a bare symbol (S_0, t_f): not a statement
            sci = _TEX_SCI.fullmatch(part)
            if sci:  # its rounding is the mantissa's: "3.40×10^38" is 3.40 (× 10^38) to two decimals
                out.append(Statement("sci", part, _written(sci.group(1)) * sp.Integer(10) ** int(sci.group(2)),
                                     _digits(sci.group(1)), mt.start()))
                continue
            pct_part = re.fullmatch(r"[<>]?\s*" + _NUM + r"\s*\\%", part)
            if pct_part:
                out.append(Statement("percent", part, _written(pct_part.group(1)), _digits(pct_part.group(1)),
                                     mt.start()))
                continue
            # a bare number is exact as written (sympy's LaTeX parser makes "0.5" a binary float, 0.05 off by 4e-17)
            value = _written(part) if re.fullmatch(_NUM, part) else parse_tex(part)
            if value is None:
                out.append(Statement("unparsed", part, None, 0, mt.start()))
                continue
            nums = re.findall(_NUM, part)
            out.append(Statement("formula" if value.free_symbols else "number", part, value,
                                 max((_digits(n) for n in nums), default=0), mt.start()))
    rest = "".join(plain)
    for kind, rx in _PLAIN:
        for mt in rx.finditer(rest):
            num = mt.group(1)
            value = _written(num)
            if kind == "size":
                value = value * _SIZE[mt.group(2)]
            elif kind == "psi":
                value = value * SYMBOLS["Psi"] / (SYMBOLS["N"] if "/" in mt.group(0) else 1)
            out.append(Statement(kind, mt.group(0), value, _digits(num), mt.start()))
    return sorted(out, key=lambda s_: s_.start)


_VOCABULARY = frozenset(SYMBOLS.values())


def is_notation(st: Statement) -> bool:
    """A formula that states no quantity: matrices and their products ($XA$, $Y_iB_i$, $W_O$), shapes
    ($X \\in \\mathbb{R}^{bs\\times h}$), a loss and its gradient ($\\nabla L'$), or a fragment with unbalanced
    brackets ($[A_1, \\dots, A_t]$ split at its commas). Formulas over the vocabulary's symbols only are statements."""
    if st.kind not in ("formula", "number"):
        return False
    if re.match(r"\s*[A-NP-Z]\(", st.text):
        return True  # M(k), M(\sqrt{L}): a function's name applied to its argument (O(N) is a statement)
    if any(st.text.count(o) != st.text.count(c) for o, c in ("()", "[]", "{}")) or re.search(r"\\in(?![a-z])", st.text):
        return True
    return st.kind == "formula" and (st.value is None or not all(x in _VOCABULARY for x in st.value.free_symbols))


def candidates(st: Statement) -> list[tuple[sp.Expr, sp.Expr]]:
    """(value, scale) pairs a statement can stand for: "50%" is 0.5, or 1.5 as "50% more"; "256GB" is
    256·10^9 bytes (or 256 in GB). ``scale`` converts the written number's rounding into that value's units."""
    if st.value is None:
        return []
    if st.kind == "percent":
        f, c = st.value / 100, sp.Rational(1, 100)
        return [(f, c), (1 + f, c), (1 - f, c), (st.value, sp.Integer(1))]
    if st.kind in ("size", "sci"):
        written = _written(re.match(_NUM, st.text).group(1))  # type: ignore[union-attr]
        return [(st.value, st.value / written), (written, sp.Integer(1))]
    return [(st.value, sp.Integer(1))]


def _fraction(x: sp.Expr) -> Fraction | None:
    return Fraction(int(x.p), int(x.q)) if isinstance(x, sp.Rational) else None


class Stated:
    """An assertion's literal values prepared for ``matches``: the rationals as sorted exact fractions (a
    statement's rounding window is then one bisection, not one comparison per value: an assertion's values times
    every unit are hundreds), the rest kept for sympy."""

    def __init__(self, values: list[sp.Expr]) -> None:
        self.values = values
        fractions = [_fraction(v) for v in values]
        self.exact = sorted({f for f in fractions if f is not None})
        self.inexact = [v for v, f in zip(values, fractions, strict=True) if f is None]

    def near(self, c: Fraction, bound: Fraction) -> bool:
        """Some rational value within ``bound`` of ``c`` (bound 0: equal)."""
        i = bisect_left(self.exact, c - bound)
        return i < len(self.exact) and self.exact[i] <= c + bound


def matches(st: Statement, stated: Stated) -> bool:
    """True when one of ``stated``'s values (an assertion's literal sub-expressions) equals what ``st`` states,
    within the rounding of the number as written (half a unit of its last digit). Two rationals are compared
    as exact fractions (what sympy would compute, without its per-operation cost); anything else by sympy."""
    half = sp.Rational(1, 2 * 10**st.digits)
    rounded = st.digits or st.kind in ("percent", "size", "sci")  # "33%", "26 GB" are rounded as written
    for c, scale in candidates(st):
        c_f, bound = _fraction(c), _fraction(half * scale)
        others = stated.values
        if c_f is not None and bound is not None:
            if stated.near(c_f, bound if rounded else Fraction(0)):
                return True
            others = stated.inexact  # the rationals are all compared
        for v in others:
            if c.is_number != v.is_number or (not c.is_number and c.free_symbols != v.free_symbols):
                continue
            try:
                d = (c - v) if c.is_number else sp.cancel(c - v)
            except (TypeError, ValueError):
                continue
            if d == 0 or (rounded and d.is_number and abs(d) <= half * scale):
                return True
    return False

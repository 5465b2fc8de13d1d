"""The numbers, formulas and worked equations written in one piece of card text, in either language.

    python -c "from verify.reading.statements import read; print(read('16 × 7×10^9 = 112 GB, 约 45%'))"

A text is read as a reader would: TeX in ``$...$`` (``verify.reading.tex``) and plain text (here: a small
expression grammar over the tokens of ``verify.reading.tokens``: numbers, units, Ψ, the vocabulary's symbols).
Numbers keep how they were written: their unit (pint, ``verify.reading.units``), ``%``, ``×`` / 倍 (a
multiplier), the decimals written (their rounding) and whether ≈ / 约 / about stands before them. Chinese
numerals before 倍 / % / a unit, 百分之…, …分之…, 一半, and "twice" / "half" are read as numbers (cn2an).
A relation chain (``a = b ≈ c``) keeps its sides in order for the arithmetic judge. Nothing is guessed: a
span that does not parse is left out (the caller counts it as unchecked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from verify.reading import units
from verify.reading.tokens import RELATIONS, Tok, tokens

FUNCTIONS = {"sqrt": sp.sqrt, "√": sp.sqrt, "log": sp.log, "log2": lambda x: sp.log(x, 2), "ceil": sp.ceiling,
             "floor": sp.floor, "exp": sp.exp}
CONSTANTS = {"π": sp.pi}
APPROX_WORDS = re.compile(r"(?:≈|~|约|大约|大概|近|roughly|about|around|approximately|approx\.?|nearly)\s*$", re.I)


@dataclass(frozen=True)
class Side:
    """One side of a relation, or a lone number or formula: its text, its value in base units (bytes, seconds,
    FLOP; a percent as a fraction) and the unit kind exponents; for a single written number also how it was
    written (``unit``: pint's name, "%", "×" or ""; ``digits``: decimals written; ``number``: the number as
    written, before its unit)."""

    text: str
    value: sp.Expr
    dims: tuple[tuple[str, int], ...] = ()
    unit: str = ""
    number: sp.Rational | None = None
    digits: int = 0
    approx: bool = False
    start: int = 0

    @property
    def single(self) -> bool:
        return self.number is not None

    @cached_property
    def formula(self) -> bool:
        """The value has symbols (cached: sympy walks the whole expression, and the judges ask again and again)."""
        return bool(self.value.free_symbols)


@dataclass(frozen=True)
class Found:
    """What one span states: a lone side, or a chain of sides joined by relations."""

    sides: tuple[Side, ...]
    ops: tuple[str, ...] = ()
    tex: bool = False

    @property
    def text(self) -> str:
        out = self.sides[0].text
        for op, side in zip(self.ops, self.sides[1:], strict=True):
            out += f" {op} {side.text}"
        return out

    @property
    def start(self) -> int:
        return self.sides[0].start


# ------------------------------------------------------------------ plain-text expressions

class _Parser:
    """expr := term (("+"|"-") term)* ; term := factor (("*"|"/"|implicit) factor)* ; factor := atom ("^" atom)?"""

    def __init__(self, toks: list[Tok], symbols: dict[str, sp.Symbol]) -> None:
        self.toks, self.i, self.symbols = toks, 0, symbols
        self.atoms: list[Tok] = []

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expr(self) -> tuple[sp.Expr, dict[str, int]]:
        value, dims = self.term()
        while (t := self.peek()) is not None and t.kind == "op" and t.text in "+-−":
            self.i += 1
            rhs, rdims = self.term()
            if rdims != dims:
                raise ValueError("adding unlike units")
            value = value + rhs if t.text == "+" else value - rhs
        return value, dims

    def term(self) -> tuple[sp.Expr, dict[str, int]]:
        value, dims = self.factor()
        while (t := self.peek()) is not None:
            if t.kind == "op" and t.text in "×*·/":
                self.i += 1
                rhs, rdims = self.factor()
                sign = -1 if t.text == "/" else 1
                value = value / rhs if sign < 0 else value * rhs
                dims = _combine(dims, rdims, sign)
            elif not t.gap and (t.kind in ("atom", "psi") or (t.kind == "op" and t.text == "(") or
                                (t.kind == "word" and (t.text in self.symbols or t.text in FUNCTIONS or
                                                       t.text in CONSTANTS))):
                rhs, rdims = self.factor()  # implicit multiplication: 2Ψ, sbh, 2(N−1)
                value, dims = value * rhs, _combine(dims, rdims, 1)
            else:
                break
        return value, dims

    def factor(self) -> tuple[sp.Expr, dict[str, int]]:
        value, dims = self.atom()
        t = self.peek()
        if t is not None and t.kind == "op" and t.text == "^":
            self.i += 1
            exp, edims = self.atom()
            if edims or dims:
                raise ValueError("a power of a unit")
            value = value ** exp
        return value, dims

    def atom(self) -> tuple[sp.Expr, dict[str, int]]:
        t = self.peek()
        if t is None:
            raise ValueError("expression ends early")
        self.i += 1
        if t.kind == "atom":
            self.atoms.append(t)
            assert t.value is not None
            if t.extra.get("psi"):
                return t.value * self.symbols["Psi"], {}
            if t.unit == "%":
                return t.value / 100, {}
            if t.unit in ("", "×"):
                return t.value, {}
            base, kind = units.exact_base(t.unit)
            return t.value * base, {kind: 1}
        if t.kind == "psi":
            return self.symbols["Psi"], {}
        if t.kind == "word" and t.text in self.symbols:
            return self.symbols[t.text], {}
        if t.kind == "word" and t.text in CONSTANTS:
            return CONSTANTS[t.text], {}
        if t.kind == "word" and t.text in FUNCTIONS and (n := self.peek()) is not None and \
                (n.text == "(" or t.text == "√" and n.kind in ("atom", "psi", "word")):
            arg, dims = self.factor() if t.text == "√" and n.text != "(" else self.atom()
            if dims:
                raise ValueError("a function of a unit")
            return FUNCTIONS[t.text](arg), {}
        if t.kind == "op" and t.text == "(":
            value, dims = self.expr()
            close = self.peek()
            if close is None or close.text != ")":
                raise ValueError("unbalanced parenthesis")
            self.i += 1
            return value, dims
        if t.kind == "op" and t.text in "-−":
            value, dims = self.atom()
            return -value, dims
        raise ValueError(f"unexpected {t.text!r}")


_RATES = {"bytes/s": "bytes", "FLOP/s": "FLOP"}  # a rate is its amount per second


def _combine(a: dict[str, int], b: dict[str, int], sign: int) -> dict[str, int]:
    """The kinds of a product (``sign`` 1) or quotient (−1), rates taken apart and put back together:
    8 KB ÷ 50 GB/s is seconds, 50 GB/s × 20 ms is bytes, 1 GB ÷ 1 s is bytes/s."""
    out: dict[str, int] = {}
    for kinds, times in ((a, 1), (b, sign)):
        for k, v in kinds.items():
            if k in _RATES:
                out[_RATES[k]] = out.get(_RATES[k], 0) + times * v
                out["seconds"] = out.get("seconds", 0) - times * v
            else:
                out[k] = out.get(k, 0) + times * v
    out = {k: v for k, v in out.items() if v}
    for rate, amount in _RATES.items():
        if out == {amount: 1, "seconds": -1}:
            return {rate: 1}
    return out


def _mantissa(tok: Tok | None) -> sp.Rational | None:
    """The number as written of a lone atom (None: no lone number, or a multiple of Ψ)."""
    if tok is None or tok.extra.get("psi"):
        return None
    m = tok.extra.get("mantissa")
    return m if isinstance(m, sp.Rational) else None


def _side(toks: list[Tok], text: str, symbols: dict[str, sp.Symbol], approx: bool) -> Side | None:
    parser = _Parser(toks, symbols)
    try:
        value, dims = parser.expr()
    except (ValueError, ZeroDivisionError, TypeError):
        return None
    if parser.i != len(toks):
        return None
    start, end = toks[0].start, toks[-1].start + len(toks[-1].text)
    single = parser.atoms[0] if len(toks) == 1 and parser.atoms else None
    return Side(text[start:end].strip(), sp.nsimplify(value) if value.is_Float else value,
                tuple(sorted(dims.items())), single.unit if single else "",
                _mantissa(single),
                single.digits if single else 0, approx, start)


def _runs(toks: list[Tok], symbols: dict[str, sp.Symbol]) -> list[list[Tok]]:
    """Maximal runs of math tokens; a one-letter symbol belongs to a run only next to an operator or number; a
    hyphen between letters ("2Ψ/S-byte") ends a run."""
    runs: list[list[Tok]] = [[]]
    for k, t in enumerate(toks):
        mathy = t.kind in ("atom", "rel", "op", "psi") or (t.kind == "word" and t.text in ("√", *CONSTANTS))
        if t.kind == "op" and t.text == "-" and k + 1 < len(toks) and not toks[k + 1].gap and not t.gap and \
                toks[k + 1].kind == "word" and toks[k + 1].text[:1].isalpha() and toks[k + 1].text not in symbols:
            mathy = False  # "S-byte", "bf16-only": a hyphenated word, not a minus
        elif t.kind == "word" and t.text in symbols:
            before = toks[k - 1] if k > 0 else None
            after = toks[k + 1] if k + 1 < len(toks) else None
            mathy = bool((before and (before.kind in ("op", "rel") or (not t.gap and before.kind in ("atom", "psi",
                                                                                                      "word"))))
                         or (after and (after.kind in ("op", "rel") or (not after.gap and after.kind in ("atom", "psi",
                                                                                                          "word")))))
        if mathy:
            runs[-1].append(t)
        elif t.kind == "word" and t.gap and k > 0 and toks[k - 1].kind == "atom" and k + 1 < len(toks) and \
                toks[k + 1].kind == "op" and toks[k + 1].text in "×*/·":
            continue  # what a number counts, inside a product: "7B params × 2 bytes" (but 4α/2 is no count)
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if any(t.kind in ("atom", "psi") or t.kind == "word" for t in r)]


# where a clause starts: what stands before a relation's left side in the same clause belongs to it
_CLAUSE = re.compile(r"[，。；：;!?！？、\n]|[,:]\s|\s[-–—]\s|⟹|=>|\(|（|\b(?:is|are|of|gives|takes)\b")
_CONTINUES = {"+", "×", "*", "/", "·", "^", "−"}


def _cut_before(text: str, toks: list[Tok], first: Tok, symbols: dict[str, sp.Symbol]) -> bool:
    """An operator waiting for its right operand stands before ``first`` in its clause, with only words between,
    or a letter is glued on: the run's left side starts outside it ("8 workers × prefetch_factor 2 = 16",
    "…(cross-node) + qgZ reduce-scatter 0.25M = 0.75M", "√(10^24/120)"). An operand first ("r + c numbers for an
    r × c matrix"), a relation, an arrow or a clause boundary ends the search."""
    before = text[:first.start]
    if before and (before[-1].isascii() and before[-1].isalnum() or before[-1] in "√π.^"):
        return True
    clause = max((m.end() for m in _CLAUSE.finditer(before)), default=0)
    inside = [t for t in toks if clause <= t.start < first.start]
    for k in range(len(inside) - 1, -1, -1):
        t = inside[k]
        hyphen = t.text == "-" and not t.gap and k + 1 < len(inside) and not inside[k + 1].gap
        suffix = t.text == "+" and not t.gap and k > 0 and inside[k - 1].kind in ("word", "op") and \
            (inside[k - 1].kind == "word" or inside[k - 1].text == "+")  # ZeRO++, C++: part of a name
        if t.kind == "op" and t.text in _CONTINUES | {"-"} and not hyphen and not suffix:
            return True
        if t.kind in ("rel", "stop", "atom", "psi") or (t.kind == "word" and t.text in symbols) or t.text == ")":
            return False
    return False


def _cut_after(text: str, toks: list[Tok], last: Tok, symbols: dict[str, sp.Symbol]) -> bool:
    """An operator continues the run's last side after words in its clause: the side goes on outside the run
    ("6N = 2N for the forward pass + 4N for the backward pass"). An operand, a relation or a clause boundary
    first ends the search."""
    end = last.start + len(last.text)
    stop = next((m.start() + end for m in _CLAUSE.finditer(text[end:])), len(text))
    after = [t for t in toks if end <= t.start < stop]
    for k, t in enumerate(after):
        hyphen = t.text == "-" and not t.gap and k + 1 < len(after) and not after[k + 1].gap
        if t.kind == "op" and t.text in _CONTINUES | {"-"} and not hyphen:
            return k > 0  # (an operator right after the run is the run's own trailing operator)
        if t.kind in ("rel", "stop", "atom", "psi") or t.text in "()" or (t.kind == "word" and t.text in symbols):
            return False  # ("r + c numbers for an r × c matrix": another formula)
    return False


def plain(text: str, symbols: dict[str, sp.Symbol]) -> list[Found]:
    """Everything plain ``text`` (no TeX) states."""
    out: list[Found] = []
    toks = tokens(text)
    for run in _runs(toks, symbols):
        cut_left = bool(run) and (run[0].kind == "op" and run[0].text not in "(-−" or  # "… params × 2 bytes = …"
                                  _cut_before(text, toks, run[0], symbols))
        while run and run[0].kind in ("rel", "op") and run[0].text not in "(-−":
            run = run[1:]
        cut_right = bool(run) and (run[-1].kind == "op" and run[-1].text != ")" or
                                   _cut_after(text, toks, run[-1], symbols))
        while run and (run[-1].kind in ("rel", "op") and run[-1].text != ")"):
            run = run[:-1]
        if not run:
            continue
        rels = [k for k, t in enumerate(run) if t.kind == "rel"]
        if (cut_left or cut_right) and len(rels) >= 2:  # "… / 8 = 544 MiB / 8 = 68 MiB": the chain inside stands
            head, tail = (rels[0] + 1 if cut_left else 0), (rels[-1] if cut_right else len(run))
            out += [Found((s,)) for t in run[:head] + run[tail + 1:] if t.kind == "atom" and not t.extra.get("sup")
                    if (s := _side([t], text, symbols, False))]
            run, cut_left, cut_right = run[head:tail], False, False
        if cut_left or cut_right:  # a side of it is outside the run: its numbers, no relation
            out += [Found((s,)) for t in run if t.kind == "atom" and not t.extra.get("sup")
                    if (s := _side([t], text, symbols, False))]
            continue
        groups: list[list[Tok]] = [[]]
        ops: list[str] = []
        for t in run:
            if t.kind == "rel":
                ops.append(RELATIONS[t.text])
                groups.append([])
            else:
                groups[-1].append(t)
        before = text[max(0, run[0].start - 12):run[0].start]
        sides: list[Side] = []
        for n, g in enumerate(groups):
            if not g:
                sides = []
                break
            approx = (n == 0 and bool(APPROX_WORDS.search(before))) or (n > 0 and ops[n - 1] == "≈")
            side = _side(g, text, symbols, approx)
            if side is None:
                sides = []
                break
            sides.append(side)
        if sides:
            out.append(Found(tuple(sides), tuple(ops)))
        else:  # the run as a whole does not parse: its numbers alone
            out += [Found((s,)) for g in groups for t in g if t.kind == "atom" and not t.extra.get("sup")
                    if (s := _side([t], text, symbols, False)) is not None]
    return out


def value_of(text: str, symbols: dict[str, sp.Symbol], letters: bool = False) -> sp.Expr | None:
    """``text`` as one expression (None: it is not one); ``letters``: adjacent letters are products (TeX)."""
    toks = tokens(text)
    if letters:  # TeX: spaces mean nothing, adjacent letters multiply, "L/k" is a quotient
        split: list[Tok] = []
        for t in toks:
            if t.kind == "word" and "/" in t.text:
                a, b = t.text.split("/", 1)
                split += [Tok("word", a, t.start), Tok("op", "/", t.start + len(a)),
                          Tok("word", b, t.start + len(a) + 1)]
            else:
                split.append(t)
        toks = [x for t in split for x in (_letters(t, symbols) if t.kind == "word" else [t])]
        for t in toks:
            t.gap = False
    if not toks or any(t.kind in ("rel", "stop") for t in toks):
        return None
    parser = _Parser(toks, symbols)
    try:
        value, dims = parser.expr()
    except (ValueError, ZeroDivisionError, TypeError):
        return None
    return value if parser.i == len(toks) and not dims else None


def _letters(t: Tok, symbols: dict[str, sp.Symbol]) -> list[Tok]:
    if t.text in symbols or t.text in FUNCTIONS:
        return [t]
    if all(c in symbols for c in t.text):
        return [Tok("word", c, t.start + n, gap=t.gap and n == 0) for n, c in enumerate(t.text)]
    return [t]

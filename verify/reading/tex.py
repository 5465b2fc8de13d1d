"""TeX in a card's text (``$...$``, ``$$...$$``): numbers with units, percents, multipliers, formulas, chains.

    python -c "from verify.reading.tex import tex_found; print(tex_found('$16\\Psi/N \\approx 2\\Psi$'))"

A piece is first turned into plain math (``\\frac{a}{b}`` → ``(a)/(b)``, ``\\cdot`` → ``*``, ``\\Psi`` → Ψ,
``B_{kv}`` → ``B_kv``, adjacent letters a product) and read by ``verify.reading.mathtext``'s grammar; what that
cannot read goes to sympy's LaTeX parser (``verify.reading.textnums.parse_tex``, ANTLR: a few milliseconds a
formula even in SLL mode, ``verify.reading.latex``, so only as the fallback). A piece is read once per card and
language: the same formula, written again, is the cached side moved to its new place.
"""

from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp

from verify.reading import units
from verify.reading.mathtext import Found, Side, value_of
from verify.reading.textnums import parse_tex
from verify.reading.tokens import _NUM, EXACT

TEX = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)\$", re.S)
_TEX_REL = re.compile(r"(=|\\approx|\\simeq|\\le(?:q)?(?![a-z])|\\ge(?:q)?(?![a-z])|<|>|\\sim(?![a-z]))")
_TEX_OPS = {"=": "=", r"\approx": "≈", r"\simeq": "≈", r"\sim": "≈", r"\le": "<=", r"\leq": "<=", r"\ge": ">=",
            r"\geq": ">=", "<": "<", ">": ">"}


def _tex_side(piece: str, start: int, approx: bool) -> Side | None:
    """A TeX piece as a side: a number with a unit (\\text{GB}), a percent, a multiplier, or a formula."""
    s = _piece_side(piece.strip(), approx)
    return None if s is None else Side(s.text, s.value, s.dims, s.unit, s.number, s.digits, s.approx, start)


@lru_cache(maxsize=16384)
def _piece_side(text: str, approx: bool) -> Side | None:
    """:func:`_tex_side` of a stripped piece, at offset 0. Cached by the piece: a card writes the same formula in
    both languages and often in several sections (3,401 pieces in the bundled cards, 644 of them different)."""
    body = re.sub(r"\\(?:text|mathrm)\{\s*([^{}]*)\}", r" \1", text)
    body = re.sub(r"(\d)\{,\}(\d)", r"\1\2", body).replace(r"\%", "%").replace(r"\,", " ").replace(r"\;", " ")
    body = body.replace(r"\ ", " ").replace("~", " ").strip()
    m = re.fullmatch(r"(" + _NUM + r")(?:\s*\\times\s*10\^\{?(-?\d+)\}?)?\s*(%|\\times|[A-Za-z/]+)?", body)
    if m:
        mantissa = sp.Rational(m.group(1).replace(",", ""))
        value = mantissa * (sp.Integer(10) ** int(m.group(2)) if m.group(2) else 1)
        digits = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
        tail = m.group(3) or ""
        if tail == "%":
            return Side(text, value / 100, (), "%", mantissa, digits, approx)
        if tail == r"\times":
            return Side(text, value, (), "×", mantissa, digits, approx)
        if tail:
            if units.unit(tail) is None:
                return None
            base, kind = units.exact_base(tail)
            return Side(text, value * base, ((kind, 1),), tail, mantissa, digits, approx)
        return Side(text, value, (), "", mantissa, digits, approx)
    power = re.fullmatch(r"(\d+)\^\{?(-?\d+)\}?", body)
    if power:  # 2^{-14}: exact
        exact = sp.Integer(power.group(1)) ** int(power.group(2))
        return Side(text, exact, (), "", exact, EXACT, approx)
    value = fast(body)
    if value is None and to_plain(body) is None:  # TeX the plain grammar does not know: sympy's parser
        value = parse_tex(body)
    if value is None:
        return None
    value = sp.nsimplify(value, rational=True) if value.has(sp.Float) else value
    return Side(text, value, (), "", None, max((len(n.split(".")[1]) for n in re.findall(r"\d+\.\d+", body)),
                                               default=0), approx)


def tex_found(text: str) -> list[Found]:
    """Everything the TeX spans of ``text`` state."""
    out: list[Found] = []
    for mt in TEX.finditer(text):
        tex = mt.group(1) or mt.group(2)
        offset = mt.start(1) if mt.group(1) else mt.start(2)
        for chunk in re.split(r"(?<!\\)[,;](?![^{]*\})|\\quad|\\qquad|\\Rightarrow|\\implies|\\to(?![a-z])", tex):
            if not chunk.strip():
                continue
            parts = _TEX_REL.split(chunk)
            pieces, ops = parts[0::2], [_TEX_OPS[o] for o in parts[1::2]]
            sides: list[Side | None] = [_tex_side(piece, offset + tex.find(piece), n > 0 and ops[n - 1] == "≈")
                                        for n, piece in enumerate(pieces)]
            good = [s for s in sides if s is not None]
            if good and all(s is not None for s in sides):
                out.append(Found(tuple(good), tuple(ops), tex=True))
            else:
                out += [Found((s,), tex=True) for s in good]
    return out


_GREEK = {"Psi": "Ψ", "alpha": "alpha", "beta": "beta", "gamma": "gamma", "delta": "delta", "mu": "mu", "tau": "tau"}


def _braced(s: str, i: int) -> tuple[str, int] | None:
    """The brace group starting at ``s[i] == '{'`` and the index after it."""
    if i >= len(s) or s[i] != "{":
        return None
    depth = 0
    for j in range(i, len(s)):
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1:j], j + 1
    return None


def to_plain(tex: str) -> str | None:
    """Simple TeX as plain math; None when it uses anything else (the ANTLR parser then decides)."""
    out, i = [], 0
    while i < len(tex):
        if tex.startswith(("\\frac", "\\dfrac", "\\tfrac"), i):
            i = tex.index("frac", i) + 4
            a = _braced(tex, i)
            b = _braced(tex, a[1]) if a else None
            if not a or not b:
                return None
            num, den = to_plain(a[0]), to_plain(b[0])
            if num is None or den is None:
                return None
            out.append(f"(({num})/({den}))")
            i = b[1]
        elif tex.startswith("\\sqrt", i):
            a = _braced(tex, i + 5)
            inner = to_plain(a[0]) if a else None
            if inner is None or a is None:
                return None
            out.append(f"sqrt({inner})")
            i = a[1]
        elif tex[i] in "^_" and i + 1 < len(tex) and tex[i + 1] == "{":
            a = _braced(tex, i + 1)
            inner = to_plain(a[0]) if a else None
            if inner is None or a is None:
                return None
            out.append(f"^({inner})" if tex[i] == "^" else "_" + re.sub(r"\W", "", inner))
            i = a[1]
        elif tex[i] == "\\":
            m = re.match(r"\\([A-Za-z]+)", tex[i:])
            if not m:
                out.append(" ")
                i += 2
                continue
            name = m.group(1)
            if name in ("cdot", "times"):
                out.append("*")
            elif name in ("left", "right", "big", "Big", "bigl", "bigr"):
                pass
            elif name in _GREEK:
                out.append(f" {_GREEK[name]} ")
            else:
                return None
            i += len(m.group(0))
        elif tex[i] in "{}":
            out.append({"{": "(", "}": ")"}[tex[i]])
            i += 1
        else:
            out.append(tex[i])
            i += 1
    return "".join(out)


def fast(body: str) -> sp.Expr | None:
    """``body`` read through :func:`to_plain` and the plain grammar, or None."""
    from verify.known.vocabulary import SYMBOLS

    plain = to_plain(body)
    if plain is None:
        return None
    plain = re.sub(r"([A-Za-z])_([A-Za-z0-9]+)", lambda m: m.group(1) + "_" + m.group(2), plain)
    return value_of(plain, dict(SYMBOLS), letters=True)

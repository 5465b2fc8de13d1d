"""The tokens of plain math in card text: numbers merged with what they are written with (a scale such as
``7B`` or ``3 亿``, a unit, ``%``, ``×`` / 倍, Ψ), operators, relations, words.

    python -c "from verify.reading.tokens import tokens; print(tokens('16 × 7×10^9 = 112 GB'))"

A number glued to a name is part of it (E4M3, H100, fp16, ZeRO-3, LLaMA-2-7B, but N-1 is arithmetic); a year
and an enumeration ("1）", "(2)") state no quantity; a unit is a pint unit of information, time or compute
(``verify.reading.units``), and a one-letter unit (s, h, d) needs a space before it and no operator after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from verify.reading import units

EXACT = 15  # the decimals of a number written exactly (a power such as 2^-14)
RELATIONS = {"=": "=", "≈": "≈", "≃": "≈", "~=": "≈", "≅": "≈", "约等于": "≈", "<": "<", ">": ">", "≤": "<=",
             "≥": ">=", "<=": "<=", ">=": ">="}

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_TOKEN = re.compile(
    r"(?P<num>" + _NUM + r")"
    r"(?P<sci>\s*[×x*]\s*10\s*\^\s*\{?\s*[-−]?\d+\}?|[eE][-+]?\d+(?![\w])|\^\s*\{?\s*[-−]?\d+\}?)?"
    r"|(?P<rel>约等于|~=|<=|>=|[=≈≃≅≤≥<>])"
    r"|(?P<sup>[²³])"
    r"|(?P<op>[+\-−×*·/÷^()√])"
    r"|(?P<psi>Ψ|\bPsi\b)"
    r"|(?P<word>[A-Za-zα-ωΑ-Ω_][A-Za-zα-ωΑ-Ω0-9_]*(?:/[A-Za-z]+)?|[\u4e00-\u9fff]+|%|％)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)", re.S)
_SCALE = {"K": 10**3, "k": 10**3, "M": 10**6, "B": 10**9, "T": 10**12, "billion": 10**9, "million": 10**6,
          "thousand": 10**3, "trillion": 10**12, "万": 10**4, "亿": 10**8, "千": 10**3}
_MULT_WORDS = {"×", "x", "倍", "fold", "times"}
# a number glued to a name is part of it: E4M3, H100, fp16, ZeRO-3, GPT-3, LLaMA-2-7B (but N-1 is arithmetic)
_NAME_BEFORE = re.compile(r"[A-Za-z_]$|(?<![_A-Za-z])[A-Za-z]{2,}[-‐]$|(?<![_A-Za-z])[A-Za-z]{2,}[-‐]\d+[-‐]$")
_ORDINAL_ZH = re.compile(r"第\s*$|第\s*\d+\s*[、,，和与]\s*$")  # 第 4、5 维: ordinals
# a number that names one of many: dim 0, rank 0, GPU 3, stage 2, step 0 (an index, not a quantity)
_INDEX_BEFORE = re.compile(r"\b(?:dim|axis|rank|GPU|gpu|device|node|stage|layer|step|epoch|id|index|cuda:?)\s*$")
_YEAR = re.compile(r"(?:19|20)\d\d")
# a year stands after "in", "since", "et al.", an opening parenthesis or a comma, and before a closing one, a
# comma, a full stop or 年: "Rajbhandari et al. 2020", "(Dao, 2022)", "2017 年"; "2048 × 4096" is arithmetic
_YEAR_AL = re.compile(r"\bal\.?,?\s*$")
_YEAR_BEFORE = re.compile(r"(?:\bin|\bsince|[(（,，]|\b(?:January|February|March|April|May|June|July|"
                          r"August|September|October|November|December))\s*$")
_YEAR_AFTER = re.compile(r"\s*(?:[)）(（,，;；]|\.(?!\d)|$)")
_ENUMERATION = re.compile(r"[)）]")
_ENUM_BEFORE = re.compile(r"[\s(（：:；;，,。\u4e00-\u9fff]")


@dataclass(slots=True)
class Tok:
    kind: str  # atom | rel | op | psi | word | stop
    text: str
    start: int
    value: sp.Expr | None = None
    digits: int = 0
    unit: str = ""
    gap: bool = True  # whitespace (or the start) before it: implicit multiplication needs none
    extra: dict[str, object] = field(default_factory=dict)


# a unit as cards spell it after a number; what it means comes from pint (verify.reading.units)
_UNIT_WORD = re.compile(r"(?:[kKMGTPE]i?B|bytes?|[kKMGTP]?bits?|[KMGT]b|Gbps|ms|μs|us|ns|secs?|seconds?|mins?|minutes?"
                        r"|hours?|hrs?|days?|[KMGTP]?FLOPS?|[KMGTP]?FLOPs|[kKMGTP]?FLOP|s|h|d)(?:/s)?$")
# a count a size is divided by ("128 KiB/token", "2 MiB/GPU"): the size is per one of them, the unit is the size's
_PER_COUNT = re.compile(r"/(?:token|tok|GPU|gpu|rank|step|layer|head|block|direction|param|parameter|element|"
                        r"sample|seq|sequence|request|iteration|iter|card)s?$")
_ONE_LETTER_UNITS = {"s", "h", "d"}


def _enumerated(text: str, at: int) -> bool:
    """The number at ``at`` (followed by a closing parenthesis) numbers a list: "1）", " (2) ", not "0.8^(5)"."""
    before = text[:at]
    if before.endswith(("(", "（")):
        before = before[:-1]
    if re.search(r"\d\s*[,，]\s*$|[-−+×*/·]\s*$", before):
        return False  # the last of a list of numbers, "(1, 8, 10)", or arithmetic, "(R − 1)"
    return not before or bool(_ENUM_BEFORE.match(before[-1]))


def _unit_after(word: str, gap: bool, following: str) -> str:
    """``word`` as the unit of the number before it, or "" (a one-letter unit needs a space before it and
    no operator after it: the h of "12h² + 13h" is the hidden size, not hours)."""
    if re.match(r"[\u4e00-\u9fff]", word):
        return next((word[:n] for n in range(len(word), 0, -1) if units.unit(word[:n]) is not None), "")
    word = _PER_COUNT.sub("", word)
    if word == "B" and gap and not re.match(r"\s*[A-Za-z(]", following):
        return "B"  # "4 B = 28 GB": bytes (a glued 7B is seven billion)
    if not _UNIT_WORD.match(word) or units.unit(word) is None:
        return ""
    if word in _ONE_LETTER_UNITS and (not gap or re.match(r"\s*[\^²³(*/+]", following)):
        return ""
    return word


@lru_cache(maxsize=8192)
def _number(num: str, sci: str | None) -> tuple[sp.Rational, int, sp.Rational]:
    """(value, decimals written, the written mantissa): 3.39×10^38 is 3.39 to two decimals, times 10^38; a power
    (2^-14) is exact. Cached: a card writes its numbers again and again, and sympy's arithmetic is slow."""
    value = sp.Rational(num.replace(",", ""))
    digits = len(num.split(".")[1]) if "." in num else 0
    if not sci:
        return value, digits, value
    exp = int(re.sub(r"[^\d\-−+]", "", sci.split("^")[-1] if "^" in sci else sci.strip()[1:]).replace("−", "-"))
    if sci.lstrip().startswith("^"):
        power = value ** exp
        return power, EXACT, power
    return value * sp.Integer(10) ** exp, digits, value


def tokens(text: str) -> list[Tok]:
    """Numbers with what follows them (a scale, a unit, %, ×, Ψ) merged into one atom token. A number glued to
    the letters before it is part of a name (ZeRO-3, E4M3, fp16, H100), not a statement."""
    text = text.replace("\u00b5", "\u03bc")  # the micro sign µ as the Greek μ (µs is μs): the same length
    raw = list(_TOKEN.finditer(text))
    out: list[Tok] = []
    i, gap = 0, True
    while i < len(raw):
        m = raw[i]
        kind = m.lastgroup or "other"
        if kind == "space":
            gap = True
            i += 1
            continue
        if kind == "word":  # the most frequent token, first
            out.append(Tok("word", m.group(0), m.start(), gap=gap))
            i, gap = i + 1, False
            continue
        if kind == "sci":
            kind = "num"  # (the last group a number with an exponent closes)
        at = m.start()  # the text before a number is searched up to it: rx.search(text, 0, at) is rx.search(text[:at])
        if kind == "num" and (_NAME_BEFORE.search(text, 0, at) or _ORDINAL_ZH.search(text, 0, at)
                              or _INDEX_BEFORE.search(text, 0, at) and not m.group("sci")
                              and "." not in m.group(0)):
            out.append(Tok("word", m.group(0), m.start(), gap=gap))  # part of a name: E4M3, ZeRO-3, fp16
            i, gap = i + 1, False
            continue
        if kind == "num":
            value, digits, mantissa = _number(m.group("num"), m.group("sci"))
            tok = Tok("atom", m.group(0), m.start(), value, digits, gap=gap)
            tok.extra["mantissa"] = mantissa
            j = i + 1
            if j < len(raw) and raw[j].lastgroup == "word" and raw[j].group(0) in _SCALE and \
                    (raw[j].group(0) not in "KMBTk" or True):  # 7B, 1.4T, 128K glued on
                tok.value = sp.Integer(_SCALE[raw[j].group(0)]) * value  # 7B: 7 (written) billion
                tok.text, j = text[m.start():raw[j].end()], j + 1
            elif j + 1 < len(raw) and raw[j].lastgroup == "space" and raw[j + 1].group(0) in _SCALE and \
                    len(raw[j + 1].group(0)) > 1 or (j + 1 < len(raw) and raw[j].lastgroup == "space"
                                                     and raw[j + 1].group(0) in ("万", "亿", "千")):
                tok.value = sp.Integer(_SCALE[raw[j + 1].group(0)]) * value  # 7 billion, 3 亿
                tok.text, j = text[m.start():raw[j + 1].end()], j + 2
            if j + 1 < len(raw) and raw[j].group(0) == "-" and raw[j + 1].group(0) in ("bit", "bits", "byte", "bytes"):
                tok.unit, tok.text = raw[j + 1].group(0), text[m.start():raw[j + 1].end()]  # "16-bit", "4-byte"
                j += 2
            spaced = j < len(raw) and raw[j].lastgroup == "space"
            k = j + 1 if spaced else j
            if k < len(raw):
                nxt = raw[k]
                word, rest = nxt.group(0), text[nxt.end():nxt.end() + 3]
                if nxt.lastgroup == "word" and word in ("%", "％"):
                    tok.unit, tok.text, j = "%", text[m.start():nxt.end()], k + 1
                elif (nxt.lastgroup == "op" and word == "×" or nxt.lastgroup == "word" and word in _MULT_WORDS) \
                        and not _followed_by_operand(raw, k + 1):
                    tok.unit, tok.text, j = "×", text[m.start():nxt.end()], k + 1
                elif nxt.lastgroup == "word" and word.startswith("倍") and len(word) > 1:
                    tok.unit, tok.text, j = "×", text[m.start():nxt.start() + 1], k + 1  # 1.75 倍消息大小: 倍 ends
                elif nxt.lastgroup == "psi":
                    tok.extra["psi"] = True  # 16Ψ: the parser multiplies by the vocabulary's Ψ
                    tok.text, j = text[m.start():nxt.end()], k + 1
                elif nxt.lastgroup == "word" and (unit_ := _unit_after(word, spaced, rest)):
                    spelled = len(word) if _PER_COUNT.search(word) else len(unit_)
                    tok.unit, tok.text, j = unit_, text[m.start():nxt.start() + spelled], k + 1
            if _YEAR.fullmatch(tok.text.strip()) and not tok.unit and (
                    re.match(r"\s*年", text[tok.start + 4:]) or _YEAR_AL.search(text[:tok.start]) or (
                        _YEAR_BEFORE.search(text[:tok.start]) and _YEAR_AFTER.match(text, tok.start + 4))):
                tok.kind = "word"  # a year (Rajbhandari et al. 2020) states no quantity
            elif _ENUMERATION.match(text, m.end()) and re.fullmatch(r"\d{1,2}", tok.text) and \
                    _enumerated(text, m.start()):
                tok.kind = "word"  # "1）…；2）…", "(1) … (2)": an enumeration
            out.append(tok)
            i, gap = j, False
            continue
        if kind == "sup":  # h², 300³: a power
            out.append(Tok("op", "^", m.start(), gap=gap))
            two = sp.Integer(2 if m.group(0) == "²" else 3)
            out.append(Tok("atom", m.group(0), m.start(), two, EXACT, gap=False, extra={"mantissa": two, "sup": True}))
        elif kind == "op" and m.group(0) == "÷":
            out.append(Tok("op", "/", m.start(), gap=gap))
        elif kind == "op" and m.group(0) == "√":
            out.append(Tok("word", "√", m.start(), gap=gap))
        elif kind in ("rel", "op", "psi", "word"):
            out.append(Tok(kind, m.group(0), m.start(), gap=gap))
        elif m.group(0) not in " \t":
            out.append(Tok("stop", m.group(0), m.start(), gap=gap))
        i, gap = i + 1, False
    return _split_symbols(_names(out, text))


_MATH_NEAR = re.compile(r"[+*/^=<>×·≈≤≥²³]")


def _names(toks: list[Tok], text: str) -> list[Tok]:
    """A number glued to letters that are no unit, scale or Ψ ("3D", "4th", "1F1B") is a name, unless an operator
    stands next to it ("12h² + 13h", "5as/(ht)") or the letters are two or more symbols ("4sbV/t bytes")."""
    from verify.known.vocabulary import SYMBOLS as symbols

    for k, t in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if t.kind != "atom" or t.unit or t.extra.get("psi") or t.extra.get("sup") or nxt is None or nxt.gap \
                or nxt.kind != "word" \
                or not nxt.text[:1].isalpha() or nxt.text in ("π", "√"):
            continue
        if re.fullmatch(r"st|nd|rd|th", nxt.text):
            t.kind = "word"  # 4th, 1st: an ordinal
            continue
        if len(nxt.text) >= 2 and all(c in symbols or c == "/" for c in nxt.text) and nxt.text[0] != "/":
            continue  # a coefficient of symbols: 4sbV/t, 6bsh (but 3D is a name)
        around = text[max(0, t.start - 3):t.start] + text[nxt.start + len(nxt.text):nxt.start + len(nxt.text) + 3]
        if not _MATH_NEAR.search(around):
            t.kind = "word"
    return toks


def _glue(n: Tok) -> bool:
    return n.kind in ("atom", "psi") or (n.kind == "op" and n.text in "()*/^·")


def _split_symbols(toks: list[Tok]) -> list[Tok]:
    """A word of one-letter vocabulary symbols glued to math ("sbh(", "5as", "ht)") as one symbol per letter."""
    from verify.known.vocabulary import SYMBOLS

    out: list[Tok] = []
    for k, t in enumerate(toks):
        text = t.text
        if t.kind != "word" or not (1 < len(text) <= 5 or "/" in text and len(text) <= 9):
            out.append(t)  # (the cheap tests first: most tokens are words no symbols spell, or no words)
            continue
        glued = (k > 0 and not t.gap and _glue(toks[k - 1])) or \
                (k + 1 < len(toks) and not toks[k + 1].gap and _glue(toks[k + 1]))
        if 1 < len(text) <= 5 and glued and all(c in SYMBOLS for c in text):
            out += [Tok("word", c, t.start + n, gap=t.gap and n == 0) for n, c in enumerate(text)]
        elif "/" in text and glued and len(text) <= 9 and \
                all(c in SYMBOLS or c == "/" for c in text) and not units.unit(text):  # "5as/h", "V/t"
            out += [Tok("op" if c == "/" else "word", c, t.start + n, gap=t.gap and n == 0)
                    for n, c in enumerate(text)]
        else:
            out.append(t)
    return out


def _followed_by_operand(raw: list[re.Match[str]], k: int) -> bool:
    """A number, Ψ, a parenthesis, or a product of symbols in math ("34 × sbh / 8", "5 × a × s × b",
    "160 × sbh = 2.5 GiB": then × multiplies, it is no "34×" multiplier; "1.5× the cost" is one)."""
    while k < len(raw) and raw[k].lastgroup == "space":
        k += 1
    if k < len(raw) and raw[k].lastgroup == "word" and _symbol_product(raw[k].group(0)):
        after = k + 1
        while after < len(raw) and raw[after].lastgroup == "space":
            after += 1
        return after < len(raw) and raw[after].lastgroup in ("op", "rel")
    return k < len(raw) and (bool(raw[k].group("num")) or raw[k].lastgroup == "psi" or raw[k].group(0) == "(")


def _symbol_product(word: str) -> bool:
    from verify.known.vocabulary import SYMBOLS

    return 1 <= len(word) <= 5 and all(c in SYMBOLS for c in word)



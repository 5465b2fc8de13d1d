"""Facts that code produces: a number the text gives for a number format (fp32, fp16, bf16, FP8 E4M3 / E5M2).

    python -c "from verify.judge.statements.facts import check_text; print(check_text('fp16 max 65500'))"

The format is the nearest one the sentence names before the number (in a table row: the row's first cell);
what the number is (largest value, smallest normal or subnormal, epsilon, exponent or mantissa bits, bits,
bytes) is the word next to it ("max 448", "7 位尾数", "10 mantissa bits"; in a table: its column's header).
Against ``verify.known.facts`` (torch.finfo, torch.iinfo and decoded bit patterns): equal within the written rounding →
``confirmed``; else ``refuted`` with the value the code gives. A number no such word names is left to the other
judges ("S = 8" is no exponent width).
"""

from __future__ import annotations

import re
from functools import lru_cache

from verify.judge.statements.findings import Finding, number, tolerance
from verify.known.facts import table
from verify.reading import units
from verify.reading.statements import Statement

JUDGE = "fact"
_UNSIGNED = r"(?:无符号|unsigned)\s*(?:的\s*)?"  # "无符号 int4", "unsigned int8": the unsigned type
_SIGNED = r"(?<!无符号 )(?<!无符号)(?<!unsigned )"
NAMES = {"fp32": r"\b(?:fp32|FP32|float32|single[- ]precision)\b|单精度",
         "fp16": r"\b(?:fp16|FP16|float16|half[- ]precision)\b|半精度",
         "bf16": r"\b(?:bf16|BF16|bfloat16|BFloat16)\b",
         "fp8_e4m3": r"\b(?:E4M3|e4m3|float8_e4m3fn|fp8_e4m3)\b", "fp8_e5m2": r"\b(?:E5M2|e5m2|float8_e5m2|fp8_e5m2)\b",
         "int8": _SIGNED + r"\b(?:int8|INT8|torch\.int8)\b", "uint8": r"\b(?:uint8|UINT8)\b|" + _UNSIGNED + "int8\\b",
         "int16": r"\b(?:int16|INT16)\b", "int32": r"\b(?:int32|INT32)\b",
         "int4": _SIGNED + r"\b(?:int4|INT4)\b", "uint4": r"\b(?:uint4|UINT4)\b|" + _UNSIGNED + "int4\\b"}
CUES = {  # most specific first: "exponent bits" is exponent_bits, not bits
    "smallest_subnormal": r"subnormal|denormal|次正规|非正规",
    "smallest_normal": r"smallest normal|min(?:imum)? normal|最小正规",
    "max": r"\bmax(?:ima|imum|imums)?\b|largest|最大|上限",
    "min": r"\bmin(?:imum)?\b|smallest value|最小值|下限",
    "eps": r"epsilon|\beps\b|机器精度|ε",
    "exponent_bits": r"exponent|指数",
    "mantissa_bits": r"mantissa|significand|fraction bits|尾数|有效位",
    "bytes": r"\bbytes?\b|字节",
    "bits": r"\bbits?\b|位",
}
WORDS = {"max": "largest finite value", "min": "smallest value", "levels": "values",
         "smallest_normal": "smallest normal value", "smallest_subnormal": "smallest subnormal value",
         "eps": "machine epsilon", "exponent_bits": "exponent bits", "mantissa_bits": "mantissa bits", "bits": "bits",
         "bytes": "bytes"}
_SEP = re.compile(r"[,，、;；:：()（）|]")
_CUES = [(fact, re.compile(rx, re.I)) for fact, rx in CUES.items()]


_OWN = re.compile(r"([A-Za-z][\w.]*)\s*[=＝:：]\s*$")


def _subject(sentence: str, pos: int) -> str | None:
    own = _OWN.search(sentence, 0, pos)  # (as in sentence[:pos])
    if own and re.search(r"\d", own.group(1)):  # "E3M2 = 28": the number is that name's, known or not
        return next((fmt for fmt, rx in NAMES.items() if re.fullmatch(rx, own.group(1))), None)
    best: tuple[int, str] | None = None
    for start, fmt in _mentions(sentence):
        if start <= pos and (best is None or start > best[0]):
            best = (start, fmt)
    if best is None:  # named after the number only ("448 is E4M3's max")
        after = _mentions(sentence)
        return min(after)[1] if after else None
    return best[1]


@lru_cache(maxsize=8192)
def _mentions(sentence: str) -> tuple[tuple[int, str], ...]:
    """Where ``sentence`` names a format: (start, format), format by format in ``NAMES`` order, each's in the order
    written (cached: every number of a unit asks)."""
    return tuple((m.start(), fmt) for fmt, rx in NAMES.items() for m in re.finditer(rx, sentence))


@lru_cache(maxsize=8192)
def _cue(text: str) -> str | None:
    """The property the nearest cue word names ("7 位尾数下指数和…": mantissa bits); the generic "bits" and
    "bytes" give way to a specific cue within three characters of them ("位尾数", "exponent bits")."""
    found = [(m.start() + (3 if fact in ("bits", "bytes") else 0), n, fact)
             for n, (fact, rx) in enumerate(_CUES) if (m := rx.search(text))]
    return min(found)[2] if found else None


def _context(sentence: str, start: int, end: int) -> str | None:
    """What the number is, from the words of its own clause: those right after it first ("10 mantissa bits",
    "7 位尾数"; up to a separator or the next number), else those before it ("max 448", "最大值 65504")."""
    right = re.split(r"\d", _SEP.split(sentence[end:end + 16])[0], maxsplit=1)[0]
    left = re.split(r"\d", _SEP.split(sentence[max(0, start - 24):start])[-1][::-1], maxsplit=1)[0][::-1]
    return _cue(right) or _cue(left[-14:])


_RANGE = re.compile(r"[\[(（]\s*([-−]?[\d.,^×\-−]+)\s*[,，]\s*([-−]?[\d.,^×\-−]+)\s*[\])）]")
_TRIPLE = re.compile(r"[(（]\s*1\s*[,，]\s*(\d+)\s*[,，]\s*(\d+)\s*[)）]")


_COMPARED = re.compile(r"(?:多|少|more|fewer|extra|an extra)\s*$")
_MORE = re.compile(r"\s*(?:more|fewer|extra|additional)\b")
_PLUS_MINUS = re.compile(r"±\s*$")


def _position(text: str, span: tuple[int, int]) -> str | None:
    """The property a number's place says: a range "[−128, 127]" (its ends are the smallest and largest value) or
    "±448" (the largest), a (sign, exponent, mantissa) triple "(1, 8, 7)" (bit counts)."""
    for m in _TRIPLE.finditer(text):
        if m.start(1) <= span[0] < m.end(1):
            return "exponent_bits"
        if m.start(2) <= span[0] < m.end(2):
            return "mantissa_bits"
    for m in _RANGE.finditer(text):
        if m.start(1) <= span[0] < m.end(1):
            return "min"
        if m.start(2) <= span[0] < m.end(2):
            return "max"
    return "max" if _PLUS_MINUS.search(text, 0, span[0]) else None  # "E5M2 (±57344)": its range


_LIST_ITEM = re.compile(r"\s*(?:[,，、;；]|and|和|与)?\s*[A-Za-z][\w.]*\s*[=＝:]\s*[-−]?[\d.,^×]+\s*")


def _lead_in(text: str, span: tuple[int, int]) -> str | None:
    """The property a list names before its colon: "Maxima of the formats: E4M3 = 448, E5M2 = 57344" (the number
    is one of the list's "name = value" items)."""
    colon = max(text.rfind(":", 0, span[0]), text.rfind("：", 0, span[0]))
    if colon < 0:
        return None
    items = text[colon + 1:span[1]]
    pos = 0
    while pos < len(items) and (m := _LIST_ITEM.match(items, pos)) and m.end() > pos:
        pos = m.end()
    return _cue(text[max(0, colon - 40):colon]) if pos >= len(items.rstrip()) else None


def _start(st: Statement, span: tuple[int, int]) -> int:
    """Where the statement starts: a relation's left side ("machine epsilon of 2^-24 ≈ 5.96×10^-8")."""
    if st.right is None:
        return span[0]
    at = st.unit.text.rfind(st.left.text, 0, span[0] + 1)
    return at if at >= 0 else span[0]


def _find(st: Statement) -> tuple[int, int] | None:
    """Where the statement's value stands in its unit (at the side's own offset: "[−128, 128]" has two 128s)."""
    text, side = st.unit.text, st.value_side
    if text.startswith(side.text, side.start):
        return side.start, side.start + len(side.text)
    at = text.find(side.text, max(0, side.start - 24))
    at = at if at >= 0 else text.find(side.text)
    return (at, at + len(side.text)) if at >= 0 else None


def check(st: Statement) -> Finding | None:
    side = st.value_side
    value = number(side)
    if value is None or side.unit in ("%", "×") or (st.right is not None and st.op not in ("=", "≈")):
        return None
    if st.right is not None and st.left.dims and st.left.dims != (("bytes", 1),):
        return None  # "3.35 TB/s / 37.2 GB ≈ 90": a rate worked out, no property of a number format
    span = _find(st)
    if span is None:
        return None
    text = st.unit.text
    sure = False  # the number's place says what it is ("±448"): no closeness to the truth asked
    if st.unit.kind == "row" and st.unit.header:
        cells, heads = text.split("|"), st.unit.header.split("|")
        col = text[:span[0]].count("|")
        fmt = next((f for f, rx in NAMES.items() if len(cells) > 1 and re.search(rx, cells[1])), None)
        fact = _cue(heads[col]) if col < len(heads) and len(heads) == len(cells) else None
    else:
        fmt = _subject(text, span[0])
        start = _start(st, span)
        fact = _position(text, span) or _context(text, start, span[1]) or _lead_in(text, span)
        sure = bool(_PLUS_MINUS.search(text, 0, span[0]))
        if _COMPARED.search(text[max(0, start - 4):start]) or _MORE.match(text, span[1]):
            return None  # "多 1 位尾数", "1 more mantissa bit": a difference between formats, no property
    if fmt is None:
        return None
    if fact is None:
        return None  # a number no word says is a property ("S = 8" is no exponent width)
    if side.dims == (("bytes", 1),) and (fact.endswith("_bits") or fact == "bits") and side.unit and \
            "bit" in str(units.unit(side.unit)):
        value *= 8  # "7 位", "10 bits": read in bytes, compared in bits
    # the nearest format first, then any the sentence names; "E5M2 (±448)" is E5M2's own range, no other's
    named = [fmt] if sure else [f for f, rx in NAMES.items() if re.search(rx, text)] or [fmt]
    tol = tolerance(side) * (8 if side.dims and fact.endswith("bits") and side.unit else 1)
    for f in [fmt, *(x for x in named if x != fmt)]:  # the nearest format first, then any the sentence names
        facts = table()[f]
        hits = [k for k, v in facts.items() if k == fact and abs(float(v) - value) <= tol]
        if hits:
            return Finding("confirmed", JUDGE, f"{_name(f)}: {WORDS[hits[0]]} {_show(float(facts[hits[0]]))} "
                                               f"({_source(f)})")
    if fact in ("bits", "bytes") or (side.unit and not (fact.endswith("_bits") and side.dims == (("bytes", 1),))):
        return None  # "16 bytes per parameter" counts something else; only a named property is refuted
    truth = float(table()[fmt][fact])
    if not sure and not _close(truth, value, fact):  # ("±448" says what the number is: no closeness asked)
        return None  # far from the fact: the number is about something else
    return Finding("refuted", JUDGE, f"{_name(fmt)}: {WORDS[fact]} is {_show(truth)} ({_source(fmt)}), not {side.text}",
                   _show(truth))


def _source(fmt: str) -> str:
    return "torch.iinfo" if fmt.startswith(("int", "uint")) else "torch.finfo"


def _name(fmt: str) -> str:
    return fmt.replace("fp8_", "").upper() if fmt.startswith("fp8") else fmt


def _close(truth: float, value: float, fact: str) -> bool:
    """A number plausibly written for this fact: bit counts within 8, values within a factor of 16 (of the same
    sign)."""
    if fact.endswith("_bits"):
        return abs(truth - value) <= 8
    if truth < 0:
        truth, value = -truth, -value
    return value > 0 and 1 / 16 <= value / truth <= 16


def _show(x: float) -> str:
    if x and (abs(x) >= 1e6 or abs(x) < 1e-3):
        import math

        exp = math.log2(abs(x))
        if abs(exp - round(exp)) < 1e-12:
            return f"2^{round(exp)}"
        return f"{x:.4g}"
    return f"{x:g}"


def check_text(text: str) -> list[tuple[str, str]]:
    from verify.reading.pairing import Unit
    from verify.reading.statements import unit_statements

    out = []
    for st in unit_statements(Unit("en", "summary", 0, "para", text)):
        got = check(st)
        if got is not None:
            out.append((st.text, f"{got.verdict}: {got.detail}"))
    return out

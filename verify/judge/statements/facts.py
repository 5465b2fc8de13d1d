"""Facts that code produces: a number the text gives for a number format (fp32, fp16, bf16, FP8 E4M3 / E5M2).

    python -c "from verify.judge.statements.facts import check_text; print(check_text('fp16 max 65500'))"

The format is the nearest one the sentence names before the number (in a table row: the row's first cell);
what the number is (largest value, smallest normal or subnormal, epsilon, exponent or mantissa bits, bits,
bytes) is the word next to it ("max 448", "7 位尾数", "10 mantissa bits"; in a table: its column's header).
Against ``verify.known.facts`` (torch.finfo and decoded bit patterns): equal within the written rounding →
``confirmed``; else ``refuted`` with the value the code gives. A number with no such word is confirmed when it
equals one of the format's facts and otherwise left to the other judges.
"""

from __future__ import annotations

import re

from verify.judge.statements.findings import Finding, number, tolerance
from verify.known.facts import table
from verify.reading.statements import Statement

JUDGE = "fact"
NAMES = {"fp32": r"\b(?:fp32|FP32|float32|single[- ]precision)\b|单精度",
         "fp16": r"\b(?:fp16|FP16|float16|half[- ]precision)\b|半精度",
         "bf16": r"\b(?:bf16|BF16|bfloat16|BFloat16)\b",
         "fp8_e4m3": r"\b(?:E4M3|e4m3|float8_e4m3fn|fp8_e4m3)\b", "fp8_e5m2": r"\b(?:E5M2|e5m2|float8_e5m2|fp8_e5m2)\b"}
CUES = {  # most specific first: "exponent bits" is exponent_bits, not bits
    "smallest_subnormal": r"subnormal|denormal|次正规|非正规",
    "smallest_normal": r"smallest normal|min(?:imum)? normal|最小正规",
    "max": r"\bmax(?:imum)?\b|largest|最大|上限",
    "eps": r"epsilon|\beps\b|机器精度|ε",
    "exponent_bits": r"exponent|指数",
    "mantissa_bits": r"mantissa|significand|fraction bits|尾数|有效位",
    "bytes": r"\bbytes?\b|字节",
    "bits": r"\bbits?\b|位",
}
WORDS = {"max": "largest finite value", "smallest_normal": "smallest normal value", "smallest_subnormal":
         "smallest subnormal value", "eps": "machine epsilon", "exponent_bits": "exponent bits",
         "mantissa_bits": "mantissa bits", "bits": "bits", "bytes": "bytes"}
_SEP = re.compile(r"[,，、;；:：()（）|]")


def _subject(sentence: str, pos: int) -> str | None:
    best: tuple[int, str] | None = None
    for fmt, rx in NAMES.items():
        for m in re.finditer(rx, sentence):
            if m.start() <= pos and (best is None or m.start() > best[0]):
                best = (m.start(), fmt)
    if best is None:  # named after the number only ("448 is E4M3's max")
        after = [(m.start(), fmt) for fmt, rx in NAMES.items() for m in re.finditer(rx, sentence)]
        return min(after)[1] if after else None
    return best[1]


def _cue(text: str) -> str | None:
    for fact, rx in CUES.items():
        if re.search(rx, text, re.I):
            return fact
    return None


def _context(sentence: str, start: int, end: int) -> str:
    """The words of the number's own clause next to it (up to the next separator either way)."""
    left = _SEP.split(sentence[max(0, start - 24):start])[-1]
    right = _SEP.split(sentence[end:end + 16])[0]
    return left[-14:] + " " + right


def _find(st: Statement) -> tuple[int, int] | None:
    text = st.unit.text
    at = text.find(st.value_side.text)
    return (at, at + len(st.value_side.text)) if at >= 0 else None


def check(st: Statement) -> Finding | None:
    side = st.value_side
    value = number(side)
    if value is None or side.unit in ("%", "×") or (st.right is not None and st.op not in ("=", "≈")):
        return None
    span = _find(st)
    if span is None:
        return None
    text = st.unit.text
    if st.unit.kind == "row" and st.unit.header:
        cells, heads = text.split("|"), st.unit.header.split("|")
        col = text[:span[0]].count("|")
        fmt = next((f for f, rx in NAMES.items() if len(cells) > 1 and re.search(rx, cells[1])), None)
        fact = _cue(heads[col]) if col < len(heads) and len(heads) == len(cells) else None
    else:
        fmt = _subject(text, span[0])
        fact = _cue(_context(text, span[0], span[1]))
    if fmt is None:
        return None
    named = [f for f, rx in NAMES.items() if re.search(rx, text)] or [fmt]
    tol = tolerance(side)
    for f in [fmt, *(x for x in named if x != fmt)]:  # the nearest format first, then any the sentence names
        facts = table()[f]
        hits = [k for k, v in facts.items() if (fact is None or k == fact) and abs(float(v) - value) <= tol]
        if hits:
            return Finding("confirmed", JUDGE, f"{_name(f)}: {WORDS[hits[0]]} {_show(float(facts[hits[0]]))} "
                                               "(torch.finfo)")
    if fact is None or fact in ("bits", "bytes") or side.unit:
        return None  # "16 bytes per parameter" counts something else; only a named property is refuted
    truth = float(table()[fmt][fact])
    if not _close(truth, value, fact):
        return None  # far from the fact: the number is about something else
    return Finding("refuted", JUDGE, f"{_name(fmt)}: {WORDS[fact]} is {_show(truth)} (torch.finfo), not {side.text}",
                   _show(truth))


def _name(fmt: str) -> str:
    return fmt.replace("fp8_", "").upper() if fmt.startswith("fp8") else fmt


def _close(truth: float, value: float, fact: str) -> bool:
    """A number plausibly written for this fact: bit counts within 8, values within a factor of 16."""
    if fact.endswith("_bits"):
        return abs(truth - value) <= 8
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

"""A typed answer as a quantity: the number *and* its unit, read against the unit the drill asks for.

A person answering "28.06 GB" may type ``26.13 GiB``, ``0.02806 TB``, ``28060 MB`` or ``28.06 吉字节``: all are
the right amount. ``28.06 TB`` or ``28.06 GiB`` are not, and neither is ``28.06 ms`` (another kind of quantity);
the feedback then says what was written and what it amounts to in the drill's unit ("you wrote TB; 28.06 TB is
28,060 GB"). ``229%`` for a ratio in × is 2.29×, ``2.29倍`` is 2.29×, ``520万`` is 5.2 M; a bare number takes the
drill's unit. Units are read by pint through ``verify.reading.units`` (the verifier's own reader, torch-free,
so one reader serves both) and Chinese numerals by cn2an through ``verify.reading.numerals``. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from app.items.answers import AnswerError, split_number
from verify.reading import units
from verify.reading.numerals import chinese

_CN = "零〇一二两三四五六七八九十百千万亿点"
_CN_NUMBER = re.compile(r"^\s*(?:约|大约)?\s*([" + _CN + r"]+)\s*(.*)$")
_SCALES = {"万": 1e4, "亿": 1e8, "k": 1e3, "K": 1e3, "M": 1e6, "million": 1e6, "百万": 1e6, "千万": 1e7,
           "B": 1e9, "billion": 1e9, "十亿": 1e9, "T": 1e12, "trillion": 1e12}
_RATIO = {"×": 1.0, "x": 1.0, "X": 1.0, "倍": 1.0, "times": 1.0, "%": 0.01, "percent": 0.01}
# words a drill's countable unit may be typed as (singular, plural, Chinese)
_WORDS = {"layers": ("layer", "layers", "层"), "tokens": ("token", "tokens", "个token", "个 token"),
          "sequences": ("sequence", "sequences", "seq", "seqs", "条", "条序列", "个序列", "序列")}
_COUNT_SCALE = {"M": 1e6}  # a drill in millions (parameters, tokens): a scale word is its unit


@dataclass(frozen=True)
class Typed:
    """What the learner typed, in the drill's unit (``value``); ``unit_written`` is the unit as typed ("" for
    a bare number); ``mismatch`` is the feedback when that unit is not the drill's and cannot be converted to
    the same amount (None when the unit is fine)."""

    value: float
    unit_written: str
    mismatch: dict[str, str] | None = None
    amount: float | None = None  # the number as typed, before conversion


def _fmt(value: float) -> str:
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"


KIND_WORDS = {"bytes": ("an amount of data", "数据量"), "bytes/s": ("a bandwidth", "带宽"),
               "seconds": ("a time", "时间"), "FLOP": ("a count of operations", "运算量"),
               "FLOP/s": ("a compute rate", "算力"), "": ("not a unit of this answer", "不是这道题的单位")}


def wrong_unit(written: str, value: float, drill_unit: str, converted: float | None, kind: str | None = None
           ) -> dict[str, str]:
    if kind is not None:
        en, zh = KIND_WORDS.get(kind, KIND_WORDS[""])
        return {"en": f"you wrote {written} ({en}); the question asks for {drill_unit}",
                "zh": f"你写的单位是 {written}（{zh}），题目要求的是 {drill_unit}"}
    if converted is not None:
        return {"en": f"you wrote {written}; {_fmt(value)} {written} is {_fmt(converted)} {drill_unit}",
                "zh": f"你写的单位是 {written}；{_fmt(value)} {written} 等于 {_fmt(converted)} {drill_unit}"}
    return {"en": f"you wrote {written}; the question asks for {drill_unit}",
            "zh": f"你写的单位是 {written}，题目要求的是 {drill_unit}"}


def number_of(typed: str) -> tuple[float, str]:
    """The number a typed answer starts with, Chinese numerals included (二十八点零六 吉字节 → 28.06, "吉字节"),
    and what is written after it."""
    text = unicodedata.normalize("NFKC", typed or "").strip()
    m = _CN_NUMBER.match(text)
    if m:  # 二十八点零六 吉字节, 三千万
        value = chinese(m.group(1))
        if value is not None:
            return float(value), m.group(2).strip()
    return split_number(typed)


def _scaled(value: float, written: str) -> tuple[float, str]:
    """``520万`` → 5.2e6 with no unit left; ``1.5 万 tokens`` → 15000 tokens."""
    for word in sorted(_SCALES, key=len, reverse=True):
        if written == word or written.startswith(word + " ") or (written.startswith(word) and not word.isascii()):
            return value * _SCALES[word], written[len(word):].strip()
    return value, written


def _ratio(value: float, written: str, drill_unit: str) -> Typed:
    if written in _RATIO:
        return Typed(value * _RATIO[written] / _RATIO[drill_unit], written, amount=value)
    return Typed(value, written, wrong_unit(written, value, drill_unit, None))


def read(typed: str, drill_unit: str) -> Typed:
    """``typed`` in ``drill_unit`` (see the module docstring); :class:`AnswerError` when there is no number."""
    value, written = number_of(typed)
    written = unicodedata.normalize("NFKC", written).strip()
    if not written or written == drill_unit or written == unicodedata.normalize("NFKC", drill_unit):
        return Typed(value, written)
    if drill_unit in _RATIO:
        return _ratio(value, written, drill_unit)
    if drill_unit in _COUNT_SCALE:
        scaled, rest = _scaled(value, written)
        if not rest:
            return Typed(scaled / _COUNT_SCALE[drill_unit], written, amount=value)
        return Typed(value, written, wrong_unit(written, value, drill_unit, None))
    if drill_unit in _WORDS:
        scaled, rest = _scaled(value, written)
        if not rest or rest.lower() in _WORDS[drill_unit]:
            return Typed(scaled, written, amount=value)
        return Typed(value, written, wrong_unit(written, value, drill_unit, None))
    return _physical(value, written, drill_unit)


def _physical(value: float, written: str, drill_unit: str) -> Typed:
    want, got = units.unit(drill_unit), units.unit(written)
    if want is None:  # a drill unit pint does not know: only that very unit is right
        return Typed(value, written, wrong_unit(written, value, drill_unit, None))
    if got is None:
        return Typed(value, written, wrong_unit(written, value, drill_unit, None, kind=""))
    if units.kind(got) != units.kind(want):
        return Typed(value, written, wrong_unit(written, value, drill_unit, None, kind=units.kind(got)))
    converted = float(_quantity(value, got).to(want).magnitude)
    return Typed(converted, written, amount=value)


def _quantity(value: float, unit_: Any) -> Any:
    return units.registry().Quantity(value, unit_)


def mismatch_note(t: Typed, expected: float, drill_unit: str, tolerance: float) -> dict[str, str] | None:
    """The feedback for a unit that is right in kind but gives the wrong amount (``28.06 TB`` for 28.06 GB):
    names the unit written and the amount it is, so a GB/GiB or prefix slip reads as one."""
    if t.mismatch is not None:
        return t.mismatch
    if not t.unit_written or abs(t.value - expected) <= tolerance * abs(expected):
        return None
    return wrong_unit(t.unit_written, t.value if t.amount is None else t.amount, drill_unit, t.value)


__all__ = ["KIND_WORDS", "AnswerError", "Typed", "mismatch_note", "number_of", "read", "wrong_unit"]

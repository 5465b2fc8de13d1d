"""Reading a typed numeric answer the way people type it, in English or Chinese.

Accepted: ``1234.5``, ``1,234.5``, ``1.234,5``, ``2,29`` (a decimal comma: two digits after it cannot be a
thousands group), ``1 234`` is not (type it without the space), full-width digits and punctuation
(``１２．５``, ``１２，５``), the Chinese full stop as a decimal point (``12。0``), a unit or word after the number
(``12 层``, ``24.5 GB``, ``7%``) and ``约`` / ``≈`` / ``~`` before it. A comma followed by exactly three
digits (``1,234``) reads as 1234 or 1.234: that is *ambiguous* and the learner is asked which one, never
guessed at (``2,29`` used to become 229). Pure: no database, no web stack.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass


class AnswerError(ValueError):
    """A typed answer that is not a number, or one that reads two ways; says why in English and Chinese."""

    def __init__(self, en: str, zh: str, readings: tuple[float, ...] = ()) -> None:
        super().__init__(f"{en}\n{zh}")  # one line per language: the quiz shows the learner's own
        self.en, self.zh, self.readings = en, zh, readings


@dataclass(frozen=True)
class _Reading:
    value: float
    alternatives: tuple[float, ...] = ()


# after NFKC (full-width forms become ASCII), the full stops and minus signs NFKC keeps
_TRANSLATE = str.maketrans({"。": ".", "｡": ".", "、": ",", "−": "-", "–": "-", "—": "-"})
_PREFIX = re.compile(r"^(?:约|大约|≈|~|about\s)\s*", re.IGNORECASE)
# the number, then an optional unit or word (no digits in it: "12 层", "24.5 GB", "30%", "layers")
_SHAPE = re.compile(r"^(?P<num>[-+]?[\d.,_]*\d[\d.,_]*(?:[eE][-+]?\d+)?)\s*(?P<unit>[^\d\s][^\d]{0,15})?$")


def _grouped(digits: str, sep: str) -> bool:
    return re.fullmatch(r"\d{1,3}(?:" + re.escape(sep) + r"\d{3})+", digits) is not None


def _not_a_number(typed: str) -> AnswerError:
    return AnswerError(f"{typed!r} is not a number; type the value in the unit asked, e.g. 42.5 or 42,5",
                       f"“{typed}”不是一个数；请按题目要求的单位输入数值，例如 42.5 或 42,5")


def _read(num: str, typed: str) -> _Reading:
    mantissa, exp = re.match(r"^([^eE]*)([eE][-+]?\d+)?$", num).groups()  # type: ignore[union-attr]
    sign = ""
    if mantissa[:1] in "+-":
        sign, mantissa = mantissa[0], mantissa[1:]
    mantissa = mantissa.replace("_", "")
    exp = exp or ""
    commas, dots = mantissa.count(","), mantissa.count(".")

    def value(text: str) -> float:
        return float(sign + text + exp)

    if commas == 0 and dots <= 1:
        return _Reading(value(mantissa))
    if commas and dots:  # the later one is the decimal mark, the other groups thousands
        decimal, group = (".", ",") if mantissa.rfind(".") > mantissa.rfind(",") else (",", ".")
        whole, _, frac = mantissa.rpartition(decimal)
        if mantissa.count(decimal) != 1 or not _grouped(whole, group) or not frac.isdigit():
            raise _not_a_number(typed)
        return _Reading(value(whole.replace(group, "") + "." + frac))
    sep, count = (",", commas) if commas else (".", dots)
    if count > 1:  # 1,234,567 or 1.234.567: thousands groups only
        if not _grouped(mantissa, sep):
            raise _not_a_number(typed)
        return _Reading(value(mantissa.replace(sep, "")))
    # one comma, no dot
    whole, _, frac = mantissa.partition(",")
    if not frac.isdigit() or (whole and not whole.isdigit()):
        raise _not_a_number(typed)
    as_decimal = value((whole or "0") + "." + frac)
    if len(frac) != 3 or not whole or len(whole) > 3 or whole.startswith("0"):
        return _Reading(as_decimal)  # 2,29 · 0,125 · 1234,567 · ,5: only a decimal comma fits
    return _Reading(as_decimal, (value(whole + frac),))


def parse_number(typed: str) -> float:
    """The number in ``typed``; :class:`AnswerError` when there is none or when it reads two ways."""
    return split_number(typed)[0]


def split_number(typed: str) -> tuple[float, str]:
    """The number in ``typed`` and the unit or word written after it ("" when none); :class:`AnswerError`
    when there is no number or when it reads two ways."""
    text = _PREFIX.sub("", unicodedata.normalize("NFKC", typed or "").translate(_TRANSLATE).strip()).strip()
    m = _SHAPE.match(text)
    if not m:
        raise _not_a_number(typed)
    reading = _read(m.group("num"), typed)
    if reading.alternatives:
        grouped = reading.alternatives[0]
        num = m.group("num")
        raise AnswerError(
            f"{num!r} reads two ways: {grouped:g} (comma between thousands) or {reading.value:g} (decimal comma). "
            f"Type {grouped:g} or {reading.value:g}.",
            f"“{num}”有两种读法：{grouped:g}（逗号为千位分隔）或 {reading.value:g}（逗号为小数点）。"
            f"请输入 {grouped:g} 或 {reading.value:g}。",
            readings=(grouped, reading.value))
    if not math.isfinite(reading.value):
        raise AnswerError(f"{typed!r} is not a finite number", f"“{typed}”不是有限的数")
    return reading.value, (m.group("unit") or "").strip()

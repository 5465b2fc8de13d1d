"""Numbers written in words, as digits: Chinese numerals (cn2an) before 倍 / % / a scale or unit, 百分之…,
…分之…, 一半, and the English "twice", "half", "three times".

    python -c "from verify.reading.numerals import normalise; print(normalise('节省百分之七十五，降低四倍，一半'))"

Only numerals that state a quantity are converted: "一个" or "统一" stay words (a bare 一 would otherwise read as
the number 1 in every Chinese sentence and pair with nothing in the English).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_CN = "零〇一二两三四五六七八九十百千万亿点"
_QUANTITY_AFTER = (r"(?=\s*(?:倍|%|％|个百分点|字节|千字节|兆字节|吉字节|毫秒|微秒|秒"
                   r"|分钟|小时|天|位|比特|层|个头|路|卡|块|步|轮|次"
                   r"|GB|GiB|MB|TB|ms|B\b))")
_PERCENT = re.compile(r"百分之([" + _CN + r"]+)")
_FRACTION = re.compile(r"([" + _CN + r"]+)分之([" + _CN + r"]+)")
_BEFORE = re.compile(r"(?<![" + _CN + r"])([" + _CN + r"]+)" + _QUANTITY_AFTER)
_ONE_BEFORE = re.compile(r"\s*(?:倍|%|％|字节|千字节|兆字节|吉字节|位|比特|GB|MB|B\b)")
_WORDS = [(re.compile(r"一半|减半|砍半|折半"), "1/2"), (re.compile(r"\btwice\b", re.I), "2×"),
          (re.compile(r"\bhalf\b", re.I), "1/2"),
          (re.compile(r"\bdoubl(?:es|ed|ing)\b", re.I), "2×"), (re.compile(r"\bquarter\b", re.I), "1/4"),
          (re.compile(r"\bzero\b(?!-)"), "0")]  # "flushed to zero" (not ZeRO, not zero-bubble)
_EN = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_EN_TIMES = re.compile(r"\b(" + "|".join(_EN) + r")(?:\s+times\b|-fold\b|x\b)", re.I)
_EN["one"] = 1
_EN_UNIT = re.compile(r"\b(" + "|".join(_EN) + r")(?=[\s-]+(?:bytes?|bits?|GB|MB|KB|B)\b)", re.I)


def chinese(text: str) -> str | None:
    """A Chinese numeral as digits ("七十五" → "75", "一点五" → "1.5"), or None."""
    import cn2an

    try:
        value = cn2an.cn2an(text, "smart")
    except (ValueError, KeyError, IndexError):
        return None
    return str(Fraction(str(value))) if "." not in str(value) else str(value)


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    def pct(m: re.Match[str]) -> str:
        n = chinese(m.group(1))
        return f"{n}%" if n else m.group(0)

    def frac(m: re.Match[str]) -> str:
        den, num = chinese(m.group(1)), chinese(m.group(2))
        return f"{num}/{den}" if den and num else m.group(0)

    def before(m: re.Match[str]) -> str:
        if m.group(1) == "一" and not _ONE_BEFORE.match(m.string, m.end()):
            return m.group(0)  # 一块, 一次, 一层: an article, not a count the English writes as a digit
        n = chinese(m.group(1))
        return n if n else m.group(0)

    text = _PERCENT.sub(pct, text)
    text = _FRACTION.sub(frac, text)
    text = _BEFORE.sub(before, text)
    for rx, digits in _WORDS:
        text = rx.sub(digits, text)
    text = _EN_TIMES.sub(lambda m: f"{_EN[m.group(1).lower()]}×", text)
    return _EN_UNIT.sub(lambda m: str(_EN[m.group(1).lower()]), text)

"""Units a card writes (GB, GiB, ms, TB/s, TFLOPS, 吉字节, 毫秒 …), read with pint.

    python -c "from verify.reading.units import unit; print(unit('GiB'), unit('毫秒'))"

One ``pint.UnitRegistry`` for the whole process (cached on disk by pint). pint lacks a few names ML texts use:
``KB`` (a kilobyte), ``FLOP`` and ``FLOPS``, gigabits (``Gb`` is pint's gilbert), and the Chinese names; they
are added below in pint's own definition language. Only units of information, time, compute and their rates
count as a card's units: anything else a word happens to spell ("K", "T", "W") is not read as a unit. What a
name, a unit or a conversion gives is cached: pint's parsing and conversions cost tens of microseconds, and a
card asks for its few units hundreds of times.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

DEFINITIONS = """
KB = kilobyte
KiB = kibibyte
FLOP = [flop] = flop
FLOPS = FLOP / second
TFLOP = 1e12 * FLOP
PFLOP = 1e15 * FLOP
TFLOPS = 1e12 * FLOPS
PFLOPS = 1e15 * FLOPS
GFLOPS = 1e9 * FLOPS
@alias byte = 字节
@alias bit = 比特 = 位
千字节 = kilobyte
兆字节 = megabyte
吉字节 = gigabyte
太字节 = terabyte
毫秒 = millisecond
微秒 = microsecond
纳秒 = nanosecond
@alias second = 秒
@alias minute = 分钟
@alias hour = 小时
@alias day = 天
"""
# what a written unit name means where pint would read something else
RENAMED = {"Gb": "gigabit", "Gbit": "gigabit", "Mb": "megabit", "Tb": "terabit", "sec": "second", "secs": "second",
           "hrs": "hour", "hr": "hour", "mins": "minute", "GT": "", "MT": ""}
# pint counts bits and bytes as dimensionless: information is told by the unit's name
KINDS = {("byte", "dimensionless"): "bytes", ("byte", "1 / [time]"): "bytes/s", ("", "[time]"): "seconds",
         ("", "[flop]"): "FLOP", ("", "[flop] / [time]"): "FLOP/s"}
BASE = {"bytes": "byte", "bytes/s": "byte / second", "seconds": "second", "FLOP": "FLOP", "FLOP/s": "FLOPS"}
# binary and decimal units people confuse (10^3k bytes and 2^10k bytes): a slip between them is named as such
DECIMAL = ("kilobyte", "megabyte", "gigabyte", "terabyte", "petabyte")
BINARY = ("kibibyte", "mebibyte", "gibibyte", "tebibyte", "pebibyte")


def _cache_folder(pint_file: str) -> Path:
    """pint's parsed-definitions cache, one folder per pint installation. pint's own ":auto:" folder is shared
    by every environment: an entry written by a virtual environment since deleted names that environment's
    imported files (``constants_en.txt``) and every later registry fails reading them."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    installation = hashlib.sha256(str(Path(pint_file).resolve().parent).encode()).hexdigest()[:16]
    return base / "proofdeck" / "pint" / installation


@cache
def registry() -> Any:
    import pint

    reg: Any = pint.UnitRegistry(cache_folder=_cache_folder(pint.__file__))
    reg.load_definitions(DEFINITIONS.strip().splitlines())
    return reg


@cache
def unit(name: str) -> Any | None:
    """The pint unit a card's unit name stands for, or None (not a unit, or not one of ``DIMENSIONS``)."""
    name = name.strip()
    if not name or name[0].isdigit():
        return None
    head, slash, tail = name.partition("/")
    spelled = RENAMED.get(head, head) + slash + RENAMED.get(tail, tail) if head in RENAMED else RENAMED.get(name, name)
    if not spelled:
        return None
    reg = registry()
    try:
        parsed = reg.parse_units(spelled.replace("/s", "/second") if spelled.endswith("/s") else spelled)
    except Exception:  # pint's parse errors (undefined units, syntax) mean: not a unit
        return None
    return parsed if kind(parsed) else None


@cache
def exact_base(name: str) -> tuple[Any, str]:
    """One ``name`` (a name :func:`unit` reads) in base units as an exact sympy Rational, and its kind: what
    ``sp.nsimplify`` makes of pint's float (10^9 for GB, 2^30 for GiB, 1/1000 for ms). Cached by the name: that
    search is the slowest step of reading a number with a unit, and a card writes a few units many times."""
    import sympy as sp

    base, kind_ = to_base(1.0, unit(name))
    return sp.nsimplify(base, rational=True), kind_


@cache
def kind(unit_: Any) -> str:
    """What a unit measures: bytes, bytes/s, seconds, FLOP, FLOP/s, or "" (none of these)."""
    text = str(registry().Quantity(1, unit_).to_base_units().units)
    info = "byte" if "bit" in text else ""
    return KINDS.get((info, str(unit_.dimensionality)), "")


@lru_cache(maxsize=4096)
def to_base(value: float, unit_: Any) -> tuple[float, str]:
    """``value`` in ``unit_`` as (magnitude in bytes, seconds, FLOP or their rates, that kind)."""
    k = kind(unit_)
    return float(registry().Quantity(value, unit_).to(BASE[k]).magnitude), k


@cache
def sibling(unit_: Any) -> Any | None:
    """The binary unit of a decimal one and back (GB ↔ GiB), with its rate (GB/s ↔ GiB/s), or None."""
    k = kind(unit_)
    if k not in ("bytes", "bytes/s"):
        return None
    per_byte, _ = to_base(1, unit_)
    for names, other, base in ((DECIMAL, BINARY, 1000), (BINARY, DECIMAL, 1024)):
        for i, _name in enumerate(names):
            if abs(per_byte - base ** (i + 1)) < 1e-6 * per_byte:
                return registry().parse_units(other[i] + ("/second" if k == "bytes/s" else ""))
    return None

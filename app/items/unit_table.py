"""The units a typed drill answer may carry, as one table of plain float factors: spelling → (kind, factor to
the kind's base unit). Made from pint (``verify.reading.units``) once, then used by both graders: the server's
(:func:`read`, called by ``app.items.drills.grade``) and the handbook's page (``templates/study_answers.js``, which
gets the same table in its page data). Both convert with ``value * factor(written) / factor(drill unit)`` on the
same floats, so the two agree to the bit; pint's own conversion would not (its rounding differs).

Lookup is by the spelling as typed, then case-folded (``15 gb`` is 15 GB, ``mib`` is MiB): ``folded`` maps a
lower-case spelling to the first table spelling it folds from (data units come first, so ``mb`` is MB).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from app.items.typed_quantity import KIND_WORDS, Typed, wrong_unit
from verify.reading import units

# spellings read with pint (its kinds: bytes, bytes/s, seconds, FLOP, FLOP/s), data units first
PINT_SPELLINGS = (
    "B", "byte", "bytes", "kB", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB",
    "字节", "千字节", "兆字节", "吉字节", "太字节",
    "MB/s", "GB/s", "TB/s", "GiB/s",
    "ns", "us", "µs", "μs", "ms", "s", "sec", "second", "seconds", "min", "minute", "minutes", "h", "hour",
    "hours", "day", "days", "秒", "毫秒", "微秒", "纳秒", "分钟", "小时", "天",
    "FLOP", "GFLOPS", "TFLOP", "TFLOPS", "PFLOP", "PFLOPS",
)
# ratios: × and 倍 are the number itself, % a hundredth
RATIOS = {"×": 1.0, "x": 1.0, "X": 1.0, "倍": 1.0, "times": 1.0, "%": 0.01, "percent": 0.01}
# counts: a drill in millions reads scale words; countable nouns are their own kind
COUNTS: dict[str, dict[str, float]] = {
    "count": {"M": 1e6, "million": 1e6, "百万": 1e6, "万": 1e4, "k": 1e3},
    "layers": {"layers": 1.0, "layer": 1.0, "层": 1.0},
    "tokens": {"tokens": 1.0, "token": 1.0},
    "sequences": {"sequences": 1.0, "sequence": 1.0, "seq": 1.0, "seqs": 1.0, "条": 1.0, "序列": 1.0},
}


@cache
def table() -> dict[str, Any]:
    """``{"units": {spelling: [kind, factor]}, "folded": {lower: spelling}, "kinds": {kind: [en, zh]}}``:
    JSON as it is written into the handbook's page data."""
    entries: dict[str, list[Any]] = {}
    for name in PINT_SPELLINGS:
        u = units.unit(name)
        assert u is not None, f"pint does not read {name!r}"
        factor, kind = units.to_base(1.0, u)
        entries[name] = [kind, factor]
    entries.update({name: ["ratio", f] for name, f in RATIOS.items()})
    for kind, words in COUNTS.items():
        entries.update({name: [kind, f] for name, f in words.items()})
    folded: dict[str, str] = {}
    for name in entries:
        if name.lower() not in entries:
            folded.setdefault(name.lower(), name)
    return {"units": entries, "folded": folded, "kinds": {k: list(v) for k, v in KIND_WORDS.items()}}


def entry(spelling: str) -> list[Any] | None:
    """(kind, factor) of a unit as typed, or None when the table does not know it."""
    t = table()
    entries: dict[str, list[Any]] = t["units"]
    found = entries.get(spelling)
    return found if found is not None else entries.get(t["folded"].get(spelling.lower(), ""))


def read(value: float, written: str, drill_unit: str) -> Typed:
    """``value`` typed with ``written`` (as ``answers.split_number`` gives them) in ``drill_unit``: converted
    when the kinds match, else with the mismatch feedback; a bare number (or the drill's own unit) as is."""
    if not written or written == drill_unit:
        return Typed(value, "")
    want, got = entry(drill_unit), entry(written)
    if want is None:
        return Typed(value, written, wrong_unit(written, value, drill_unit, None))
    if got is None:
        return Typed(value, written, wrong_unit(written, value, drill_unit, None, kind=""))
    if got[0] != want[0]:
        return Typed(value, written, wrong_unit(written, value, drill_unit, None, kind=got[0]))
    return Typed(value * got[1] / want[1], written, amount=value)

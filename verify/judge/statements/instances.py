"""The card against itself, by its own numbers: a formula followed by the example it stands for ("…, i.e. …",
"…，即 …") and computing something else.

    python -c "from verify.judge.statements.instances import instances; \
print(instances('averaged per step it is 2(k−1)/k · 4Ψ/H², i.e. 49 GB/500 = 98 MB'))"

"Averaged per inner step it is 2(k−1)/k · 4Ψ/H², i.e. 49 GB/500 = 98 MB", with k = 8, Ψ = 7×10^9 and H = 500
given in the same section: the formula at those values is 196,000, its example says 98 MB (in bytes, base
units), and the two are exactly H = 500 apart. The formula is then a ``contradiction`` naming the symbol whose
value separates them: a factor written once too often or once too few. Only such a factor is flagged (a value
of the section, or its square, to 0.5 %): a formula and an example that differ otherwise may well be two
quantities, and a symbol bound to two values in the section is not used.

Formulas may use any letters, like ``definitions``. What it cannot see: an example with no "i.e." / "即"
before it, a symbol whose value the section does not state, an error that is no single symbol's factor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from verify.judge.statements.definitions import formula_at
from verify.judge.statements.findings import Finding, human
from verify.reading.mathtext import Side
from verify.reading.pairing import Unit
from verify.reading.statements import Statement, read, sentence_at
from verify.reading.tex import TEX

JUDGE = "card"

_NUMBER = r"(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s*[×x*]\s*10\s*\^\s*([-−]?\d+))?"
_BINDS = re.compile(r"(?<![\w′'])([A-Za-zΑ-Ωα-ω][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?)\s*=\s*" + _NUMBER +
                    r"(?!\s*[-−+×*/^·(]|\d|[.,]\d)")
_THAT_IS = re.compile(r"(?:,\s*(?:i\.e\.|that is|or)|，\s*(?:即|也就是)|，?即(?![使可便]))\s*")
_CLAUSE = re.compile(r"[，。；：;:]|,\s|\bis\b|\bit is\b|为|是")


@dataclass(frozen=True)
class Instance:
    formula: str  # as written
    value: sp.Expr  # over symbols named as written
    start: int  # where the formula starts in the unit's text
    example: float  # the value the example after "i.e." reaches, in base units
    written: str  # the example as written


def bindings(texts: list[str]) -> dict[str, float]:
    """The symbols a section sets to one number (``k = 8``, ``Ψ = 7×10^9``); a symbol set to two numbers is
    left out."""
    seen: dict[str, set[float]] = {}
    for text in texts:
        for m in _BINDS.finditer(TEX.sub(lambda t: " " * len(t.group(0)), text)):
            value = float(m.group(2).replace(",", "")) * 10 ** int((m.group(3) or "0").replace("−", "-"))
            seen.setdefault(m.group(1), set()).add(value)
    return {name: next(iter(values)) for name, values in seen.items() if len(values) == 1}


@lru_cache(maxsize=8192)
def instances(text: str) -> tuple[Instance, ...]:
    """The formulas of one unit's plain text that an "i.e." / "即" example follows."""
    blank = TEX.sub(lambda m: " " * len(m.group(0)), text)
    out: list[Instance] = []
    for m in _THAT_IS.finditer(blank):
        clause = max((c.end() for c in _CLAUSE.finditer(blank, 0, m.start())), default=0)
        before = blank[clause:m.start()]
        for k in (j.start() for j in re.finditer(r"(?<!\S)\S", before)):
            got = formula_at(before[k:].rstrip())
            if got is not None and len(got[0]) == len(before[k:].strip()):
                example = [f for f in read(text) if m.end() <= f.start < m.end() + 4]
                if example and not example[0].sides[-1].formula:
                    last = example[0].sides[-1]
                    out.append(Instance(got[0], got[1], clause + k, float(last.value), example[0].text))
                break
    return tuple(out)


def _apart(ratio: float, values: dict[str, float]) -> tuple[str, int] | None:
    """The bound symbol (and power) whose value the ratio is, to 0.5 %."""
    for name, x in values.items():
        if x < 2:
            continue
        for power in (1, -1, 2, -2):
            if abs(ratio / x ** power - 1) <= 0.005:
                return name, power
    return None


def check_units(units: list[Unit], taken: int = 2000) -> list[tuple[Statement, Finding]]:
    """One language's formulas that the example after them computes a symbol's factor apart, as statements."""
    by_section: dict[str, list[Unit]] = {}
    for u in units:
        by_section.setdefault(u.section, []).append(u)
    out: list[tuple[Statement, Finding]] = []
    for section, members in by_section.items():
        if section == "pitfalls":
            continue
        values = bindings([u.text for u in members])
        for u in members:
            for inst in instances(u.text):
                names = {str(s): s for s in inst.value.free_symbols}
                if not names or not set(names) <= set(values) or inst.example == 0:
                    continue
                at = float(inst.value.subs({s: values[n] for n, s in names.items()}))
                apart = _apart(at / inst.example, {n: values[n] for n in names})
                if apart is None:
                    continue
                name, power = apart
                shown = ", ".join(f"{n} = {human(values[n])}" for n in sorted(names))
                square = "²" if abs(power) == 2 else ""
                times = f"{name}{square} = {human(values[name] ** abs(power))} times " + \
                    ("smaller" if power < 0 else "larger")
                st = Statement(u, taken + len(out), Side(inst.formula, inst.value, start=inst.start),
                               sentence=sentence_at(u.text, inst.start))
                out.append((st, Finding("contradiction", JUDGE,
                                        f"at {shown}: {inst.formula} = {human(at)}, but the example after it, "
                                        f"{inst.written}, is {human(inst.example)}: the formula is {times} than its "
                                        "example", human(inst.example),
                                        inst.written)))
    return out

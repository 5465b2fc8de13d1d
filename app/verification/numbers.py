"""Numbers as people read them: a verdict's values in the unit of what they count.

A byte count near a multiple of Ψ reads as that multiple (``15,875,472`` → ``16Ψ`` when Ψ = 992,217), other
byte counts in decimal units (``28.1 GB``), large counts with a word prefix (``5.16 M parameters``), integers
with thousands separators (``12,288``), ratios with ``×``. The unit comes from the vocabulary
(``verify.known.vocabulary``: every quantity names one), looked up by the first quantity an assertion names.
"""

from __future__ import annotations

import re
from functools import lru_cache

# units whose count reads with the unit's word after it ("10 calls", "5.16 M parameters")
COUNTED = frozenset({"parameters", "elements", "tokens", "calls", "steps", "micro-batches", "all-reduces",
                     "all-to-alls", "rounds", "blocks", "GPUs", "ranks", "days", "FLOP", "samples", "token slots",
                     "bits", "layer forwards", "layer activations", "s", "GB/s"})
PER_PSI = frozenset({"bytes", "elements", "parameters"})  # counts that scale with the model size Ψ
_BYTE_PREFIXES = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
_COUNT_PREFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"))
_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?=\()")


@lru_cache(maxsize=2048)
def unit_of(asserts: str) -> str:
    """The unit of the first quantity ``asserts`` names ("" when it names none the vocabulary knows)."""
    from verify.known.vocabulary import QUANTITIES  # sympy only, never torch (the vocabulary measures lazily)

    for name in _CALL.findall(asserts or ""):
        if name in QUANTITIES:
            return QUANTITIES[name].unit
    return ""


def sym_human(expr: str) -> str:
    """A sympy expression as people write it: ``2*Psi*(N - 1)/N`` → ``2Ψ(N − 1)/N``."""
    out = expr.replace("Psi", "Ψ").replace("oo", "∞")
    out = re.sub(r"(\d)\*(?=[ΨA-Za-z(])", r"\1", out)
    out = out.replace("Ψ*(", "Ψ(").replace(" - ", " − ").replace("*", "·")
    return out


def _sig(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}g}"


def _psi_multiple(x: float, psi: float) -> str:
    """``16Ψ`` when ``x`` is a multiple of Ψ to a quarter (Ψ's padding leaves a few bytes over), else ""."""
    if abs(x) < psi / 4:
        return ""
    k = x / psi
    q = round(k * 4) / 4
    if abs(k - q) >= 0.01:
        return ""
    return "Ψ" if q == 1 else f"{q:g}Ψ"


def human(text: object, unit: str = "", psi: float | None = None, ratio: bool = False, word: bool = True) -> str:
    """One measured or claimed value for people (``text``: a number, "1,984,434", "1.488e+06", or an
    expression such as "8*Psi", which is only re-spelled); ``word``: the count's unit word after it (English)."""
    raw = str(text).strip()
    try:
        x = float(raw.replace(",", ""))
    except ValueError:
        return sym_human(raw)
    if ratio or unit == "ratio":
        return f"{x:,.0f}×" if abs(x) >= 1e4 else f"{_sig(x)}×"
    if psi and unit in PER_PSI | {""}:
        multiple = _psi_multiple(x, psi)
        if multiple:
            return multiple
    if unit == "bytes":
        for size, name in _BYTE_PREFIXES:
            if abs(x) >= size:
                return f"{_sig(x / size)} {name}"
        return f"{x:g} bytes"
    after = f" {unit}" if unit in COUNTED and (word or unit in ("s", "GB/s")) else ""
    for size, name in _COUNT_PREFIXES:
        if abs(x) >= size and unit not in ("s", "GB/s", "days"):
            return f"{_sig(x / size)} {name}{after}"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}{after}"
    return f"{x:.4g}{after}"

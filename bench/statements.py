"""The annotation-free statement judges: time to judge one bundled card, against reading and splitting its file.

    PYTHONPATH=$PWD python bench/statements.py [--rounds 7] [--cards cards]

``verify.judge.statements.card.judge_text`` of every bundled card, each judged as if for the first time: before
each measurement every cache that holds what a card's text gave (``functools`` caches of ``verify.reading`` and
``verify.judge.statements``, sympy's own cache) is cleared; the process-wide ones every card shares stay (pint's
registry and the units it read, the vocabulary's ledger formulas, the ANTLR runtime's version check). A first pass
over all cards, not counted, pays the imports and those. Each round measures every card in turn and, right after
each card, the baseline: reading and splitting the same file (``verify.reading.cardfile.read_text`` + ``split``,
what any reader of a card file must do; it parses the front matter, as the judge does). Prints per-card medians
(wall clock; CPU seconds beside them, steadier on a busy machine), the median card, the ratio to the baseline,
and what 1,000 such cards would take (the mean card × 1,000: a sync pays the slow cards too).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# caches every card shares: what a unit name is (pint), the vocabulary's formulas, the symbols, the runtime check
SHARED = {"registry", "unit", "exact_base", "kind", "sibling", "to_base", "known", "_vocabulary",
          "_runtime_supported"}
PACKAGES = ("verify.reading.", "verify.judge.statements.")


def _text_caches() -> list[object]:
    """Every functools cache of the reading and judging modules that holds what a card's text gave."""
    out = []
    for name, module in sorted(sys.modules.items()):
        if not name.startswith(PACKAGES) or not isinstance(module, ModuleType):
            continue
        for attr, obj in vars(module).items():
            if hasattr(obj, "cache_clear") and getattr(obj, "__module__", "") == name and attr not in SHARED:
                out.append(obj)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="measurements per card (and as many baselines)")
    parser.add_argument("--cards", default=str(ROOT / "cards"), help="folder of card files")
    a = parser.parse_args()

    import sympy.core.cache

    from verify.judge.statements.card import judge_text
    from verify.reading.cardfile import read_text, split

    paths = [p for p in sorted(Path(a.cards).glob("*.md")) if p.name.lower() != "readme.md"]
    start = time.perf_counter()
    for p in paths:  # imports, pint's registry, the ledger formulas, ANTLR's tables: once a process
        judge_text(read_text(p), str(p))
    first = time.perf_counter() - start
    caches = _text_caches()

    def clear() -> None:
        for cached in caches:
            cached.cache_clear()  # type: ignore[attr-defined]
        sympy.core.cache.clear_cache()

    wall: dict[Path, list[float]] = {p: [] for p in paths}
    cpu: dict[Path, list[float]] = {p: [] for p in paths}
    base: dict[Path, list[float]] = {p: [] for p in paths}
    for _ in range(a.rounds):
        for p in paths:
            text = read_text(p)
            clear()
            t, c = time.perf_counter(), time.process_time()
            judge_text(text, str(p))
            wall[p].append(time.perf_counter() - t)
            cpu[p].append(time.process_time() - c)
            t = time.perf_counter()
            split(read_text(p), str(p))
            base[p].append(time.perf_counter() - t)

    med = {p: statistics.median(wall[p]) for p in paths}
    med_cpu = {p: statistics.median(cpu[p]) for p in paths}
    med_base = {p: statistics.median(base[p]) for p in paths}
    width = max(len(p.stem) for p in paths)
    print(f"{'card':<{width}}  {'judge':>8}  {'cpu':>8}  {'read+split':>10}  ratio")
    for p in sorted(paths, key=lambda q: -med[q]):
        print(f"{p.stem:<{width}}  {med[p] * 1000:5.1f} ms  {med_cpu[p] * 1000:5.1f} ms  {med_base[p] * 1000:7.2f} ms"
              f"  {med[p] / med_base[p]:5.1f}x")
    card, card_cpu, ref = (statistics.median(m.values()) for m in (med, med_cpu, med_base))
    mean = statistics.fmean(med.values())
    print(f"{len(paths)} cards, {a.rounds} rounds, caches cleared before each judgement "
          f"(first pass, imports included: {first:.1f} s)")
    print(f"median card: judge_text {card * 1000:.1f} ms (CPU {card_cpu * 1000:.1f} ms), read+split "
          f"{ref * 1000:.2f} ms: {card / ref:.1f}x the baseline")
    print(f"1,000 cards like these: {mean * 1000:.1f} s (mean card {mean * 1000:.1f} ms x 1,000; "
          f"read+split {statistics.fmean(med_base.values()) * 1000:.1f} s)")


if __name__ == "__main__":
    main()

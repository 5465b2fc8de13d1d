"""``proofdeck claims suggest DIR --write`` throughput: 1,000 imported bank cards, one process.

    PYTHONPATH=$PWD python bench/claims_suggest.py [--cards 1000] [--runs 3] [--cli] [--seed-only]

The input: the bank-format raw cards of the tests (the seed and tests/cards/data/bank/*, 25 cards) imported
again and again under new slugs, each copy with every number shifted by its copy's index ("420/25 = 16.8 s"
becomes "421/26 = 17.8 s" in copy 1), so that no copy reads like another: the readers' caches (TeX parsed
by sympy, drift per quote) only help where a real bank repeats itself too (formulas without numbers, 16Ψ).

Each run, in a fresh process (nothing cached from an earlier run), on a fresh copy of the imported folder:
- baseline: read and split every card file (``verify.reading.cardfile``: the least any command on the cards does);
- suggest: what the command does for each card, timed per card: ``verify.reading.suggest.suggest_card`` with the
  sync's agreement check (``app.cli.claims.agrees``) and ``--write`` (the kept proposals appended to the file).
``--cli`` also times the command itself once (``proofdeck claims suggest DIR --write``, interpreter start
and imports included). Prints the median seconds per card, the projected time for 1,000 cards (a fresh
process's imports and parser warm-up included) and the baseline's, medians over the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "cards" / "data"
SOURCES = [DATA / "000_df0768db638cc9c5.txt", *sorted((DATA / "bank").glob("*/*.txt"))]
_NUMBER = re.compile(r"(?<![A-Za-z_\-\d.])\d+")  # not the 3 of ZeRO-3, the 16 of fp16, the 3 of M3
TARGET_S = 300  # the aim: <= 5 min for 1,000 cards on this machine


def shifted(text: str, k: int) -> str:
    """``text`` with every number n written as n + k (copy 0 is the card as it is)."""
    return text if k == 0 else _NUMBER.sub(lambda m: str(int(m.group()) + k), text)


def make_cards(n: int, root: Path, sources: list[Path] = SOURCES) -> Path:
    """``n`` raw cards (copies of ``sources``, numbers shifted per copy) imported into ``root/cards``."""
    from app.cards.bank_import import import_paths

    raw = root / "raw"
    raw.mkdir()
    for i in range(n):
        source, k = sources[i % len(sources)], i // len(sources)
        (raw / f"{i:04d}_{source.stem}.txt").write_text(shifted(source.read_text(encoding="utf-8"), k),
                                                        encoding="utf-8")
    report = import_paths([raw], root / "cards")
    assert report.ok and len(report.imported) == n, report.failed[:3]
    return root / "cards"


def child(mode: str, folder: Path) -> None:
    """One run's timing in this (fresh) process; prints a JSON line."""
    started = time.perf_counter()
    from verify.reading.cardfile import read_text, split

    files = sorted(folder.glob("*.md"))
    per_card: list[float] = []
    proposed = dropped = 0
    if mode == "baseline":
        for path in files:
            t = time.perf_counter()
            split(read_text(path), str(path))
            per_card.append(time.perf_counter() - t)
    else:
        from app.cli.claims import agrees
        from verify.reading.suggest import suggest_card

        for path in files:
            t = time.perf_counter()
            found = suggest_card(path, agrees, write_back=True)
            per_card.append(time.perf_counter() - t)
            proposed, dropped = proposed + found.written, dropped + len(found.dropped)
    print(json.dumps({"total": time.perf_counter() - started, "per_card": per_card, "proposed": proposed,
                      "dropped": dropped}))


def _run_child(mode: str, folder: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, __file__, "--child", mode, str(folder)], env=env, check=True,
                          capture_output=True, text=True, cwd=ROOT)
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time `proofdeck claims suggest DIR --write` once")
    parser.add_argument("--seed-only", action="store_true",
                        help="copies of the seed only (28 TeX formulas a card, as the bank's real exports write them; "
                             "the test cards have about 2)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    n = args.cards
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        sources = SOURCES[:1] if args.seed_only else SOURCES
        cards = make_cards(n, root, sources)
        print(f"{n} cards imported from {len(sources)} bank-format raw card(s) in {time.perf_counter() - t:.1f} s",
              flush=True)
        base, runs = [], []
        for run in range(args.runs):
            copy = root / f"run{run}"
            shutil.copytree(cards, copy)
            base.append(_run_child("baseline", copy))
            runs.append(_run_child("suggest", copy))
            print(f"run {run + 1}: baseline {base[-1]['total']:.2f} s, suggest --write {runs[-1]['total']:.1f} s "
                  f"({runs[-1]['proposed']} claims written, {runs[-1]['dropped']} dropped)", flush=True)
        cli_s = None
        if args.cli:
            copy = root / "cli"
            shutil.copytree(cards, copy)
            t = time.perf_counter()
            subprocess.run([str(Path(sys.executable).parent / "proofdeck"), "claims", "suggest", str(copy), "--write"],
                           check=True, capture_output=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
            cli_s = time.perf_counter() - t
    per_card = statistics.median(statistics.median(r["per_card"]) for r in runs)
    base_card = statistics.median(statistics.median(r["per_card"]) for r in base)
    total = statistics.median(r["total"] for r in runs)
    base_total = statistics.median(r["total"] for r in base)
    slowest = statistics.median(max(r["per_card"]) for r in runs)
    print(f"{n} cards, medians of {args.runs} runs (a fresh process each):")
    rows = [("baseline: read + split every card file", base_card, base_total),
            ("claims suggest --write (propose, check as sync does, write)", per_card, total)]
    for label, card_s, total_s in rows:
        print(f"  {label:<60} {card_s * 1000:8.2f} ms/card (median)  {total_s:7.1f} s in all  "
              f"-> {total_s * 1000 / n:7.1f} s for 1,000 cards ({total_s / base_total:.0f}x baseline)")
    print(f"  slowest card (median over runs): {slowest:.2f} s")
    if cli_s is not None:
        print(f"  proofdeck claims suggest DIR --write (the command, once): {cli_s:.1f} s "
              f"-> {cli_s * 1000 / n:.1f} s for 1,000 cards")
    projected = (cli_s if cli_s is not None else total) * 1000 / n
    print(f"  target: 1,000 cards <= {TARGET_S // 60} min -> {'met' if projected <= TARGET_S else 'NOT met'} "
          f"({projected:.0f} s projected)")


if __name__ == "__main__":
    main()

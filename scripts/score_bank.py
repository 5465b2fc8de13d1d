"""Score the annotation-free judges on the bank-format cards with planted mistakes.

    PYTHONPATH=$PWD python scripts/score_bank.py [dev|heldout|heldout2 ...] [--list]

Per folder: mistakes flagged / planted, false alarms per card; --list prints every miss and false alarm.
"""

from __future__ import annotations

import sys

from tests.utils.bankscore import BANK, score_folder


def main(argv: list[str]) -> int:
    show = "--list" in argv
    folders = [a for a in argv if not a.startswith("--")] or sorted(p.name for p in BANK.iterdir() if p.is_dir())
    for name in folders:
        scores = score_folder(BANK / name)
        planted = sum(len(s.mistakes) for s in scores)
        flagged = sum(len(s.flagged) for s in scores)
        alarms = [len(s.false_alarms) for s in scores]
        print(f"{name}: {flagged}/{planted} mistakes flagged ({100 * flagged / max(planted, 1):.0f} %), "
              f"{sum(alarms)} false alarms on {len(scores)} cards (worst card {max(alarms, default=0)})")
        if show:
            for s in scores:
                for m in s.missed:
                    print(f"  missed  {s.card} {m.section} {m.lang} {m.kind}: {m.wrong!r}")
                for v in s.false_alarms:
                    print(f"  alarm   {s.card} {v.section} {v.lang} {v.verdict}/{v.judge}: {v.text!r} — {v.detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

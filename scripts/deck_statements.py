"""The annotation-free verdicts on the bundled deck, card by card: judged / found, and every ✗ or ⇄.

    PYTHONPATH=$PWD python scripts/deck_statements.py [cards/]

A refuted or contradictory statement that a hand-written claim confirms would be a false alarm; the script
prints each flag with its judge and reason, and each card's share of judged statements.
"""

from __future__ import annotations

import sys
from pathlib import Path

from verify.judge.statements.card import judge_text


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path("cards")
    low = 0
    for path in sorted(folder.glob("*.md")):
        if path.name == "README.md":
            continue
        judged = judge_text(path.read_text(encoding="utf-8"), str(path))
        found = len(judged.verdicts)
        share = judged.judged / found if found else 1.0
        low += share < 0.9
        print(f"{path.stem:40} {judged.judged:4}/{found:<4} {100 * share:5.1f} %  {len(judged.problems())} flagged")
        for v in judged.problems():
            print(f"    {v.verdict}/{v.judge} {v.section} {v.lang}: {v.text!r} — {v.detail}")
    print(f"cards under 90 % judged: {low}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

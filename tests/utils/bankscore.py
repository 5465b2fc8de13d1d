"""How the annotation-free judges do on bank-format cards with planted mistakes (tests/cards/data/bank/).

Each raw card is imported as ``proofdeck import`` would (``app.cards.rawformat``), its text judged by
``verify.judge.statements.card.judge_text``, and the verdicts compared with the card's key
(``<card>.key.yaml``, described in tests/cards/data/bank/README.md):

- a mistake is **flagged** when a refuted or contradictory statement of its language(s) stands in the text
  the key quotes as wrong;
- a **false alarm** is a refuted or contradictory statement that stands in no mistake: neither inside a
  wrong text, nor the other language's side of a parity mistake's contradiction.

``python scripts/score_bank.py`` prints the figures; tests/verify/test_bank_truth.py holds the floors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app.cards.cardfile import dump_card
from app.cards.rawformat import parse_raw_bytes
from verify.judge.statements.card import CardStatements, StatementVerdict, judge_text

BANK = Path(__file__).resolve().parents[1] / "cards" / "data" / "bank"


def squash(text: str) -> str:
    return re.sub(r"[\s$\\{}]", "", text)


@dataclass
class Mistake:
    lang: str
    section: str
    wrong: str
    right: str
    kind: str
    why: str = ""

    def langs(self) -> tuple[str, ...]:
        return ("zh", "en") if self.lang == "both" else (self.lang,)


@dataclass
class CardScore:
    card: str
    mistakes: list[Mistake]
    flagged: list[Mistake] = field(default_factory=list)
    missed: list[Mistake] = field(default_factory=list)
    false_alarms: list[StatementVerdict] = field(default_factory=list)
    statements: CardStatements | None = None


def _section(v: StatementVerdict) -> str:
    fu = re.search(r"fu-(\d+)$", v.section)
    return "follow_up:" + fu.group(1) if fu else v.section


def _in(v: StatementVerdict, text: str) -> bool:
    """``v`` stands in ``text`` (the key's quote): its sentence contains the quote, or the quote its statement."""
    quote, sentence, stated = squash(text), squash(v.sentence), squash(v.text)
    # (a statement inside the quote counts only when it says more than a digit or two: a lone "2" flagged in
    # another bullet of the section stands in "A100 BF16 624 TFLOPS" too)
    return bool(quote) and (quote in sentence or (len(stated) >= 4 and stated in quote))


def _near(v: StatementVerdict, m: Mistake) -> bool:
    """``v`` is the mistake (or, for a parity mistake, its counterpart in the other language)."""
    follow_pair = m.section.startswith("follow_up:") and _section(v).startswith("follow_up:") and \
        (int(_section(v).split(":")[1]) + 1) // 2 == (int(m.section.split(":")[1]) + 1) // 2
    if _section(v) != m.section and not follow_pair:
        return False
    if v.lang in m.langs() and _in(v, m.wrong):
        return True
    return m.kind == "parity" and v.verdict == "contradiction" and v.lang not in m.langs() and \
        bool(v.other) and squash(v.other) in squash(m.wrong)


def score_card(raw: Path) -> CardScore:
    key = yaml.safe_load(raw.with_suffix(".key.yaml").read_text(encoding="utf-8"))
    mistakes = [Mistake(**{k: m[k] for k in ("lang", "section", "wrong", "right", "kind", "why") if k in m})
                for m in key.get("mistakes") or []]
    text = dump_card(parse_raw_bytes(raw.read_bytes(), str(raw)).doc)
    judged = judge_text(text, str(raw))
    problems = judged.problems()
    score = CardScore(raw.name, mistakes, statements=judged)
    for m in mistakes:
        (score.flagged if any(_near(v, m) for v in problems if v.lang in m.langs() or m.kind == "parity")
         else score.missed).append(m)
    score.false_alarms = [v for v in problems if not any(_near(v, m) for m in mistakes)]
    return score


def score_folder(folder: Path) -> list[CardScore]:
    return [score_card(p) for p in sorted(folder.glob("*.txt"))]

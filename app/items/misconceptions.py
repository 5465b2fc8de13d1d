"""Misconception drills: a claim the sweep refuted, or found true only under a condition that is a fact of
the system, becomes a review item (one conditional only on a reading of its wording does not: see
:mod:`app.verification.learnable`).

Refuted: "对还是错，为什么？ <quoted zh>" → "错：<the correction with the measured values>" (and the en side);
conditional: "When does this hold? <quoted en>" → "<the derived condition>; N = 2: 1.6×, N = 4: 2.29×".
The words come from the claim's quoted text and the numbers from its *stored* verdict (read when the item
is shown), so a new ``proofdeck verify`` run updates them. Which claims get one is decided at sync and
after a report is stored (``app.items.items.item_specs``).
"""

from __future__ import annotations

from functools import lru_cache

from app.items.items import Face, Marks
from app.render.markdown import render_markdown
from app.render.marks import Mark
from app.verification.learnable import drill_kind, drill_note
from app.verification.present import marks_for
from app.verification.store import CardVerdicts

FRONT = {"refuted": {"zh": "对还是错，为什么？", "en": "True or false, and why?"},
         "conditional": {"zh": "这句话在什么条件下成立？", "en": "When does this hold?"}}
BACK = {"refuted": {"zh": "错：", "en": "False: "}, "conditional": {"zh": "", "en": ""}}


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines())


@lru_cache(maxsize=4096)
def misconception_faces(verdicts: CardVerdicts, claim_id: str) -> tuple[Face, Face]:
    """(front, back) from the card's latest stored verdict on ``claim_id``."""
    psi = verdicts.psi
    v = next((x for x in verdicts.rows if x.claim_key == claim_id), None)
    if v is None:
        return Face("", ""), Face("", "")
    kind = drill_kind(v)
    if not kind:  # no longer a drill (the item is retired at the next refresh)
        return Face("", ""), Face("", "")
    front, back = {}, {}
    for lang in ("zh", "en"):
        quote = getattr(v, f"text_{lang}")
        if not quote:
            front[lang] = back[lang] = ""
            continue
        front[lang] = render_markdown(f"{FRONT[kind][lang]}\n\n{_quote(quote)}")
        back[lang] = render_markdown(BACK[kind][lang] + drill_note(v, lang, psi))
    return Face(**front), Face(**back)


@lru_cache(maxsize=1024)
def card_marks(verdicts: CardVerdicts) -> Marks:
    """The (zh, en) verdict marks of a card's latest verdicts, for its card and follow-up items."""
    zh: tuple[Mark, ...] = tuple(marks_for(verdicts.rows, "zh", verdicts.psi, link=False))
    en: tuple[Mark, ...] = tuple(marks_for(verdicts.rows, "en", verdicts.psi, link=False))
    return zh, en

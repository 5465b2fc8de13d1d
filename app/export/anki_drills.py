"""Computed drills as Anki type-in notes: the question with its numbers, a ``{{type:Answer}}`` box, and the
answer the formula gives (Anki compares what is typed with it), then the worked solution.

A drill's numbers are fresh at each showing on the server; an Anki note is fixed, so each note draws its
inputs once from a seed of its card and key (the same export gives the same numbers, re-importing updates
the note). Answers and solutions come from ``app.items.drills`` (every number from ``verify``'s formulas).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from decimal import Decimal
from html import escape

import genanki

from app.cards.schema import CardDoc
from app.items import drills

TYPED_MODEL_ID = 1_744_213_003  # fixed forever: Anki matches the note type by id
TYPED_FIELDS = ("Key", "Context", "Question", "Answer", "Solution")
_TYPED_FRONT = """<div class="ctx">{{Context}}</div>
<div class="q">{{Question}}</div>
{{type:Answer}}"""
_TYPED_BACK = """<div class="ctx">{{Context}}</div>
<div class="q">{{Question}}</div>
<hr id="answer">
{{type:Answer}}
<div class="solution">{{Solution}}</div>"""
TYPED_HINT = {"zh": "输入数值与单位，例如", "en": "Type the number and its unit, e.g."}


def typed_model(css: str) -> genanki.Model:
    return genanki.Model(TYPED_MODEL_ID, "proofdeck type-in", fields=[{"name": f} for f in TYPED_FIELDS],
                         templates=[{"name": "Type in", "qfmt": _TYPED_FRONT, "afmt": _TYPED_BACK}], css=css,
                         sort_field_index=0)


def answer_text(value: float, unit: str) -> str:
    """The answer as one types it: 4 significant digits, no exponent and no separators, then the unit
    (``120 GB``, ``12.4%``)."""
    digits = format(Decimal(f"{value:.4g}"), "f")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return digits + ("" if unit in ("%", "×") else " ") + unit if unit else digits


def seed(slug: str, key: str) -> int:
    return zlib.crc32(f"{slug}/{key}".encode())


def drill_notes(doc: CardDoc, model: genanki.Model, langs: Sequence[str], context: str, tags: list[str],
                render: Callable[[str], str], guard: Callable[[str], str],
                owns_ledger: bool | None = None) -> list[genanki.Note]:
    """One type-in note per drill of ``doc`` (``render``: card Markdown → field HTML; ``guard``: Anki's
    own text markup disarmed), in the languages ``langs``; ``owns_ledger`` as ``drills.drill_keys`` takes it."""
    out = []
    for key in drills.drill_keys(doc.slug, [c.asserts for c in doc.claims], owns_ledger):
        params = drills.new_params(key, seed=seed(doc.slug, key))
        question, solution = drills.question(params), drills.solution(params)
        unit = drills.unit(params)
        answer = answer_text(drills.answer(params), unit)
        ask = "".join(f'<div class="{lang}" lang="{lang}">{render(question[lang])}</div>' for lang in langs)
        # Anki compares the typed text with the answer character by character: show the form it expects
        hint = " · ".join(f"{TYPED_HINT[lang]} <code>{escape(answer_text(1.5, unit))}</code>" for lang in langs)
        worked = "".join(f'<div class="{lang}" lang="{lang}">{render(solution[lang])}</div>' for lang in langs)
        fields = (f"{doc.slug}/drill-{key}", context, ask + f'<div class="ctx">{hint}</div>', escape(answer), worked)
        out.append(genanki.Note(model=model, guid=genanki.guid_for("proofdeck", doc.slug, f"drill-{key}"), tags=tags,
                                fields=[guard(f) for f in fields]))
    return out

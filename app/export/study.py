"""What the handbook embeds for its study mode: the deck's review items, and one user's FSRS state.

The page (``templates/study*.js``) runs the daily review offline from this; the reviews it exports come
back through ``app.review.handbook_import``. Compact by design (the handbook of 1,000 cards must stay
small): an item is ``[card, kind, key, lang, fingerprint(, sections)]`` in the deck's new-item order (``card``:
an index into ``cards``, the slugs), and
what the handbook already shows is not repeated: a card item's front and back are its title and key
insights in the card's article, a follow-up's its ``<details>`` there (cloned by the page, never
re-parsed). Only pitfalls, misconception drills and drill showings bring their own faces, rendered
here by the server's own code (``app.items.items``, ``app.items.misconceptions``) into inert
``<template>`` elements. Nothing of card text is in the JSON: names, numbers and fingerprints only.

Drills have :data:`DRILL_SHOWINGS` showings each (fresh numbers after a wrong answer), per drill key
(``"drills": {key: [[seed, fingerprint, expected answer, unit, parameters], ...]}``): the eight ZeRO drills of every
card that has them share their showings, so a deck of 1,000 such cards renders 16 worked solutions, not
16,000. Seeds come from the deck id and the key: the same deck gives the same bytes, and the import
recomputes a showing's numbers from its seed (``drills.new_params``) instead of trusting the file.

With a user, their states (``[state, step, stability, difficulty, due ms, last review ms, reps,
lapses]`` by item index), buried and suspended items, today's new and review counts and review settings
are embedded too, with the scheduler's own parameters (``app.srs.scheduler.make_scheduler``): the page
schedules with the very numbers the server would.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from app.cards.schema import CardDoc
from app.items import drills, unit_table
from app.items.item_ids import fingerprint, showing_fingerprint
from app.items.items import Face, answering_sections, drill_faces, faces
from app.items.misconceptions import misconception_faces
from app.models.tables import CARDS, ITEMS
from app.srs.prefs import Prefs
from app.srs.scheduler import as_utc, make_scheduler
from app.srs.state import StateRow
from app.verification.store import CardVerdicts, card_verdicts

FORMAT = 1  # of the embedded data and of the reviews file the page writes
DRILL_SHOWINGS = 2
_CARD_LINK = re.compile(r'href="/cards/([a-z0-9-]+)"')


@dataclass(frozen=True)
class UserStudyState:
    """What a handbook embeds of one user (``app.review.study_snapshot`` reads it)."""

    user_id: int
    username: str
    now: datetime
    prefs: Prefs
    states: Mapping[int, StateRow]  # item id -> state (live items)
    held: Mapping[int, datetime | None]  # item id -> buried until / None: suspended
    new_today: int
    reviews_today: int


@dataclass(frozen=True)
class Template:
    """An inert ``<template id=...>`` with an item's front and back (safe HTML from the server's renderer)."""

    id: str
    front: Face
    back: Face


@dataclass
class StudyDeck:
    data: dict[str, Any]
    templates: list[Template] = field(default_factory=list)

    def json(self) -> str:
        """The data as the page's ``<script type="application/json">`` (``<`` escaped: no ``</script>``)."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _ms(dt: datetime | None) -> int | None:
    return None if dt is None else round(as_utc(dt).timestamp() * 1000)


def drill_seed(deck: str, key: str, showing: int) -> int:
    """The seed of showing ``showing`` of drill ``key`` (48 bits: exact in JavaScript's numbers)."""
    return int(hashlib.sha256(f"{deck}:{key}:{showing}".encode()).hexdigest()[:12], 16)


def _local(face: Face) -> Face:
    """Links to card pages point at the card in the handbook (the file has no /cards/ pages)."""
    return Face(*(_CARD_LINK.sub(r'href="#card-\1"', getattr(face, lang)) for lang in ("zh", "en")))


def _items(session: Session) -> list[Any]:
    it, ca = ITEMS.c, CARDS.c
    return list(session.connection().execute(
        select(it.id, it.kind, it.key, it.lang, ca.slug, ca.source_text)
        .select_from(ITEMS.join(CARDS, ca.id == it.card_id))
        .where(it.retired.is_(False), ca.retired.is_(False)).order_by(it.position, it.id)))


def _user_part(user: UserStudyState, index: Mapping[int, int]) -> dict[str, Any]:
    scheduler = make_scheduler(parameters=list(user.prefs.parameters) if user.prefs.parameters else None,
                               desired_retention=user.prefs.desired_retention, fuzz=False)
    states = {str(index[i]): [s.state, s.step, s.stability, s.difficulty, _ms(s.due), _ms(s.last_review), s.reps,
                              s.lapses] for i, s in sorted(user.states.items()) if i in index}
    return {
        "user": {"id": user.user_id, "name": user.username},
        "exported_at": as_utc(user.now).isoformat(),
        "prefs": {"language": user.prefs.language, "new_per_day": user.prefs.new_per_day,
                  "reviews_per_day": user.prefs.reviews_per_day},
        "scheduler": scheduler_config(scheduler),
        "today": {"day": as_utc(user.now).date().isoformat(), "new": user.new_today, "reviews": user.reviews_today},
        "states": states,
        "held": {str(index[i]): _ms(until) or 0 for i, until in sorted(user.held.items()) if i in index},
    }


def scheduler_config(scheduler: Any) -> dict[str, Any]:
    d = scheduler.to_dict()
    return {"parameters": d["parameters"], "desired_retention": d["desired_retention"],
            "learning_steps": d["learning_steps"], "relearning_steps": d["relearning_steps"],
            "maximum_interval": d["maximum_interval"]}


def study_deck(session: Session, deck: str, docs: Sequence[CardDoc], user: UserStudyState | None = None) -> StudyDeck:
    """The study data of the live items of ``docs``' cards (in the deck's new-item order)."""
    by_slug = {d.slug: d for d in docs}
    verdicts = card_verdicts(session)
    out = StudyDeck({})
    items: list[list[Any]] = []
    cards: dict[str, int] = {}  # slug -> its index in "cards"
    showings: dict[str, list[list[Any]]] = {}
    index: dict[int, int] = {}
    for row in _items(session):
        doc = by_slug.get(row.slug)
        if doc is None:
            continue
        cv = verdicts.get(row.slug, CardVerdicts())
        entry: list[Any] = [cards.setdefault(row.slug, len(cards)), row.kind, row.key, row.lang,
                            fingerprint(doc, row.kind, row.key, cv)]
        i = len(items)
        if row.kind == "followup":
            fu = next(f for f in doc.follow_ups if f.id == row.key)
            if fu.answer.is_empty():  # the server answers it with the card's closest sections
                entry.append(list(answering_sections(doc, fu.question.zh + " " + fu.question.en)))
        elif row.kind == "drill" and row.key not in showings:
            showings[row.key] = []
            for k in range(DRILL_SHOWINGS):
                seed = drill_seed(deck, row.key, k)
                params = drills.new_params(row.key, seed)
                front, back = drill_faces(params)
                out.templates.append(Template(f"sd-{row.key}-{k}", _local(front), _local(back)))
                showings[row.key].append([seed, showing_fingerprint(params), drills.answer(params),
                                          drills.unit(params), params])
        elif row.kind in ("pitfall", "misconception"):
            if row.kind == "pitfall":
                front, back = faces(row.source_text, row.slug, row.kind, row.key)
            else:
                front, back = misconception_faces(cv, row.key)
            out.templates.append(Template(f"st-{i}", front, back))
        index[row.id] = i
        items.append(entry)
    digest = hashlib.sha256(json.dumps([list(cards), items, showings], sort_keys=True).encode())
    data: dict[str, Any] = {"format": FORMAT, "deck": deck, "cards": list(cards), "items": items, "drills": showings,
                            "units": unit_table.table(), "user": None,
                            "exported_at": None,
                            "scheduler": scheduler_config(make_scheduler(fuzz=False)),
                            "prefs": {"language": "both", "new_per_day": Prefs().new_per_day,
                                      "reviews_per_day": Prefs().reviews_per_day},
                            "today": None, "states": {}, "held": {}}
    if user is not None:
        data.update(_user_part(user, index))
        digest.update(json.dumps([data["user"], data["exported_at"], data["states"]], sort_keys=True).encode())
    data["export"] = digest.hexdigest()[:16]
    out.data = data
    return out


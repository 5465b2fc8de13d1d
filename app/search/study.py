"""A study session on chosen cards (the quiz's "paste a question", /quiz/study): their items, shown, never scheduled.

The quiz walks these items in the page and sends no answer: studying a matched card ahead of time
leaves its FSRS schedule as it was (like a filtered deck with rescheduling off). Drills are left out
(their answer is checked and logged by the scheduler); cards, follow-ups and pitfalls come in the order
of the slugs given, then the card's own order. ``GET /api/review/next`` is not involved.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.core.vocab import lang_matches
from app.items.items import faces
from app.models.card import Card
from app.models.review import ReviewItem

MAX_STUDY_CARDS = 20
STUDY_KINDS = ("card", "followup", "pitfall")


def parse_slugs(cards: str) -> list[str]:
    """The distinct slugs of a comma-separated list, the first :data:`MAX_STUDY_CARDS` of them."""
    return list(dict.fromkeys(s.strip() for s in cards.split(",") if s.strip()))[:MAX_STUDY_CARDS]


def study_items(session: Session, slugs: list[str], lang: str) -> tuple[list[dict[str, Any]], list[str]]:
    """(items shaped like ``GET /api/review/next``'s ``item``, the slugs not in the deck)."""
    cards = {c.slug: c for c in session.exec(select(Card).where(col(Card.slug).in_(slugs),
                                                                  col(Card.retired).is_(False)))}
    items = session.exec(select(ReviewItem).where(col(ReviewItem.card_id).in_([c.id for c in cards.values()]),
                                                  col(ReviewItem.retired).is_(False),
                                                  col(ReviewItem.kind).in_(STUDY_KINDS))
                         .order_by(col(ReviewItem.position))).all()
    by_card: dict[int, list[ReviewItem]] = {}
    for it in items:
        if lang_matches(it.lang, lang):
            by_card.setdefault(it.card_id, []).append(it)
    out: list[dict[str, Any]] = []
    for slug in slugs:
        card = cards.get(slug)
        if card is None:
            continue
        for it in by_card.get(card.id or 0, []):
            front, back = faces(card.source_text, card.slug, it.kind, it.key)
            out.append({"id": it.id, "kind": it.kind, "key": it.key, "lang": it.lang,
                        "card": {"id": card.id, "slug": card.slug, "title_zh": card.title_zh,
                                 "title_en": card.title_en},
                        "front": {"zh": front.zh, "en": front.en}, "back": {"zh": back.zh, "en": back.en},
                        "typed": False, "study": True})
    return out, [s for s in slugs if s not in cards]

"""What the quiz page shows for a study session: the cards matched to a pasted question, or named."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from sqlmodel import Session, col, select

from app.models.card import Card
from app.search.match import MatchQueryError, match
from app.search.study import parse_slugs

PASTE_CARDS = 3  # a pasted question studies its best three cards


def study_session(request: Request, session: Session, q: str, cards: str) -> tuple[dict[str, Any] | None, str]:
    """(``{"slugs", "cards": [(slug, zh, en)], "query"}`` or None, an error message or "")."""
    if not q.strip() and not cards.strip():
        return None, ""
    try:
        if q.strip():
            slugs = [h.card.slug for h in match(request.app.state.engine, q, limit=PASTE_CARDS).hits]
        else:
            slugs = parse_slugs(cards)
    except MatchQueryError as exc:
        return None, str(exc)
    titles = {c.slug: (c.title_zh, c.title_en)
              for c in session.exec(select(Card).where(col(Card.slug).in_(slugs), col(Card.retired).is_(False)))}
    found = [s for s in slugs if s in titles]
    return {"slugs": found, "cards": [(s, *titles[s]) for s in found], "query": q}, ""

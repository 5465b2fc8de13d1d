"""Reviewing: what is due next for a user, grading an answer (idempotently), the follow-up chain.

Pure of HTTP: functions take a session or an engine, a user id and ``now`` (UTC), and raise precise
exceptions that the routes turn into 4xx answers.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import and_, or_
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.core.writes import run_write
from app.items import drills
from app.items.items import drill_faces, faces
from app.items.misconceptions import card_marks, misconception_faces
from app.models.card import Card, CardLink
from app.models.review import DrillShowing, ItemState, ReviewItem, ReviewLog
from app.review.errors import ItemNotFound
from app.review.queue_index import REVIEW_STATE, Pick
from app.srs.prefs import settings_for
from app.srs.scheduler import as_utc, to_db
from app.srs.state import StateRow, state_public
from app.verification.store import one_card_verdicts


def _live(lang: str) -> list[Any]:
    conds: list[Any] = [col(ReviewItem.retired).is_(False), col(Card.retired).is_(False)]
    if lang in ("zh", "en"):
        conds.append(col(ReviewItem.lang).in_(("", lang)))
    return conds


def item_view(session: Session, user_id: int, item: Any, card: Any, state: StateRow | None) -> dict[str, Any]:
    """What the quiz shows for ``item`` of ``card`` (rows or anything with their fields); a drill gets a
    fresh showing (its numbers stored server-side), written after closing ``session``'s connection."""
    card = SimpleNamespace(id=card.id, slug=card.slug, title_zh=card.title_zh, title_en=card.title_en,
                           source_text=card.source_text, verdicts=one_card_verdicts(session, card.slug))
    return _render(session.get_bind(), user_id, item, card, state, release=session)  # type: ignore[arg-type]


def _render(engine: Engine, user_id: int, item: Any, card: Any, state: StateRow | None,
            release: Session | None = None) -> dict[str, Any]:
    showing_id = None
    if item.kind == "drill":
        item_id, key, seed = item.id, item.key, secrets.randbits(64)
        # a request's session is closed first (one pooled connection per request); loaded rows stay usable
        showing_id, params = run_write(engine, lambda s: _showing(s, user_id, item_id, key, seed), release=release)
        front, _back = drill_faces(params)
        back = None
    elif item.kind == "misconception":
        front, back = misconception_faces(card.verdicts, item.key)
    else:
        front, back = faces(card.source_text, card.slug, item.kind, item.key, card_marks(card.verdicts))
    return {
        "id": item.id, "kind": item.kind, "key": item.key, "lang": item.lang,
        "card": {"id": card.id, "slug": card.slug, "title_zh": card.title_zh, "title_en": card.title_en},
        "front": {"zh": front.zh, "en": front.en},
        "back": {"zh": back.zh, "en": back.en} if back is not None else None,
        "typed": item.kind == "drill", "showing_id": showing_id,
        "unit": drills.unit(params) if item.kind == "drill" else None,
        "new": state is None, "state": state_public(state),
    }


def next_view(engine: Engine, user_id: int, pick: Pick, language: str,
              release: Session | None = None) -> dict[str, Any]:
    """The answer of ``GET /api/review/next`` for what :meth:`Queues.pick` found. Touches the database only
    for a drill (its showing); everything else comes from the in-memory queue."""
    item = pick.item
    out: dict[str, Any] = {
        "item": None, "due_left": pick.due_now + pick.new_left, "due_now": pick.due_now, "new_left": pick.new_left,
        "next_due": pick.next_due.isoformat() if pick.next_due is not None else None, "language": language,
        "counts": pick.counts.public() if pick.counts is not None else None}
    if item is not None:
        card = SimpleNamespace(id=item.card_id, slug=item.slug, title_zh=item.title_zh, title_en=item.title_en,
                               source_text=item.source_text, verdicts=item.verdicts)
        out["item"] = _render(engine, user_id, item, card, pick.state, release=release)
    return out


def _showing(s: Session, user_id: int, item_id: int, key: str, seed: int) -> tuple[int, dict[str, Any]]:
    """The drill's showing for this user: the latest one while it is unanswered (a page reload keeps its
    numbers), else a new one with fresh numbers (``seed``)."""
    last = s.exec(select(DrillShowing).where(DrillShowing.user_id == user_id, DrillShowing.item_id == item_id)
                  .order_by(col(DrillShowing.id).desc()).limit(1)).first()
    if last is not None and last.id is not None and s.exec(
            select(ReviewLog.id).where(ReviewLog.showing_id == last.id)).first() is None:
        return last.id, dict(last.params)
    params = drills.new_params(key, seed)
    showing = DrillShowing(user_id=user_id, item_id=item_id, params=params)
    s.add(showing)
    s.flush()
    assert showing.id is not None
    return showing.id, params


def chain(session: Session, user_id: int, item_id: int, now: datetime) -> dict[str, Any]:
    """After a card: its follow-ups that can be reviewed now (due or new), then links to related cards.

    With sibling burying on (the default) the follow-ups are the card's siblings and wait for another day,
    as the queue has them: ``followups`` is empty and ``buried`` says how many wait."""
    item = session.get(ReviewItem, item_id)
    card = session.get(Card, item.card_id) if item is not None else None
    if item is None or card is None or item.retired or card.retired:
        raise ItemNotFound(item_id)
    st = settings_for(session, user_id)
    rows = session.exec(
        select(ReviewItem, ItemState)
        .join(Card, col(Card.id) == ReviewItem.card_id)
        .outerjoin(ItemState, and_(col(ItemState.item_id) == ReviewItem.id, col(ItemState.user_id) == user_id))
        .where(ReviewItem.card_id == card.id, ReviewItem.kind == "followup", *_live(st.language),
               or_(col(ItemState.id).is_(None), col(ItemState.due) <= to_db(now)))
        .order_by(col(ReviewItem.position))).all()
    buried = [fu for fu, state in rows if st.bury_siblings and (state is None or state.state == REVIEW_STATE)]
    followups = [item_view(session, user_id, fu, card, None if state is None else StateRow.of(state))
                 for fu, state in rows if fu not in buried]
    links = session.exec(select(CardLink).where(CardLink.card_id == card.id).order_by(col(CardLink.position))).all()
    slugs = [lk.target_slug for lk in links if lk.target_slug]
    known = {c.slug: c for c in session.exec(select(Card).where(col(Card.slug).in_(slugs),
                                                                col(Card.retired).is_(False)))}
    related = []
    for lk in links:
        target = known.get(lk.target_slug)
        related.append({"slug": lk.target_slug or None, "in_deck": target is not None,
                        "title_zh": target.title_zh if target else lk.target_title_zh,
                        "title_en": target.title_en if target else lk.target_title_en,
                        "url": f"/cards/{target.slug}" if target else None})
    return {"card": {"id": card.id, "slug": card.slug}, "followups": followups, "buried": len(buried),
            "links": related}


def recent_logs(session: Session, user_id: int, limit: int = 50, offset: int = 0) -> list[ReviewLog]:
    return list(session.exec(select(ReviewLog).where(ReviewLog.user_id == user_id)
                             .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc())
                             .offset(offset).limit(limit)).all())


def log_public(log: ReviewLog) -> dict[str, Any]:
    return {"id": log.id, "item_id": log.item_id, "rating": log.rating, "typed_answer": log.typed_answer,
            "correct": log.correct, "duration_ms": log.duration_ms,
            "reviewed_at": as_utc(log.reviewed_at).isoformat(), "was_new": log.was_new,
            "state_before": log.state_before, "state_after": log.state_after}

"""Burying and suspending: a user takes one item out of the daily loop, until their next day (bury) or
until they resume it (suspend). Run inside :meth:`ReviewEngine.write` (the change clock moves, so every
process's queue drops the item at once). Only the user's own hold is touched: items are shared by the
deck, holds are per user."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, or_, select

from app.models.card import Card
from app.models.hold import HOLD_KINDS, ItemHold
from app.models.review import ReviewItem
from app.review.errors import ItemNotFound
from app.srs.scheduler import as_utc, day_start, to_db


def hold_public(hold: ItemHold | None) -> dict[str, Any] | None:
    if hold is None:
        return None
    return {"kind": hold.kind, "until": as_utc(hold.until).isoformat() if hold.until is not None else None}


def live_item(session: Session, item_id: int) -> tuple[ReviewItem, Card]:
    """The item and its card, or :class:`ItemNotFound` (404) when either is gone or retired."""
    item = session.get(ReviewItem, item_id)
    card = session.get(Card, item.card_id) if item is not None else None
    if item is None or card is None or item.retired or card.retired:
        raise ItemNotFound(item_id)
    return item, card


def hold(session: Session, user_id: int, item_id: int, kind: str, now: datetime) -> dict[str, Any]:
    """Bury (until the start of the user's next day) or suspend ``item_id`` for ``user_id``; holding it again
    replaces the hold (a suspended item buried becomes buried). Returns the item id and its hold."""
    assert kind in HOLD_KINDS
    live_item(session, item_id)
    row = session.exec(select(ItemHold).where(ItemHold.user_id == user_id, ItemHold.item_id == item_id)).first()
    if row is None:
        row = ItemHold(user_id=user_id, item_id=item_id, kind=kind)
    row.kind = kind
    row.until = to_db(day_start(now) + timedelta(days=1)) if kind == "bury" else None
    row.created_at = to_db(now)
    session.add(row)
    session.flush()
    return {"item_id": item_id, "hold": hold_public(row)}


def resume(session: Session, user_id: int, item_id: int) -> dict[str, Any]:
    """Lift the user's hold of ``item_id`` (nothing to lift is no error: a retried resume answers the same)."""
    row = session.exec(select(ItemHold).where(ItemHold.user_id == user_id, ItemHold.item_id == item_id)).first()
    if row is not None:
        session.delete(row)
    return {"item_id": item_id, "hold": None, "resumed": row is not None}


def held(session: Session, user_id: int, now: datetime) -> list[dict[str, Any]]:
    """The user's buried (still in effect) and suspended items with their card, newest hold first."""
    rows = session.exec(
        select(ItemHold, ReviewItem, Card)
        .join(ReviewItem, col(ReviewItem.id) == ItemHold.item_id)
        .join(Card, col(Card.id) == ReviewItem.card_id)
        .where(ItemHold.user_id == user_id, or_(col(ItemHold.until).is_(None), col(ItemHold.until) > to_db(now)))
        .order_by(col(ItemHold.created_at).desc(), col(ItemHold.id).desc())).all()
    return [{"item_id": item.id, "kind": item.kind, "key": item.key, "retired": item.retired or card.retired,
             "card": {"slug": card.slug, "title_zh": card.title_zh, "title_en": card.title_en},
             "hold": hold_public(h), "held_at": as_utc(h.created_at).isoformat()} for h, item, card in rows]


def hold_of(session: Session, user_id: int, item_id: int, now: datetime) -> ItemHold | None:
    """The user's hold of one item that is in effect at ``now`` (None when free)."""
    row = session.exec(select(ItemHold).where(ItemHold.user_id == user_id, ItemHold.item_id == item_id)).first()
    if row is None or (row.until is not None and as_utc(row.until) <= as_utc(now)):
        return None
    return row

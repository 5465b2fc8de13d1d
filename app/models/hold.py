"""Items a user took out of the daily loop: buried until a time (the start of their next day) or suspended
until they resume them. A held item is never offered by ``GET /api/review/next`` and counts nowhere."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.models.card import utcnow

HOLD_KINDS = ("bury", "suspend")


class ItemHold(SQLModel, table=True):
    """One (user, item) held: ``kind`` "bury" (``until`` set: gone after it) or "suspend" (``until`` None)."""

    __table_args__ = (UniqueConstraint("user_id", "item_id"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True, ondelete="CASCADE")
    item_id: int = Field(foreign_key="reviewitem.id", ondelete="CASCADE")
    kind: str = Field(max_length=16)
    until: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)

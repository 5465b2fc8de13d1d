"""Review items (what the quiz asks), per-user scheduler state, drill showings and the review log.

Items are keyed by ``(card_id, kind, key)`` with a stable string key (the follow-up id, ``pitfall-en-2``,
``memory-zero2``), never by the row ids of a card's child rows, so editing a card keeps history.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.models.card import utcnow

ITEM_KINDS = ("card", "followup", "pitfall", "drill")


class ReviewItem(SQLModel, table=True):
    """One thing to review; ``lang`` is "" for bilingual items, "zh"/"en" for a one-language pitfall."""

    __table_args__ = (UniqueConstraint("card_id", "kind", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    kind: str = Field(max_length=16)
    key: str = Field(max_length=200)
    lang: str = ""
    position: int = 0  # order of new items within the deck: card id * 1000 + position in the card
    # its follow-up/pitfall/drill left the card, or the card was retired; history kept
    retired: bool = Field(default=False, index=True)


class ItemSource(SQLModel, table=True):
    """The card content hash the items of a card were last derived from (stale items get refreshed)."""

    card_id: int = Field(foreign_key="card.id", primary_key=True, ondelete="CASCADE")
    content_hash: str = ""


class ItemState(SQLModel, table=True):
    """The FSRS card of one (user, item): state, step, stability, difficulty, due, last review."""

    __table_args__ = (UniqueConstraint("user_id", "item_id"),
                      Index("ix_itemstate_user_live_due", "user_id", "live", "due", "lang"))
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", ondelete="CASCADE")
    item_id: int = Field(foreign_key="reviewitem.id", index=True, ondelete="CASCADE")
    # copies of the item's ``not retired`` and ``lang`` (kept in step by app.items.items), so counting what
    # is due is one index range scan without joins
    live: bool = True
    lang: str = ""
    state: int = 1
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime
    last_review: datetime | None = None
    reps: int = 0
    lapses: int = 0


class DrillShowing(SQLModel, table=True):
    """The numbers one showing of a drill used; grading reads them from here, never from the client."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True, ondelete="CASCADE")
    item_id: int = Field(foreign_key="reviewitem.id", ondelete="CASCADE")
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ReviewLog(SQLModel, table=True):
    """One answered item: rating (1-4; typed drills map correct→Good, wrong→Again), timing, state before/after.

    ``idempotency_key`` is unique per user: a retried POST finds its row and gets ``response`` back.
    """

    __table_args__ = (UniqueConstraint("user_id", "idempotency_key"),
                      Index("ix_reviewlog_user_time", "user_id", "reviewed_at"),
                      # "new items reviewed today" (every GET /api/review/next) without visiting today's other rows
                      Index("ix_reviewlog_user_new_time", "user_id", "was_new", "reviewed_at"))
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", ondelete="CASCADE")
    item_id: int = Field(foreign_key="reviewitem.id", index=True, ondelete="CASCADE")
    rating: int
    typed_answer: str | None = None
    correct: bool | None = None
    showing_id: int | None = Field(default=None, index=True)  # "was this showing answered?" (drills)
    duration_ms: int | None = None
    reviewed_at: datetime
    was_new: bool = False
    prev_state: int | None = None  # FSRS state before the answer (None: first review); 2 = Review
    state_before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    state_after: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    idempotency_key: str = Field(max_length=128)
    response: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class ChangeClock(SQLModel, table=True):
    """A revision counter per scope: ``deck`` (bumped by every sync) and ``user:<id>`` (bumped by every
    transaction that changes that user's review state). In-memory review queues (``app.review.queue``)
    compare them to notice writes made by other processes.
    """

    name: str = Field(primary_key=True, max_length=64)
    rev: int = 0

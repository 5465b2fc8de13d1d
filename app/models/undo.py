"""Undone answers: one row per ``POST /api/review/undo``, keyed like answers (``idempotency_key`` unique per
user), so a retried undo gets its first response back and never undoes a second answer. It also keeps the
undone answer's own key and response: a client that retries that answer later (it never saw the reply) gets
the reply replayed, and the answer is not graded a second time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class UndoRecord(SQLModel, table=True):
    """An undo that committed: which log row it removed (``undone_log_id``) and the response it gave."""

    __table_args__ = (UniqueConstraint("user_id", "idempotency_key"),
                      Index("ix_undorecord_answer_key", "user_id", "answer_key"))
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True, ondelete="CASCADE")
    idempotency_key: str = Field(max_length=128)
    undone_log_id: int
    undone_at: datetime
    response: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # the undone answer: its Idempotency-Key, item and response (what a retry of that answer gets back)
    answer_key: str | None = Field(default=None, max_length=128)
    answer_item_id: int | None = None
    answer_response: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))

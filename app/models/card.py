"""Cards as stored: one ``Card`` row per slug plus its sections, follow-ups, links and claims.

A card keeps its row (and so its id) across edits: sync updates it in place by slug. Review state
(elsewhere) refers to cards by id and to follow-ups by their stable string ``key``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class Card(SQLModel, table=True):
    """One topic: slug, bilingual title, metadata; the file's content hash detects edits."""

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(index=True, unique=True, max_length=200)
    title_zh: str = ""
    title_en: str = ""
    module_code: str = Field(default="", index=True)
    module_zh: str = ""
    module_en: str = ""
    topic_code: str = ""
    topic_zh: str = ""
    topic_en: str = ""
    difficulty: str = Field(default="medium", index=True)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    content_hash: str = ""
    source_path: str = ""  # card file name relative to the cards folder
    source_text: str = Field(default="", sa_column=Column(Text, nullable=False))  # the card file as synced
    search_text: str = Field(default="", sa_column=Column(Text, nullable=False))  # lower-cased, both languages
    retired: bool = Field(default=False, index=True)  # file removed from cards/; kept for review history
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class CardSection(SQLModel, table=True):
    """summary / insights / derivation / tradeoffs / pitfalls, zh and en Markdown."""

    __table_args__ = (UniqueConstraint("card_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    key: str
    position: int = 0
    zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    en: str = Field(default="", sa_column=Column(Text, nullable=False))


class CardFollowUp(SQLModel, table=True):
    """A deeper question; ``key`` is the follow-up id from the card file (stable across edits)."""

    __table_args__ = (UniqueConstraint("card_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    key: str
    position: int = 0
    question_zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    question_en: str = Field(default="", sa_column=Column(Text, nullable=False))
    answer_zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    answer_en: str = Field(default="", sa_column=Column(Text, nullable=False))


class CardLink(SQLModel, table=True):
    """card → card by slug, or by title while the target is not in the deck."""

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    position: int = 0
    target_slug: str = Field(default="", index=True)
    target_title_zh: str = ""
    target_title_en: str = ""


class CardClaim(SQLModel, table=True):
    """A quantitative statement in the card's words and what it asserts (judged by ``verify``)."""

    __table_args__ = (UniqueConstraint("card_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    key: str
    position: int = 0
    text_zh: str = Field(default="", sa_column=Column(Text, nullable=False))
    text_en: str = Field(default="", sa_column=Column(Text, nullable=False))
    section: str = ""
    asserts: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    reading: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    unverifiable: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))

"""This database's deck identity: a random id made once, named in every handbook export and checked by
the handbook review import (``app.review.handbook_import``), so reviews done in a handbook of another
server's deck are refused instead of landing on items that merely share a slug."""

from __future__ import annotations

import secrets
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel

from app.core.db import new_session
from app.core.writes import run_write
from app.models.card import utcnow

SCOPE = "deck"


class DeckIdentity(SQLModel, table=True):
    """One row (``scope = "deck"``): the deck's id, made on first use."""

    scope: str = Field(primary_key=True, max_length=16)
    deck_id: str = Field(max_length=64)
    created_at: datetime


@lru_cache(maxsize=4)
def _insert_statement(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(DeckIdentity.__table__).on_conflict_do_nothing(  # type: ignore[attr-defined]
        index_elements=["scope"])


def _read(session: Session) -> str | None:
    return session.scalars(select(DeckIdentity.deck_id).where(  # type: ignore[call-overload]
        DeckIdentity.scope == SCOPE)).first()


def deck_id(engine: Engine) -> str:
    """The deck's id (32 hex digits), made and stored by the first caller (concurrent first callers agree)."""
    with new_session(engine) as session:
        found = _read(session)
    if found:
        return found

    def make(session: Session) -> str:
        session.execute(_insert_statement(session.get_bind().dialect.name),
                        {"scope": SCOPE, "deck_id": secrets.token_hex(16), "created_at": utcnow()})
        made = _read(session)
        assert made is not None
        return made

    return run_write(engine, make)

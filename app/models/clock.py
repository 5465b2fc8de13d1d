"""Revision counters that tell a process when another one changed review state (``ChangeClock`` rows).

Scopes: :data:`DECK` (bumped by every sync: items, cards or their text may have changed) and
:func:`user_scope` (bumped by every transaction that changes one user's states or logs). A writer bumps
inside its own transaction, so a reader that sees the new revision also sees the rows it covers.
Anything that edits those tables directly (a script, raw SQL) must bump the same counter, or servers
keep serving their queue until they restart or sync.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlmodel import Session

from app.models.tables import CLOCK

DECK = "deck"


def user_scope(user_id: int) -> str:
    return f"user:{user_id}"


@lru_cache(maxsize=4)
def _bump_statement(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(CLOCK).values(name=bindparam("name"), rev=1)
    return stmt.on_conflict_do_update(index_elements=[CLOCK.c.name],
                                      set_={"rev": CLOCK.c.rev + 1}).returning(CLOCK.c.rev)


def bump(conn: Connection, name: str) -> int:
    """Add one to ``name``'s revision (creating it at 1) in the caller's transaction; the new revision."""
    return int(conn.execute(_bump_statement(conn.dialect.name), {"name": name}).scalar_one())


@lru_cache(maxsize=1)
def _read_statement() -> Any:
    return select(CLOCK.c.name, CLOCK.c.rev).where(CLOCK.c.name.in_(bindparam("names", expanding=True)))


def read(conn: Connection, *names: str) -> dict[str, int]:
    """Current revisions of ``names`` (0 for a scope never bumped)."""
    found = {name: int(rev) for name, rev in conn.execute(_read_statement(), {"names": list(names)})}
    return {name: found.get(name, 0) for name in names}


FORGET = "proofdeck_forget_queues"  # session.info key: what this process's review queues drop at commit


def deck_changed(session: Session) -> None:
    """Call inside a transaction that changes cards or items (sync): bumps the deck revision; the review
    engine of this process drops its queues when the transaction commits (``app.review.queue.after_commit``)."""
    bump(session.connection(), DECK)
    session.info.setdefault(FORGET, set()).add(None)


def user_changed(session: Session, user_id: int) -> None:
    """Call inside a transaction that changes a user's states or logs other than through the review engine
    (deletion): bumps the user's revision; this process's queues of that user go at commit."""
    bump(session.connection(), user_scope(user_id))
    session.info.setdefault(FORGET, set()).add(user_id)

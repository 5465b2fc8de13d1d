"""Web sessions end on the server: after ``SESSION_IDLE_DAYS`` without a request and ``SESSION_MAX_DAYS``
after the login at most (``PROOFDECK_SESSION_*``; 30 and 90 days by default). API tokens (``kind``
"api") do not expire: an admin revokes them (``proofdeck user tokens NAME --revoke ID``).

A credential's ``last_used_at`` is written when a request finds it older than :data:`TOUCH_EVERY` (at
most hourly, so the idle limit is exact to the hour and a busy session costs one small write an hour); an
API token's first use is written at once, so ``proofdeck user tokens`` tells a used token from an unused
one. The sign-in cache keeps a session no longer than its deadline (``app.auth.cache``). "Log out
everywhere" deletes every session of a user and ends their pending login links (``POST /logout/everywhere``,
``proofdeck user logout NAME``); API tokens stay, for scripts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, delete, select

from app.auth.links import end_pending
from app.core.config import settings
from app.models.card import utcnow
from app.models.user import ApiToken

TOUCH_EVERY = timedelta(hours=1)


def idle_limit() -> timedelta:
    return timedelta(days=settings.SESSION_IDLE_DAYS)


def max_age() -> timedelta:
    return timedelta(days=settings.SESSION_MAX_DAYS)


def deadline(token: ApiToken) -> datetime | None:
    """When this credential stops working: None for an API token (no expiry)."""
    if token.kind != "session":
        return None
    return min(token.created_at + max_age(), (token.last_used_at or token.created_at) + idle_limit())


def remaining_s(token: ApiToken, now: datetime | None = None) -> float | None:
    """Seconds this credential still works (<= 0: expired); None: it does not expire."""
    end = deadline(token)
    return None if end is None else (end - (now or utcnow())).total_seconds()


def touch_due(token: ApiToken, now: datetime | None = None) -> bool:
    """Whether a request should record that this credential was used (last recorded over an hour ago; an
    API token also on its first use)."""
    if token.kind == "api" and token.last_used_at is None:
        return True
    return (now or utcnow()) - (token.last_used_at or token.created_at) >= TOUCH_EVERY


def touch(session: Session, token: ApiToken, now: datetime | None = None) -> bool:
    """Record that a credential was used, when :func:`touch_due` says so.

    A Core UPDATE (no ORM flush): it must not empty every process's sign-in cache each hour.
    """
    now = now or utcnow()
    if not touch_due(token, now):
        return False
    session.exec(update(ApiToken).where(col(ApiToken.id) == token.id).values(last_used_at=now))
    return True


def purge_expired(session: Session, user_id: int, now: datetime | None = None) -> int:
    """Delete ``user_id``'s sessions past their deadline (at each login: the table does not grow)."""
    now = now or utcnow()
    dead = [t.id for t in session.exec(select(ApiToken).where(ApiToken.user_id == user_id,
                                                              ApiToken.kind == "session"))
            if (left := remaining_s(t, now)) is not None and left <= 0]
    if dead:
        session.exec(delete(ApiToken).where(col(ApiToken.id).in_(dead)))
    return len(dead)


def revoke_all(session: Session, user_id: int) -> int:
    """Log ``user_id`` out everywhere: delete every web session (API tokens stay). Returns how many."""
    rows = session.exec(select(ApiToken).where(ApiToken.user_id == user_id, ApiToken.kind == "session")).all()
    for row in rows:
        session.delete(row)  # ORM deletes: the sign-in cache of this process forgets them at once
    return len(rows)


def log_out_everywhere(session: Session, user_id: int) -> tuple[int, int]:
    """End every web session of ``user_id`` and every login link not used yet; API tokens stay.
    Returns (sessions ended, links ended)."""
    return revoke_all(session, user_id), end_pending(session, user_id)

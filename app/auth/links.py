"""One-time login links: ``/login?token=…`` signs in once, within ``PROOFDECK_LOGIN_LINK_MINUTES`` (15).

A link's token is not an API token and not a session: it lives in its own table (``loginlink``, stored as
SHA-256 like every token), opens one web session and is spent. A link that was used, has expired or was
ended by "log out everywhere" is kept a day (:data:`KEPT`) so that opening it again says which, and how to
get a new one (``proofdeck user link NAME``). Spending is one conditional UPDATE: two tabs opening the same
link at once get one session between them. The clock is the caller's (the login routes pass the app's
login clock, ``app.state.login_limiter.clock``), so tests move time instead of sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import update
from sqlmodel import Session, col, delete, select

from app.auth.security import hash_token, new_token, token_matches
from app.core.config import settings
from app.models.card import utcnow
from app.models.user import LoginLink, User

KEPT = timedelta(days=1)  # a spent link's row stays this long after it expired, to say why it fails
Refusal = Literal["used", "expired", "ended"]


def lifetime() -> timedelta:
    return timedelta(minutes=settings.LOGIN_LINK_MINUTES)


def issue_link(session: Session, user: User, now: datetime | None = None) -> str:
    """Store the hash of a new login link's token for ``user``; return the token (shown this once).
    Also deletes links of anyone that expired over :data:`KEPT` ago (the table does not grow)."""
    assert user.id is not None
    now = now or utcnow()
    session.exec(delete(LoginLink).where(col(LoginLink.expires_at) < now - KEPT))
    token = new_token()
    session.add(LoginLink(user_id=user.id, token_hash=hash_token(token), created_at=now, expires_at=now + lifetime()))
    return token


@dataclass(frozen=True)
class FoundLink:
    """A stored link and its user; ``refusal`` says why it no longer signs in (None: it does)."""

    link_id: int
    user: User
    refusal: Refusal | None


def refusal(link: LoginLink, now: datetime) -> Refusal | None:
    if link.used_at is not None:
        return "used"
    if link.ended_at is not None:
        return "ended"
    if link.expires_at <= now:
        return "expired"
    return None


def find_link(session: Session, token: str, now: datetime) -> FoundLink | None:
    """The link ``token`` opens (None: no such link; a wrong or oversized token costs no lookup)."""
    if not token or len(token) > 256:
        return None
    row = session.exec(select(LoginLink, User).join(User, col(User.id) == LoginLink.user_id)
                       .where(LoginLink.token_hash == hash_token(token))).first()
    if row is None or not token_matches(token, row[0].token_hash):
        return None
    link, user = row
    assert link.id is not None
    return FoundLink(link.id, user, refusal(link, now))


def spend(session: Session, link_id: int, now: datetime) -> bool:
    """Mark the link used, if nobody did first and it still lives; whether this call spent it."""
    result = session.exec(update(LoginLink).where(
        col(LoginLink.id) == link_id, col(LoginLink.used_at).is_(None), col(LoginLink.ended_at).is_(None),
        col(LoginLink.expires_at) > now).values(used_at=now))
    return bool(result.rowcount == 1)


def end_pending(session: Session, user_id: int, now: datetime | None = None) -> int:
    """End ``user_id``'s links not used yet and not expired ("log out everywhere"). Returns how many."""
    now = now or utcnow()
    result = session.exec(update(LoginLink).where(
        col(LoginLink.user_id) == user_id, col(LoginLink.used_at).is_(None), col(LoginLink.ended_at).is_(None),
        col(LoginLink.expires_at) > now).values(ended_at=now))
    return int(result.rowcount)


def why(found: FoundLink) -> str:
    """The page's words for a link that no longer signs in, and how to get a new one."""
    what = {"used": "has already been used (a login link signs in once)",
            "expired": f"has expired (a login link lives {settings.LOGIN_LINK_MINUTES:g} minutes)",
            "ended": "was ended by \u201clog out everywhere\u201d"}[found.refusal or "used"]
    return (f"This login link {what}. For a new one, ask an admin to run "
            f"`proofdeck user link {found.user.username}`, or sign in with a password.")

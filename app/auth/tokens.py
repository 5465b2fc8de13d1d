"""A user's API tokens, listed and revoked (``proofdeck user tokens NAME [--revoke ID]``).

A listing says which token is which (its id and label), when it was made and last used, and never the token
nor its hash: neither is needed to revoke one, by id. Revoking deletes the row through the ORM, so the
sign-in cache of this process forgets it at once and other processes within ``app.auth.cache.TTL``; a
request with it then gets 401.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from app.models.user import ApiToken


@dataclass(frozen=True)
class TokenInfo:
    """What a listing shows of one API token."""

    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None


def api_tokens(session: Session, user_id: int) -> list[TokenInfo]:
    rows = session.exec(select(ApiToken).where(ApiToken.user_id == user_id, ApiToken.kind == "api")
                        .order_by(col(ApiToken.id))).all()
    return [TokenInfo(r.id, r.label, r.created_at, r.last_used_at) for r in rows if r.id is not None]


def revoke_api_token(session: Session, user_id: int, token_id: int) -> bool:
    """Delete ``user_id``'s API token ``token_id``; False when they have no such token (nothing changed)."""
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user_id or row.kind != "api":
        return False
    session.delete(row)
    return True

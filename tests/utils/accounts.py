"""An account on a live server's database, made from the test process (the server runs elsewhere)."""

from __future__ import annotations

from sqlmodel import Session

from app.auth.users import create_user
from app.core.db import make_engine


def new_user_token(database_url: str, username: str) -> str:
    """Create ``username``; return its API token (what a login link carries)."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            _user, token = create_user(s, username)
    finally:
        engine.dispose()
    return token

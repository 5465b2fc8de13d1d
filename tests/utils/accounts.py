"""An account on a live server's database, made from the test process (the server runs elsewhere)."""

from __future__ import annotations

from sqlmodel import Session

from app.auth.links import issue_link
from app.auth.users import create_user
from app.core.db import make_engine


def new_user(database_url: str, username: str) -> tuple[str, str]:
    """Create ``username``; return (its API token, a one-time login link's token)."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            user, token = create_user(s, username)
            link = issue_link(s, user)
    finally:
        engine.dispose()
    return token, link


def new_user_token(database_url: str, username: str) -> str:
    """Create ``username``; return its API token (for ``Authorization: Bearer``)."""
    return new_user(database_url, username)[0]


def new_user_link(database_url: str, username: str) -> str:
    """Create ``username``; return a one-time login link's token (``/login?token=``)."""
    return new_user(database_url, username)[1]


def new_link(database_url: str, username: str) -> str:
    """A fresh one-time login link's token for the existing ``username`` (a link signs in once)."""
    from sqlmodel import select

    from app.models.user import User

    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            return issue_link(s, s.exec(select(User).where(User.username == username)).one())
    finally:
        engine.dispose()

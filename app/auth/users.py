"""User accounts: create, look up by token or password, start web sessions, first-start admin.

An account is made with one API token (``create_user``, shown once); the first-start admin gets a login
link instead (``app.auth.links``: printed in the server's log, where a permanent credential should not be).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from app.auth.links import issue_link
from app.auth.security import hash_password, hash_token, new_token, token_matches, verify_password
from app.auth.sessions import remaining_s
from app.models.user import ApiToken, User, UserSettings

USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SESSION_COOKIE = "proofdeck_session"
MIN_PASSWORD = 8


class UserError(ValueError):
    """Bad input for an account operation; the message says what and how to fix it."""


def validate_username(name: str) -> str:
    if not USERNAME_RE.fullmatch(name):  # not .match: its '$' also matches before a final newline
        raise UserError(f"username {name!r} is invalid: use 1-64 letters, digits, '_', '.', '-' "
                        "starting with a letter or digit")
    return name


def create_user(session: Session, username: str, *, is_admin: bool = False,
                password: str | None = None) -> tuple[User, str]:
    """Create a user with settings and one API token; return (user, the token in clear, shown once)."""
    user = _new_account(session, username, is_admin=is_admin, password=password)
    return user, issue_token(session, user, kind="api", label="created with the account")


def _new_account(session: Session, username: str, *, is_admin: bool, password: str | None) -> User:
    validate_username(username)
    if session.exec(select(User).where(User.username == username)).first() is not None:
        raise UserError(f"user {username!r} already exists; pick another name")
    if password is not None and len(password) < MIN_PASSWORD:
        raise UserError(f"password is too short: use at least {MIN_PASSWORD} characters")
    user = User(username=username, is_admin=is_admin,
                password_hash=hash_password(password) if password else None)
    session.add(user)
    session.flush()
    assert user.id is not None
    session.add(UserSettings(user_id=user.id))
    return user


def issue_token(session: Session, user: User, *, kind: str, label: str = "") -> str:
    """Store the hash of a new token for ``user``; return the token (the only time it is visible)."""
    assert user.id is not None
    token = new_token()
    session.add(ApiToken(user_id=user.id, token_hash=hash_token(token), kind=kind, label=label))
    return token


def user_for_token(session: Session, token: str, *, kinds: tuple[str, ...] = ("api", "session")) -> User | None:
    found = login_for_token(session, token, kinds=kinds)
    return found[0] if found else None


@lru_cache(maxsize=1)
def _login_statement() -> Any:
    """Built once (every request runs it); the token hash is bound per call."""
    return (select(ApiToken, User, UserSettings).join(User, col(User.id) == ApiToken.user_id)
            .outerjoin(UserSettings, col(UserSettings.user_id) == User.id)
            .where(ApiToken.token_hash == bindparam("digest")))


def find_token(session: Session, token: str) -> tuple[ApiToken, User, UserSettings | None] | None:
    """The one token lookup (the login route and the sign-in cache both use it): the stored token, its user
    and their review settings, in one query; None for an unknown, mismatched or expired token."""
    if not token or len(token) > 256:
        return None
    row = session.exec(_login_statement(), params={"digest": hash_token(token)}).first()
    if row is None:
        return None
    api_token, user, user_settings = row
    if not token_matches(token, api_token.token_hash):
        return None
    if (left := remaining_s(api_token)) is not None and left <= 0:
        return None  # an expired web session
    return api_token, user, user_settings


def login_for_token(session: Session, token: str, *, kinds: tuple[str, ...] = ("api", "session")
                    ) -> tuple[User, UserSettings | None] | None:
    """The user behind a token of one of ``kinds`` and their review settings (:func:`find_token`)."""
    found = find_token(session, token)
    if found is None or found[0].kind not in kinds:
        return None
    return found[1], found[2]


def user_for_password(session: Session, username: str, password: str) -> User | None:
    user = session.exec(select(User).where(User.username == username)).first()
    ok = verify_password(password, user.password_hash if user else None)
    return user if ok and user is not None else None


def revoke_session(session: Session, token: str) -> None:
    row = session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token),
                                              ApiToken.kind == "session")).first()
    if row is not None:
        session.delete(row)


def user_count(session: Session) -> int:
    return int(session.exec(select(func.count()).select_from(User)).one())


def ensure_first_admin(session: Session) -> str | None:
    """When no user exists, create ``admin`` and return its login link's token (else None). No API token:
    ``proofdeck user link admin --api-token`` makes one."""
    if user_count(session) > 0:
        return None
    return issue_link(session, _new_account(session, "admin", is_admin=True, password=None))

"""Named dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from app.auth import cache as auth_cache
from app.auth.users import SESSION_COOKIE
from app.core.db import get_session
from app.models.user import User, UserSettings

SessionDep = Annotated[Session, Depends(get_session)]


def _credential(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(SESSION_COOKIE)


async def optional_user(request: Request) -> User | None:
    """The user behind a ``Authorization: Bearer`` token or the session cookie, else None.

    Their review settings come with the same query and wait in ``request.state.user_settings``. Sign-ins
    are cached for a few seconds (``app.auth.cache``): a hit costs no query and no thread hop.
    """
    token = _credential(request)
    if not token:
        return None
    engine = request.app.state.engine
    found = auth_cache.cached_login(engine, token)
    if found is auth_cache.MISS:
        found = await run_in_threadpool(auth_cache.login, engine, token)
    if found is None:
        return None
    request.state.user_settings = found[1]
    return found[0]


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise HTTPException(401, detail="not signed in: send 'Authorization: Bearer <token>' or log in at /login",
                            headers={"WWW-Authenticate": "Bearer"})
    return user


async def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if not user.is_admin:
        raise HTTPException(403, detail=f"user {user.username!r} is not an admin; ask an admin for access")
    return user


def user_settings(request: Request) -> UserSettings | None:
    """Settings loaded with the signed-in user (None: defaults)."""
    return getattr(request.state, "user_settings", None)


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]

"""Named dependencies shared by the routes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from app.auth import cache as auth_cache
from app.auth.users import SESSION_COOKIE
from app.core.db import new_session
from app.models.user import User
from app.review.engine import ReviewEngine


def get_session(request: Request) -> Iterator[Session]:
    """A session on the engine of the app serving this request (``app.state.engine``)."""
    with new_session(request.app.state.engine) as s:
        yield s


SessionDep = Annotated[Session, Depends(get_session)]


def review_engine(request: Request) -> ReviewEngine:
    """The app's review engine (``create_app`` builds it; ``app.review.engine``)."""
    engine: ReviewEngine = request.app.state.review
    return engine


ReviewEngineDep = Annotated[ReviewEngine, Depends(review_engine)]


BEARER_KINDS = ("api", "session")
COOKIE_KINDS = ("session",)


def _credential(request: Request) -> tuple[str | None, tuple[str, ...]]:
    """The token sent and the kinds it may be: ``Authorization: Bearer`` takes an API or session token; the
    session cookie only a session token (an API token pasted into the cookie would skip the CSRF rules that
    ``app.web.csrf`` applies to Bearer requests, and would never expire with the session)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip(), BEARER_KINDS
    return request.cookies.get(SESSION_COOKIE), COOKIE_KINDS


async def optional_user(request: Request) -> User | None:
    """The user behind a ``Authorization: Bearer`` token or the session cookie, else None.

    Sign-ins are cached for a few seconds (``app.auth.cache``): a hit costs no query and no thread hop.
    """
    token, kinds = _credential(request)
    if not token:
        return None
    engine = request.app.state.engine
    found = auth_cache.cached_login(engine, token, kinds)
    if found is auth_cache.MISS:
        found = await run_in_threadpool(auth_cache.login, engine, token, kinds)
    if found is None:
        return None
    user: User = found[0]
    return user


async def signed_in(request: Request) -> auth_cache.SignedIn:
    """Who is signed in, as the immutable value the hot review routes need (401 like :func:`current_user`).

    A cached sign-in costs a dictionary lookup: no query, no thread hop, no ORM copy.
    """
    token, kinds = _credential(request)
    found: auth_cache.SignedIn | None = None
    if token:
        engine = request.app.state.engine
        cached = auth_cache.cached_signed_in(engine, token, kinds)
        if cached is auth_cache.MISS:
            cached = await run_in_threadpool(auth_cache.signed_in, engine, token, kinds)
        found = cached
    if found is None:
        raise _not_signed_in()
    return found


def _not_signed_in() -> HTTPException:
    return HTTPException(401, detail="not signed in: send 'Authorization: Bearer <token>' or log in at /login",
                         headers={"WWW-Authenticate": "Bearer"})


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise _not_signed_in()
    return user


async def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if not user.is_admin:
        raise HTTPException(403, detail=f"user {user.username!r} is not an admin; ask an admin for access")
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]

"""Web login: a token link (``/login?token=...``, as printed at first start) or username + password.

Either way the browser gets a fresh session token in an HttpOnly, SameSite=Lax cookie; the database
keeps only its hash. Tokens never reach the logs (``app.main`` redacts ``token=`` in access logs).
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from app.api.deps import OptionalUser, SessionDep
from app.auth.users import SESSION_COOKIE, issue_token, revoke_session, user_for_password, user_for_token
from app.models.user import User
from app.pages.quiz import page_headers, templates
from app.srs.writes import run_write

router = APIRouter(tags=["login"])
SESSION_DAYS = 30


def _safe_next(target: str | None) -> str:
    """Only same-site paths (``/quiz``), never ``//host`` or ``javascript:``; no whitespace or control
    character, which a browser drops from a URL (``/<TAB>/host`` would become ``//host``)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target \
            and not re.search(r"[\x00-\x20\x7f]", target):
        return target
    return "/quiz"


def _start_session(request: Request, user: User, target: str, session: Session) -> Response:
    def work(s: Session) -> str:
        return issue_token(s, user, kind="session", label="web login")

    token = run_write(request.app.state.engine, work, release=session)
    resp = RedirectResponse(_safe_next(target), status_code=303)
    resp.set_cookie(SESSION_COOKIE, token, max_age=SESSION_DAYS * 86400, httponly=True, samesite="lax",
                    secure=request.url.scheme == "https", path="/")
    return resp


def _form(request: Request, *, error: str = "", status: int = 200, target: str = "/quiz",
          user: User | None = None) -> HTMLResponse:
    return templates.TemplateResponse(request, "login.html", {"error": error, "next": _safe_next(target),
                                                               "user": user},
                                      status_code=status, headers=page_headers())


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, session: SessionDep, user: OptionalUser, token: str | None = None,
               next: str | None = None) -> Response:  # noqa: A002
    if token is not None:
        found = user_for_token(session, token, kinds=("api",))
        if found is None:
            return _form(request, error="This login link is not valid (unknown or revoked token). "
                         "Ask an admin for a new one, or sign in with a password.", status=401, target=next or "/quiz")
        return _start_session(request, found, next or "/quiz", session)
    return _form(request, target=next or "/quiz", user=user)


@router.post("/login", response_class=HTMLResponse)
def login_password(request: Request, session: SessionDep, username: Annotated[str, Form(max_length=64)],
                   password: Annotated[str, Form(max_length=200)], next: Annotated[str, Form()] = "/quiz") -> Response:
    user = user_for_password(session, username, password)
    if user is None:
        return _form(request, error="Wrong username or password.", status=401, target=next)
    return _start_session(request, user, next, session)


@router.post("/logout")
def logout(request: Request) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        run_write(request.app.state.engine, lambda s: revoke_session(s, token))
    resp = RedirectResponse("/login", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/")
    return resp

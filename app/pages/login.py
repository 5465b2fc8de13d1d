"""Web login: a one-time login link (``/login?token=...``: ``proofdeck user link``, first start) or username
+ password.

A link signs in once, within minutes (``app.auth.links``); an API token is not a link. A link opened from
another site only shows "Sign in as NAME" with a button (a same-origin POST to ``/login/link``), and spends
nothing until the button is pressed: another site cannot sign a visitor into the attacker's account (login
CSRF).

Either way the browser gets a fresh session token in an HttpOnly, SameSite=Lax cookie; the database
keeps only its hash. Sessions end on the server (``app.auth.sessions``); ``POST /logout/everywhere``
ends all of a user's sessions and pending login links. Tokens never reach the logs (``app.main`` redacts
``token=`` in access logs). Guessing is slowed without locking out anyone else: ``Retry-After`` on 429
(``app.auth.ratelimit``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from app.api.deps import CurrentUser, OptionalUser, SessionDep
from app.api.errors import errors, html_errors, json_errors_on_page
from app.api.guards import NO_NUL
from app.auth import links, sessions
from app.auth.ratelimit import LINK, PASSWORD, LoginLimiter
from app.auth.users import SESSION_COOKIE, issue_token, revoke_session, user_for_password, user_for_token
from app.core.writes import run_write
from app.models.user import User
from app.web.templating import page_headers, templates

router = APIRouter(tags=["login"])
REDIRECT: dict[int | str, dict[str, Any]] = {303: {"description": "Signed in (or out): go to the page asked for"}}


def _safe_next(target: str | None) -> str:
    """Only same-site paths (``/quiz``), never ``//host`` or ``javascript:``; no whitespace or control
    character, which a browser drops from a URL (``/<TAB>/host`` would become ``//host``)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target \
            and not re.search(r"[\x00-\x20\x7f]", target):
        return target
    return "/quiz"


def _start_session(request: Request, user: User, target: str, session: Session,
                   link: links.FoundLink | None = None, now: datetime | None = None) -> Response:
    """A new web session for ``user``; with ``link``, only if this request spends it (in the same transaction:
    of two tabs opening one link at once, one signs in and the other is told the link was used)."""
    def work(s: Session) -> str | None:
        assert user.id is not None
        if link is not None and not links.spend(s, link.link_id, now or _limiter(request).clock()):
            return None
        sessions.purge_expired(s, user.id)
        return issue_token(s, user, kind="session", label="web login")

    token = run_write(request.app.state.engine, work, release=session)
    if token is None:
        assert link is not None
        return _form(request, error=links.why(links.FoundLink(link.link_id, link.user, "used")), status=401,
                     target=target)
    resp = RedirectResponse(_safe_next(target), status_code=303)
    resp.set_cookie(SESSION_COOKIE, token, max_age=int(sessions.max_age().total_seconds()), httponly=True,
                    samesite="lax",
                    secure=request.url.scheme == "https", path="/")
    return resp


def _form(request: Request, *, error: str = "", status: int = 200, target: str = "/quiz",
          user: User | None = None, headers: dict[str, str] | None = None) -> HTMLResponse:
    return templates.TemplateResponse(request, "login.html", {"error": error, "next": _safe_next(target),
                                                               "user": user},
                                      status_code=status, headers={**page_headers(), **(headers or {})})


def _limiter(request: Request) -> LoginLimiter:
    limiter: LoginLimiter = request.app.state.login_limiter
    return limiter


def _address(request: Request) -> str:
    """The TCP peer (uvicorn puts the X-Forwarded-For address here only for PROOFDECK_TRUSTED_PROXIES)."""
    return request.client.host if request.client else ""


def _locked(request: Request, wait: int | None, target: str) -> HTMLResponse | None:
    """The 429 page while locked out (checked before any password work)."""
    if wait is None:
        return None
    message = f"失败次数过多，请 {wait} 秒后再试。Too many failed attempts. Try again in {wait} seconds."
    return _form(request, error=message, status=429, target=target, headers={"Retry-After": str(wait)})


DIRECT = frozenset({"none", "same-origin"})  # Sec-Fetch-Site of a typed/pasted URL, or a click on our own page


def _link_user(request: Request, session: Session, token: str, target: str,
               now: datetime) -> links.FoundLink | Response:
    """The login link ``token`` opens, or the 401 (429 while locked out) page for one that does not sign in:
    used, expired or ended (saying so), an API token (saying what it is for), unknown (counted)."""
    found = links.find_link(session, token, now)  # a valid link always works
    if found is not None and found.refusal is None:
        return found
    if found is not None:
        return _form(request, error=links.why(found), status=401, target=target)
    if (api_user := user_for_token(session, token, kinds=("api",))) is not None:
        return _form(request, error="This is an API token (send it as ‘Authorization: Bearer’), not a login "
                     "link; login links sign in once. For one, ask an admin to run "
                     f"`proofdeck user link {api_user.username}`.", status=401, target=target)
    limiter = _limiter(request)
    if (locked := _locked(request, limiter.link_wait(session, token), target)) is not None:
        return locked
    session.close()  # no pooled connection held while waiting for the write lock
    limiter.failed(request.app.state.engine, LINK, token, _address(request))
    return _form(request, error="This login link is not valid (unknown token). Ask an admin for a new one "
                 "(`proofdeck user link NAME`), or sign in with a password.", status=401, target=target)


def _confirm(request: Request, user: User, token: str, target: str) -> HTMLResponse:
    """"Sign in as NAME": a link opened from another site (or by a client that does not say) signs in
    nobody until the button, a same-origin POST, is pressed (no login CSRF through the link)."""
    return templates.TemplateResponse(request, "login_confirm.html",
                                      {"name": user.username, "token": token, "next": _safe_next(target)},
                                      headers={**page_headers(), "Cache-Control": "no-store"})


@router.get("/login", response_class=HTMLResponse,
            responses={**REDIRECT, **html_errors(401, 429), **json_errors_on_page(422)})
def login_page(request: Request, session: SessionDep, user: OptionalUser,
               token: Annotated[str | None, Query(pattern=NO_NUL)] = None,
               next: Annotated[str | None, Query(pattern=NO_NUL)] = None) -> Response:
    """The password form; with ``token`` a login link: it signs in at once when the browser says the URL was
    typed, pasted or clicked on our own pages (``Sec-Fetch-Site: none`` / ``same-origin``), else it shows a
    "Sign in as NAME" page whose button posts to ``/login/link``."""
    target = next or "/quiz"
    if token is not None:
        now = _limiter(request).clock()
        found = _link_user(request, session, token, target, now)
        if not isinstance(found, links.FoundLink):
            return found
        if request.headers.get("sec-fetch-site", "").strip().lower() not in DIRECT:
            return _confirm(request, found.user, token, target)  # spends nothing
        return _start_session(request, found.user, target, session, found, now)
    return _form(request, target=target, user=user)


@router.post("/login/link", response_class=HTMLResponse,
             responses={**REDIRECT, **html_errors(401, 403, 429), **json_errors_on_page(422)})
def login_link(request: Request, session: SessionDep,
               token: Annotated[str, Form(min_length=1, max_length=200, pattern=NO_NUL)],
               next: Annotated[str, Form()] = "/quiz") -> Response:
    """The button of the "Sign in as NAME" page: ``app.web.csrf`` refuses a foreign ``Origin``, and a browser
    that says the form was on another site (``Sec-Fetch-Site``) is refused here even without one."""
    if request.headers.get("sec-fetch-site", "same-origin").strip().lower() != "same-origin":
        return _form(request, error="Cross-site request refused: open the login link again and press the button on "
                     "this site's own page.", status=403, target=next)
    now = _limiter(request).clock()
    found = _link_user(request, session, token, next, now)
    if not isinstance(found, links.FoundLink):
        return found
    return _start_session(request, found.user, next, session, found, now)


@router.post("/login", response_class=HTMLResponse,
             responses={**REDIRECT, **html_errors(401, 429), **json_errors_on_page(422)})
def login_password(request: Request, session: SessionDep,
                   username: Annotated[str, Form(min_length=1, max_length=64, pattern=NO_NUL)],
                   password: Annotated[str, Form(min_length=1, max_length=200)],
                   next: Annotated[str, Form()] = "/quiz") -> Response:
    limiter, address = _limiter(request), _address(request)
    if (locked := _locked(request, limiter.password_wait(session, username, address), next)) is not None:
        return locked
    user = user_for_password(session, username, password)
    session.close()  # no pooled connection held while waiting for the write lock
    if user is None:
        limiter.failed(request.app.state.engine, PASSWORD, username, address)
        return _form(request, error="Wrong username or password.", status=401, target=next)
    limiter.succeeded(request.app.state.engine, username, address)
    return _start_session(request, user, next, session)


@router.post("/logout", status_code=303, response_class=RedirectResponse, responses=REDIRECT)
def logout(request: Request) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        run_write(request.app.state.engine, lambda s: revoke_session(s, token))
    resp = RedirectResponse("/login", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/")
    return resp


@router.post("/logout/everywhere", status_code=303, response_class=RedirectResponse,
             responses={**REDIRECT, **errors(401)})
def logout_everywhere(request: Request, user: CurrentUser, session: SessionDep) -> Response:
    """End every web session and pending login link of the signed-in user (API tokens stay valid)."""
    uid = user.id
    assert uid is not None
    run_write(request.app.state.engine, lambda s: sessions.log_out_everywhere(s, uid), release=session)
    resp = RedirectResponse("/login", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/")
    return resp

"""Cross-site request forgery: a request that a browser sends with our session cookie must come from
one of our own pages.

SameSite=Lax alone does not cover another port on the same host or a sibling subdomain, and a plain
HTML form can POST anything. So, for every state-changing method (not GET/HEAD/OPTIONS):

- with ``Authorization: Bearer`` the request is an API client's: nothing more is asked (a browser on
  another site cannot attach that header without a CORS grant, and we grant none);
- an ``Origin`` naming another site is refused (also without a cookie: no login CSRF);
- with the session cookie, the request must name its origin, ``Origin`` or else ``Referer`` (pages send
  ``Referrer-Policy: same-origin``, so our own forms and scripts always do), and it must be ours:
  the scheme, host and port this request came to (``Host``), or ``PROOFDECK_BASE_URL``'s;
- with the session cookie, a body sent to ``/api/`` must be ``application/json`` (415 otherwise): an
  HTML form cannot send that type cross-site without a CORS preflight.

A refusal is 403 ``{"detail"}`` (the HTML error page for a browser asking for HTML).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request

from app.auth.users import SESSION_COOKIE
from app.core.config import settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL or an ``Origin`` value; None when it names no web origin."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def own_origins(scope: dict[str, Any], headers: Headers) -> set[tuple[str, str, int]]:
    """The origins this server answers as: the one this request came to, and the configured base URL."""
    found = {o for o in (_origin(f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"),
                         _origin(settings.BASE_URL)) if o is not None}
    return found


def _has_session_cookie(headers: Headers) -> bool:
    return any(part.strip().startswith(f"{SESSION_COOKIE}=") for part in headers.get("cookie", "").split(";"))


def _bearer(headers: Headers) -> bool:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(value.strip())


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def refusal(scope: dict[str, Any]) -> tuple[int, str] | None:
    """(status, detail) when this request must be refused as possibly cross-site; None to let it through."""
    if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
        return None
    headers = Headers(scope=scope)
    if _bearer(headers):
        return None
    ours = own_origins(scope, headers)
    origin = headers.get("origin")
    named = _origin(origin) if origin and origin != "null" else None
    if named is not None and named not in ours:
        return 403, f"cross-site request refused: Origin {origin} is not this site"
    if not _has_session_cookie(headers):
        return None
    if named is None:
        referer = headers.get("referer")
        named = _origin(referer) if referer else None
        if named is None:
            return 403, ("cross-site request refused: a request with the session cookie must name this site "
                         "in Origin or Referer (API clients: send 'Authorization: Bearer <token>')")
        if named not in ours:
            return 403, "cross-site request refused: Referer is not this site"
    has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
    if scope["path"].startswith("/api/") and has_body and not is_json(headers.get("content-type", "")):
        return 415, "send the body as JSON with 'Content-Type: application/json'"
    return None


class SameOriginOnly:
    """Pure ASGI middleware applying :func:`refusal` before any route runs."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        refused = refusal(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, detail = refused
        from app.web.templating import render_page, wants_html

        request = Request(scope, receive)
        if wants_html(request):
            response: Any = render_page(request, "error.html", {"status_code": status, "detail": detail},
                                        status_code=status)
        else:
            from starlette.responses import Response

            response = Response(json.dumps({"detail": detail}), status_code=status, media_type="application/json")
        await response(scope, receive, send)

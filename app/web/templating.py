"""The one page stack: Jinja2 templates (top-level ``templates/``), the static folder (served at
``/static``) and the headers every HTML page gets, from one Content-Security-Policy builder.

Each page carries a strict Content-Security-Policy: scripts only with this response's nonce (pages with
inline data) or only from this server (the quiz's ``/static/quiz.js``), styles and images only from this
server. Card HTML is already sanitised by the renderer; the policy
is the second wall, and it also guarantees the pages fetch nothing from other hosts.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.responses import Response

from app.core.config import PROJECT_ROOT
from app.render.markdown import render_inline

TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "app" / "static"

templates = Jinja2Templates(directory=TEMPLATES_DIR)
# a claim's quote, rendered as a card's text is (math as MathML, everything else escaped: never live markup)
templates.env.filters["inline_markdown"] = lambda text: Markup(render_inline(str(text or "")))


JSON_PREFIXES = ("/api", "/healthz", "/docs", "/redoc", "/openapi.json", "/static")


def wants_html(request: Request) -> bool:
    """A browser asking for a page (errors get the HTML page), not an API client."""
    if request.url.path.startswith(JSON_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "")


def content_security_policy(nonce: str | None = None) -> str:
    """The policy of every page: with ``nonce``, scripts carrying it; without, scripts from this server."""
    scripts = f"'nonce-{nonce}'" if nonce is not None else "'self'"
    return ("default-src 'none'; "
            f"script-src {scripts}; "
            "style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def page_headers(nonce: str | None = None) -> dict[str, str]:
    """The headers of every HTML page: the policy above, no MIME sniffing, the origin kept on our forms."""
    return {"Content-Security-Policy": content_security_policy(nonce), "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin"}  # our forms name their origin (app/web/csrf.py)


def render_page(request: Request, name: str, context: dict[str, Any], status_code: int = 200,
                headers: dict[str, str] | None = None) -> Response:
    """Render ``templates/<name>`` with a fresh CSP nonce (``csp_nonce`` in the template)."""
    nonce = secrets.token_urlsafe(16)
    response = templates.TemplateResponse(request, name, {**context, "csp_nonce": nonce},
                                           status_code=status_code, headers=headers)
    response.headers.update(page_headers(nonce))
    return response

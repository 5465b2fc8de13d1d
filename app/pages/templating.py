"""Jinja2 templates (top-level ``templates/``) and the headers every HTML page gets.

Each page carries a strict Content-Security-Policy: scripts only with this response's nonce,
styles and images only from this server. Card HTML is already sanitised by the renderer; the policy
is the second wall, and it also guarantees the pages fetch nothing from other hosts.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from app.core.config import PROJECT_ROOT

TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "app" / "static"

templates = Jinja2Templates(directory=TEMPLATES_DIR)


def content_security_policy(nonce: str) -> str:
    return ("default-src 'none'; "
            f"script-src 'nonce-{nonce}'; "
            "style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def render_page(request: Request, name: str, context: dict[str, Any], status_code: int = 200,
                headers: dict[str, str] | None = None) -> Response:
    """Render ``templates/<name>`` with a fresh CSP nonce (``csp_nonce`` in the template)."""
    nonce = secrets.token_urlsafe(16)
    response = templates.TemplateResponse(request, name, {**context, "csp_nonce": nonce},
                                           status_code=status_code, headers=headers)
    response.headers["Content-Security-Policy"] = content_security_policy(nonce)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"  # our forms name their origin (app/auth/csrf.py)
    return response

"""Errors: JSON ``{"detail": ...}`` under ``/api`` (and for clients that do not ask for HTML), a
small HTML page everywhere else."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.pages.templating import render_page

JSON_PREFIXES = ("/api", "/healthz", "/docs", "/redoc", "/openapi.json", "/static")


def wants_html(request: Request) -> bool:
    if request.url.path.startswith(JSON_PREFIXES):
        return False
    return "text/html" in request.headers.get("accept", "")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if not wants_html(request):
        return await http_exception_handler(request, exc)
    detail = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else "no page at this address"
    return render_page(request, "error.html", {"status_code": exc.status_code, "detail": detail},
                       status_code=exc.status_code, headers=getattr(exc, "headers", None))


def install_error_pages(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, _http_error)

"""Errors: JSON ``{"detail": ...}`` under ``/api`` (and for clients that do not ask for HTML), a
small HTML page everywhere else. An unexpected exception too: it is logged with a reference, and the
client gets a 500 in the same shape (never Starlette's plain-text "Internal Server Error"). A 405 lists
every method of the path (``app.web.methods``); a 422 echoes a body that is not UTF-8 as text, not as
bytes FastAPI's encoder cannot write (a form-encoded ``\xff`` sent to a JSON route was a 500)."""

from __future__ import annotations

import secrets

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from app.core.logging import log
from app.web.methods import allow_header, path_methods
from app.web.templating import render_page, wants_html


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        methods = path_methods(request.app).allowed(request.url.path)
        if methods:
            exc.headers = {**(exc.headers or {}), "Allow": allow_header(methods)}
    if not wants_html(request):
        return await http_exception_handler(request, exc)
    detail = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else "no page at this address"
    return render_page(request, "error.html", {"status_code": exc.status_code, "detail": detail},
                       status_code=exc.status_code, headers=getattr(exc, "headers", None))


async def _invalid_input(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [{**e, "input": e["input"].decode("utf-8", "replace")}
              if isinstance(e.get("input"), bytes) else e for e in exc.errors()]
    return await request_validation_exception_handler(request, RequestValidationError(errors, body=exc.body))


async def _internal_error(request: Request, exc: Exception) -> Response:
    """Any exception no route turned into an HTTP error: log it, answer 500 ``{"detail"}`` (or the page)."""
    ref = secrets.token_hex(4)
    log.error("internal error %s on %s %s", ref, request.method, request.url.path, exc_info=exc)
    detail = f"internal error (reference {ref}); the server log has the details, please report it"
    if wants_html(request):
        return render_page(request, "error.html", {"status_code": 500, "detail": detail}, status_code=500)
    return JSONResponse({"detail": detail}, status_code=500)


def install_error_pages(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _invalid_input)
    app.add_exception_handler(Exception, _internal_error)  # Starlette runs it outermost, for any exception

"""``/docs`` (Swagger UI) and ``/redoc`` without a CDN: their scripts and styles come from this server.

The bundles ship in the ``fastapi-offline`` package (Swagger UI and ReDoc, kept current by its
maintainers); this module serves them at ``/docs-assets`` and builds the two pages with FastAPI's own
``get_swagger_ui_html`` / ``get_redoc_html`` (ReDoc without Google Fonts). Each page's
Content-Security-Policy lets it load nothing from another host, so a page that still worked only online
would fail loudly in the browser test (tests/pages/test_api_docs_offline.py).
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS_URL = "/docs-assets"
# the pages' own inline bootstrap script and styles; everything else from this origin only
DOCS_CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
            "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def _page(response: HTMLResponse) -> HTMLResponse:
    response.headers["Content-Security-Policy"] = DOCS_CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def install_api_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Call on an app built with ``docs_url=None, redoc_url=None``."""
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS_DIR), name="docs-assets")

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _page(get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}", title=f"{app.title} - Swagger UI", oauth2_redirect_url=oauth2_url,
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png", swagger_ui_parameters=app.swagger_ui_parameters))

    @app.get(oauth2_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return _page(get_swagger_ui_oauth2_redirect_html())

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _page(get_redoc_html(
            openapi_url=f"{root}{openapi_url}", title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js", with_google_fonts=False,
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png"))

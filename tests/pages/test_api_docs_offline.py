"""``/docs`` and ``/redoc`` render in Chromium with every other host blocked: their assets are served here."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.backend_agnostic("static API docs in Chromium; no query depends on the data")


@pytest.mark.browser
def test_docs_and_redoc_render_offline(live_server: str, page: Any) -> None:
    from playwright.sync_api import expect

    own = urlsplit(live_server).netloc
    foreign: list[str] = []

    def only_this_server(route: Any) -> None:
        if urlsplit(route.request.url).netloc in (own, ""):
            route.continue_()
        else:  # a CDN, Google Fonts ...: recorded, and the request fails as it would offline
            foreign.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", only_this_server)
    failed: list[tuple[str, str]] = []
    page.on("requestfailed", lambda r: failed.append((r.resource_type, r.url)))

    page.goto(f"{live_server}/docs")
    # Swagger UI drew the API from /openapi.json: its title and an operation of ours
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("proofdeck")
    expect(page.locator(".opblock-summary-path", has_text="/api/review/next").first).to_be_visible()

    page.goto(f"{live_server}/redoc")
    expect(page.locator("h1", has_text="proofdeck")).to_be_visible()
    expect(page.get_by_text("/api/review/next").first).to_be_attached()

    # nothing the pages need came from elsewhere; the one request that fails is ReDoc's "API docs by Redocly"
    # footer logo, an <img> that our Content-Security-Policy blocks and that hides itself when it fails
    assert foreign == [], foreign
    assert all(kind == "image" and "redoc" in url for kind, url in failed), failed

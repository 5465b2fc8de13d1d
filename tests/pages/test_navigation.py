"""Every page's header: the quiz and stats for a signed-in user, the login page for others, the handbook
and the Obsidian export for all; English-only mode hides the Chinese half of labels; Ψ is upright."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.auth.links import issue_link
from app.auth.users import create_user
from tests.utils.fetch_site import TYPED_URL

pytestmark = pytest.mark.backend_agnostic("the header in Chromium; "
                                          "the session lookup behind it runs on both backends in tests/auth")

SIGNED_IN_ONLY = ('href="/quiz"', 'href="/quiz/stats"')
FOR_ALL = ('href="/api/export/handbook.html"', 'href="/api/export/obsidian.zip"')


def _nav(html: str) -> str:
    found = re.search(r'<nav class="site-nav".*?</nav>', html, re.S)
    assert found, html[:500]
    return found.group(0)


@pytest.mark.parametrize("path", ["/", "/cards/zero-optimizer"])
def test_header_links_for_anonymous_and_signed_in(client: TestClient, path: str) -> None:
    nav = _nav(client.get(path).text)
    assert all(link in nav for link in FOR_ALL) and not any(link in nav for link in SIGNED_IN_ONLY)
    assert f'href="/login?next={path}"' in nav
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        user, _api_token = create_user(s, "nina")
        token = issue_link(s, user)
    assert client.get(f"/login?token={token}", follow_redirects=False, headers=TYPED_URL).status_code == 303
    nav = _nav(client.get(path).text)
    assert all(link in nav for link in SIGNED_IN_ONLY + FOR_ALL)
    assert "/login" not in nav and ">nina<" in nav
    for href in ("/quiz", "/quiz/stats", "/api/export/handbook.html"):
        assert client.get(href).status_code == 200


@pytest.mark.browser
def test_english_only_hides_chinese_labels_and_capital_greek_is_upright(live_server: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live_server}/cards/zero-optimizer")
    label = page.locator("main dt span[lang=zh]").first
    expect(label).to_be_visible()
    page.locator("[data-set-lang=en]").click()
    expect(label).to_be_hidden()
    expect(page.locator("main dt span[lang=en]").first).to_be_visible()
    expect(page.locator(".site-nav span[lang=zh]").first).to_be_hidden()
    expect(page.locator("[data-set-lang=zh]")).to_be_visible()  # the way back stays readable
    psi = page.locator("math mi", has_text="Ψ").first
    assert psi.evaluate("e => getComputedStyle(e).fontStyle") == "normal"
    assert psi.evaluate("e => e.getAttribute('mathvariant')") == "normal"

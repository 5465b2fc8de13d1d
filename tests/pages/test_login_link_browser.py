"""Login CSRF through the link, in headless Chromium (issue 36): a login link clicked on another site shows
"Sign in as NAME" and signs in nobody; its button (a same-origin POST the CSRF middleware lets through)
signs in; the same link typed into the address bar (``page.goto``: ``Sec-Fetch-Site: none``) signs in at once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.utils.accounts import new_link, new_user_link

pytestmark = pytest.mark.backend_agnostic("the login link's page is chosen from request headers; the token "
                                          "lookup runs on both backends in tests/auth")

EVIL = "http://evil.example"


@pytest.mark.browser
@pytest.mark.slow
def test_a_link_from_another_site_asks_first(live_server: str, database_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    link = f"{live_server}/login?token={new_user_link(database_url, 'mallory')}&next=/quiz/stats"
    page.route(f"{EVIL}/**", lambda route: route.fulfill(content_type="text/html",
                                                         body=f'<a id="go" href="{link}">free flashcards</a>'))
    page.goto(f"{EVIL}/")
    with page.expect_response(lambda r: r.url.startswith(live_server)) as answer:
        page.click("#go")
    assert answer.value.status == 200
    expect(page.get_by_role("button", name="Sign in as mallory")).to_be_visible()
    assert page.request.get(f"{live_server}/api/users/me").status == 401  # nobody signed in yet
    page.get_by_role("button", name="Sign in as mallory").click()
    expect(page).to_have_url(f"{live_server}/quiz/stats")
    assert page.request.get(f"{live_server}/api/users/me").json()["username"] == "mallory"

    page.context.clear_cookies()
    page.goto(link)  # a link signs in once: spent by the button
    expect(page.get_by_text("This login link has already been used")).to_be_visible()
    assert page.request.get(f"{live_server}/api/users/me").status == 401
    fresh = new_link(database_url, "mallory")
    page.goto(f"{live_server}/login?token={fresh}&next=/quiz/stats")  # typed or pasted: signs in at once
    expect(page).to_have_url(f"{live_server}/quiz/stats")
    assert page.request.get(f"{live_server}/api/users/me").json()["username"] == "mallory"

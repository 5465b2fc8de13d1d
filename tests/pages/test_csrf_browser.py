"""CSRF in headless Chromium: our own forms and the quiz's script pass the same-origin check, a page on
another port of the same host (same site: the SameSite=Lax cookie goes along) is refused."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, select

from app.auth.users import create_user
from app.models.user import UserSettings
from harness.server import free_port

pytestmark = pytest.mark.backend_agnostic("the same-origin check in Chromium is in the request path, not the store; "
                                          "sessions run on both backends in tests/auth")

PASSWORD = "a long password"


def _new_per_day(engine: Any, user_id: int) -> int:
    with Session(engine) as s:
        return int(s.exec(select(UserSettings.new_per_day).where(UserSettings.user_id == user_id)).one())


@pytest.mark.browser
@pytest.mark.slow
def test_own_forms_work_and_another_port_is_refused(live_server: str, database_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            user, _token = create_user(s, "tess", password=PASSWORD)
            uid = user.id
            assert uid is not None
        page.goto(f"{live_server}/login")  # the password form
        page.fill("#username", "tess")
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(f"{live_server}/quiz")

        page.goto(f"{live_server}/quiz/stats")  # the settings form
        page.fill("#new_per_day", "9")
        page.click("form.settings button[type=submit]")
        expect(page).to_have_url(f"{live_server}/quiz/stats")
        assert _new_per_day(engine, uid) == 9

        # a page on another port of this host: same site, so the browser sends the session cookie
        evil = f"http://127.0.0.1:{free_port()}"
        forms = {
            "/settings": f'<form method="post" action="{live_server}/quiz/settings">'
                         '<input name="desired_retention" value="0.8"><input name="new_per_day" value="500">'
                         '<input name="language" value="zh"></form>',
            "/review": f'<form method="post" enctype="text/plain" action="{live_server}/api/review">'
                       '<input name=\'{"item_id": 1, "rating": 3, "x": "\' value=\'"}\'></form>',
        }
        page.route(f"{evil}/**", lambda route: route.fulfill(
            content_type="text/html", body=forms[route.request.url.removeprefix(evil)]))
        for path in forms:
            page.goto(f"{evil}{path}")
            with page.expect_response(lambda r: r.url.startswith(live_server)) as answer:
                page.evaluate("document.forms[0].submit()")
            assert answer.value.status == 403, path
            page.wait_for_url(f"{live_server}/**")  # the refusal page has loaded
        assert _new_per_day(engine, uid) == 9
        assert page.request.get(f"{live_server}/api/review/log").json()["count"] == 0

        page.goto(f"{live_server}/quiz")  # log out everywhere, by its button
        page.click("text=Log out everywhere")
        expect(page).to_have_url(f"{live_server}/login")
        assert page.request.get(f"{live_server}/api/users/me").status == 401
    finally:
        engine.dispose()

"""The daily loop in Chromium: interval labels on the grade buttons, undo with z and Ctrl+Z, bury with -,
suspend with @ and resume on /quiz/held, the item's history and card link, a topic study session from /
that schedules nothing, and the new / learning / review counts equal on the quiz, the stats page and the
API after a scripted day."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from app.auth.users import create_user
from tests.utils.accounts import new_link
from tests.utils.srs_cards import make_card, write_deck

pytestmark = pytest.mark.backend_agnostic("the loop's keys and labels in Chromium; "
                                          "its review writes run on both backends in tests/api and tests/review")


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    # alpha, beta, gamma: a card and one follow-up each, in this order (6 new items)
    return write_deck(tmp_path / "cards", [make_card(s, follow_ups=1, pitfalls=(0, 0))
                                           for s in ("alpha", "beta", "gamma")])


@pytest.fixture
def token(database_url: str) -> Iterator[str]:
    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            _user, tok = create_user(s, "tess")
        yield tok
    finally:
        engine.dispose()


@pytest.fixture
def link(database_url: str, token: str) -> str:
    """A one-time login link for tess (the API token does not sign a browser in)."""
    return new_link(database_url, "tess")


@pytest.fixture
def api(live_server: str, token: str) -> Iterator[httpx.Client]:
    """The same learner through the API (Bearer token), for scripting and for checking what the page did."""
    with httpx.Client(base_url=live_server, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


def _counts(page: Any) -> dict[str, int]:
    return {k: int(page.locator(f"#count-{k}").inner_text()) for k in ("new", "learning", "review")}


@pytest.mark.browser
@pytest.mark.slow
def test_intervals_undo_bury_suspend_history(live_server: str, link: str, api: httpx.Client,
                                            page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live_server}/login?token={link}")
    front, kind = page.locator("#front"), page.locator("#kind")
    expect(page.locator("#count-new")).to_have_text("6")
    expect(front).to_contain_text("alpha title")
    assert page.locator("#card-title").get_attribute("href") == "/cards/alpha"

    # the four buttons show what each grade gives, as the scheduler previews it
    page.keyboard.press("Space")
    first_id = api.get("/api/review/next").json()["item"]["id"]
    preview = api.get(f"/api/review/items/{first_id}/intervals").json()
    ivl = page.locator("#grades .ivl")
    expect(ivl.nth(3)).not_to_have_text("")
    assert [ivl.nth(i).inner_text() for i in range(4)] == [i["label"] for i in preview["intervals"]]
    assert ivl.nth(0).inner_text() == "1 min" and ivl.nth(2).inner_text() == "10 min"
    assert ivl.nth(3).inner_text().endswith(" d")

    # grade, then undo with z: the answer is gone and the card is back
    page.keyboard.press("3")
    expect(kind).to_contain_text("follow-up")
    assert api.get("/api/review/log").json()["count"] == 1
    page.keyboard.press("z")
    expect(page.locator("#status")).to_contain_text("Undid the last answer")
    expect(kind).to_contain_text("card")
    expect(front).to_contain_text("alpha title")
    assert api.get("/api/review/log").json()["count"] == 0
    expect(page.locator("#count-new")).to_have_text("6")
    # and with Ctrl+Z
    page.keyboard.press("Space")
    page.keyboard.press("4")
    expect(kind).to_contain_text("follow-up")
    page.keyboard.press("Control+z")
    expect(kind).to_contain_text("card")
    assert api.get("/api/review/log").json()["count"] == 0

    # bury alpha's card (-), suspend its follow-up (@): beta's card comes, neither is counted
    page.keyboard.press("-")
    expect(page.locator("#status")).to_contain_text("Buried until tomorrow")
    expect(kind).to_contain_text("follow-up")
    expect(page.locator("#count-new")).to_have_text("5")
    page.keyboard.press("@")
    expect(page.locator("#status")).to_contain_text("Suspended")
    expect(front).to_contain_text("beta title")
    expect(page.locator("#count-new")).to_have_text("4")
    assert {h["hold"]["kind"] for h in api.get("/api/review/held").json()["data"]} == {"bury", "suspend"}

    # the item's history on request (h): beta's card, once answered and undone, has none
    page.keyboard.press("h")
    expect(page.locator("#item-history")).to_be_visible()
    expect(page.locator("#history-list")).to_contain_text("No reviews yet")
    page.keyboard.press("h")
    expect(page.locator("#item-history")).to_be_hidden()

    # resume the suspended follow-up on /quiz/held
    page.goto(f"{live_server}/quiz/held")
    rows = page.locator("#held-list li")
    expect(rows).to_have_count(2)
    page.locator('#held-list li[data-kind="suspend"] button').click()
    expect(page.locator("#held-list li")).to_have_count(1)
    assert page.locator("#held-list li").get_attribute("data-kind") == "bury"
    page.goto(f"{live_server}/quiz")
    expect(page.locator("#count-new")).to_have_text("5")
    expect(kind).to_contain_text("follow-up")  # alpha's follow-up again, its card still buried
    page.keyboard.press("Space")
    page.keyboard.press("3")
    expect(front).to_contain_text("beta title")
    # the follow-up's history shows the answer
    item = api.get("/api/review/log").json()["data"][0]["item_id"]
    assert api.get(f"/api/review/items/{item}/log").json()["data"][0]["rating"] == 3


@pytest.mark.browser
@pytest.mark.slow
def test_counts_equal_on_quiz_stats_and_api_after_a_scripted_day(live_server: str, link: str, api: httpx.Client,
                                                                 page: Any) -> None:
    from playwright.sync_api import expect

    for rating in (3, 1, 4, 3):  # learning, learning, review in days, learning
        item = api.get("/api/review/next").json()["item"]
        assert api.post("/api/review", json={"item_id": item["id"], "rating": rating}).status_code == 200
    gamma = api.get("/api/review/next").json()["item"]
    assert api.post(f"/api/review/items/{gamma['id']}/bury").status_code == 200
    expected = {"new": 1, "learning": 3, "review": 0}

    from_api = api.get("/api/review/stats").json()["counts"]
    assert {k: from_api[k] for k in expected} == expected
    page.goto(f"{live_server}/login?token={link}")
    expect(page.locator("#count-new")).to_have_text("1")
    assert _counts(page) == expected
    assert int(page.locator("#due-left").inner_text()) == sum(expected.values())
    page.goto(f"{live_server}/quiz/stats")
    assert _counts(page) == expected


@pytest.mark.browser
@pytest.mark.slow
def test_topic_and_card_study_sessions_schedule_nothing(live_server: str, link: str, api: httpx.Client,
                                                        page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live_server}/login?token={link}")
    page.goto(f"{live_server}/")
    page.locator("a.study-topic").first.click()
    expect(page.locator("#study-cards li")).to_have_count(3)
    assert page.url.startswith(f"{live_server}/quiz/study?cards=")
    front = page.locator("#front")
    expect(front).to_contain_text("alpha title")
    seen = 0
    for _ in range(6):  # each card and its follow-up, shown and revealed, never graded
        page.keyboard.press("Space")
        expect(page.locator("#study-next")).to_be_visible()
        expect(page.locator("#grades")).to_be_hidden()
        seen += 1
        page.keyboard.press("Space")
    expect(page.locator("#done")).to_be_visible()
    assert seen == 6
    assert api.get("/api/review/log").json()["count"] == 0
    assert api.get("/api/review/next").json()["counts"]["new"] == 6  # the schedule is as it was

    page.goto(f"{live_server}/cards/beta")
    page.locator(".study-card a").click()
    expect(page.locator("#study-cards li")).to_have_count(1)
    expect(front).to_contain_text("beta title")

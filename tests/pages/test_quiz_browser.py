"""The quiz in headless Chromium: log in by link, grade three items with the keyboard, answer a drill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from app.auth.links import issue_link
from app.auth.users import create_user
from app.items import drills
from app.models import DrillShowing
from app.models.user import UserSettings
from tests.utils.srs_cards import make_card, write_deck

pytestmark = pytest.mark.backend_agnostic("the quiz's keys in Chromium; "
                                          "its review writes run on both backends in tests/api and tests/review")


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    # alpha: card + one follow-up, links to beta; beta: card + 8 ZeRO drills → 11 items
    return write_deck(tmp_path / "cards", [
        make_card("alpha", follow_ups=1, pitfalls=(0, 0), links=("beta",)),
        make_card("beta", follow_ups=0, pitfalls=(0, 0), drills=True),
    ])


SLOW_COUNTS = """(() => {
  const fetch0 = window.fetch;
  window.fetch = (url, opts) => String(url).includes("/api/review/counts")
    ? new Promise((done) => setTimeout(done, 1500)).then(() => fetch0(url, opts)) : fetch0(url, opts);
})()"""


@pytest.mark.browser
@pytest.mark.slow
def test_quiz_keyboard_flow(live_server: str, database_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            user, _api_token = create_user(s, "tess")
            token = issue_link(s, user)
            # the card, then its follow-up (the chain), then the next card: no sibling burying
            s.flush()
            st = s.get(UserSettings, user.id)
            assert st is not None
            st.gather_order, st.bury_siblings = "deck", False
        # the header's counts answer slowly (a phone on a bad network): a grade pressed meanwhile still counts
        page.add_init_script(SLOW_COUNTS)
        page.goto(f"{live_server}/login?token={token}")
        assert page.url == f"{live_server}/quiz"
        due = page.locator("#due-left")
        kind = page.locator("#kind")
        expect(due).to_have_attribute("data-count", "11")
        assert kind.inner_text().endswith("card") and "alpha title" in page.locator("#front").inner_text()

        page.keyboard.press("Space")
        back = page.locator("#back")  # the card item's back is its key insights (not the summary)
        assert back.is_visible() and "insight about alpha" in back.inner_text()
        assert "Summary of alpha" not in back.inner_text()
        page.keyboard.press("3")
        # drill deeper: the card's follow-up comes next, and the related card is linked
        expect(kind).to_contain_text("follow-up")
        assert page.locator("#links a", has_text="beta title").get_attribute("href") == "/cards/beta"
        page.keyboard.press("Space")
        expect(page.locator("#grades")).to_be_visible()  # revealed before grading (a grade key waits for that)
        page.keyboard.press("4")
        expect(page.locator("#front")).to_contain_text("beta title")
        page.keyboard.press("Space")
        page.keyboard.press("3")

        expect(kind).to_contain_text("drill")
        # left today, as Anki counts: 8 new, and the two cards graded Good are learning (a step later today);
        # the follow-up graded Easy is due in days
        expect(page.locator("#count-new")).to_have_text("8")
        expect(page.locator("#count-learning")).to_have_text("2")
        expect(page.locator("#count-review")).to_have_text("0")
        expect(due).to_have_text("10")
        answer_box = page.locator("#typed-answer")
        assert answer_box.evaluate("el => el === document.activeElement")
        with Session(engine) as s:
            showing = s.exec(select(DrillShowing).order_by(col(DrillShowing.id).desc())).first()
        assert showing is not None
        answer_box.type(f"{drills.answer_gb(showing.params):.4f}")
        page.keyboard.press("Enter")
        verdict = page.locator("#verdict")
        verdict.wait_for(state="visible")
        assert "Correct" in verdict.inner_text()
        assert page.locator("#back math").count() > 0  # worked solution with rendered formulas
        page.screenshot(path="/tmp/srs-quiz-drill-light.png", full_page=True)
        page.emulate_media(color_scheme="dark")
        page.screenshot(path="/tmp/srs-quiz-drill-dark.png", full_page=True)
        page.keyboard.press("Space")
        expect(page.locator("#count-new")).to_have_text("7")  # the drill graded Good: learning too
        expect(due).to_have_attribute("data-count", "10")

        log = page.request.get(f"{live_server}/api/review/log").json()
        assert log["count"] == 4
        assert [e["rating"] for e in reversed(log["data"])] == [3, 4, 3, 3]
        assert log["data"][0]["correct"] is True and log["data"][0]["typed_answer"]

        page.goto(f"{live_server}/quiz/stats")
        assert page.locator("#reviewed-today").inner_text() == "4"
        assert page.locator("svg.forecast rect.bar").count() == 30  # 30 forecast days
        assert page.locator("svg.retention text.nodata").count() == 2  # no review-state answers yet: no data
        page.screenshot(path="/tmp/srs-quiz-stats-dark.png", full_page=True)
        page.emulate_media(color_scheme="light")
        page.screenshot(path="/tmp/srs-quiz-stats-light.png", full_page=True)
    finally:
        engine.dispose()

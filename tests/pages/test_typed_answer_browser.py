"""A drill in Chromium, English only: an ambiguous "1,234" is asked about in English, the question goes away
on the next answer, a decimal comma ("16,640625"-style) is graded right, and the right number in a wrong unit
is wrong with feedback naming the unit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from app.auth.links import issue_link
from app.auth.users import create_user
from app.items import drills
from app.models import DrillShowing, UserSettings
from tests.utils.srs_cards import make_card, write_deck

pytestmark = pytest.mark.backend_agnostic("the typed-answer form in Chromium; "
                                          "grading and storing run on both backends in tests/api/test_typed_answers.py")


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    return write_deck(tmp_path / "cards", [make_card("beta", follow_ups=0, pitfalls=(0, 0), drills=True)])


def _at_a_drill(engine: Any, page: Any, live_server: str, username: str) -> Any:
    """``username`` created (English, burying off: the one card's drills are its siblings), signed in with a
    one-time link, and past the card to its first drill; the page's ``#kind`` locator."""
    from playwright.sync_api import expect

    with Session(engine) as s, s.begin():
        user, _api_token = create_user(s, username)
        token = issue_link(s, user)
        prefs = s.exec(select(UserSettings).where(UserSettings.user_id == user.id)).one()
        prefs.language, prefs.bury_siblings = "en", False
    page.goto(f"{live_server}/login?token={token}")
    kind = page.locator("#kind")
    expect(kind).not_to_have_text("")
    if "drill" not in kind.inner_text():  # the card itself comes first
        expect(page.locator("#reveal")).to_be_visible()
        page.keyboard.press("Space")
        page.keyboard.press("3")
    expect(kind).to_contain_text("drill")
    return kind


def _newest_params(engine: Any) -> dict[str, Any]:
    """The parameters of the drill showing stored last (the one the page shows)."""
    with Session(engine) as s:
        showing = s.exec(select(DrillShowing).order_by(col(DrillShowing.id).desc())).first()
    assert showing is not None
    return dict(showing.params)


@pytest.mark.browser
def test_decimal_comma_drill(live_server: str, database_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        _at_a_drill(engine, page, live_server, "tess")
        box, status = page.locator("#typed-answer"), page.locator("#status")
        box.fill("1,234")
        page.keyboard.press("Enter")
        expect(status).to_contain_text("reads two ways: 1234 (comma between thousands) or 1.234")
        assert "两种读法" not in status.inner_text()  # English only: the learner's language

        comma = f"{drills.answer(_newest_params(engine)):.6f}".replace(".", ",")
        box.fill(comma)
        page.keyboard.press("Enter")
        verdict = page.locator("#verdict")
        expect(verdict).to_be_visible()
        assert verdict.inner_text().startswith("✓ Correct") and "正确" not in verdict.inner_text()
        expect(status).to_have_text("")  # the stale question is gone
    finally:
        engine.dispose()


@pytest.mark.browser
def test_a_drill_keeps_its_numbers_on_reload_and_a_slip_can_be_graded(live_server: str, database_url: str,
                                                                      page: Any) -> None:
    from playwright.sync_api import expect

    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        kind, front = _at_a_drill(engine, page, live_server, "tess"), page.locator("#front")
        numbers = front.inner_text()
        with Session(engine) as s:
            showings = s.exec(select(DrillShowing)).all()
        page.reload()  # the same showing: the same numbers, no new showing stored
        expect(kind).to_contain_text("drill")
        assert front.inner_text() == numbers
        with Session(engine) as s:
            assert len(s.exec(select(DrillShowing)).all()) == len(showings)

        page.locator("#typed-answer").fill("0.000001")
        page.keyboard.press("Enter")
        expect(page.locator("#verdict")).to_contain_text("Not quite")
        # a slip? the learner may grade it; Again is the default (focused)
        expect(page.locator("#self-grade-note")).to_be_visible()
        expect(page.locator("#grades")).to_be_visible()
        assert page.locator("#grades button[data-rating='1']").evaluate("el => el === document.activeElement")
        page.keyboard.press("3")
        expect(page.locator("#verdict")).to_be_hidden()  # the next item is shown once the grade is saved
        expect(kind).to_contain_text("drill")
        assert front.inner_text() != numbers  # the next drill, new numbers
        log = page.request.get(f"{live_server}/api/review/log").json()["data"][0]
        assert log["correct"] is False and log["rating"] == 3 and log["typed_answer"] == "0.000001"
    finally:
        engine.dispose()


@pytest.mark.browser
def test_the_right_number_in_a_wrong_unit_is_wrong_and_the_feedback_names_the_unit(
        live_server: str, database_url: str, page: Any) -> None:
    """"28.06 TB" for a 28.06 GB answer: graded wrong, and the verdict says what was written and what it
    amounts to; the same amount written in another unit of data ("0.02806 TB") is right."""
    from playwright.sync_api import expect

    from app.core.db import make_engine

    slip = {"GB": ("TB", 1e-3), "MB": ("GB", 1e-3), "ms": ("s", 1e-3), "GiB": ("GB", 1.073741824)}
    engine = make_engine(database_url)
    try:
        kind = _at_a_drill(engine, page, live_server, "una")
        params = _newest_params(engine)
        unit, answer = drills.unit(params), drills.answer(params)
        assert unit in slip, unit
        other, factor = slip[unit]
        page.locator("#typed-answer").fill(f"{answer:.6g} {other}")
        page.keyboard.press("Enter")
        verdict = page.locator("#verdict")
        expect(verdict).to_contain_text("Not quite")
        expect(verdict).to_contain_text(f"you wrote {other}; {answer:,.6g} {other} is")
        page.keyboard.press("1")  # keep Again
        expect(verdict).to_be_hidden()
        expect(kind).to_contain_text("drill")
        page.locator("#typed-answer").fill(f"{drills.answer(_newest_params(engine)) * factor:.8g} {other}")
        page.keyboard.press("Enter")
        expect(verdict).to_contain_text("✓ Correct")
    finally:
        engine.dispose()

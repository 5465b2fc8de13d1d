"""A 40-review session on a 390 px phone, through the real quiz page in Chromium on a live uvicorn server with
the bundled deck: cards revealed and graded from the keyboard, follow-up chains, typed drills answered (the
first one in a wrong unit, whose feedback names the unit), and after every step nothing wider than the phone.
The stats page closes the session. Screenshots of the front, the back, the wrong-unit feedback and the stats
are taken at 390 px; ``PROOFDECK_SCREENSHOTS=docs pytest tests/pages/test_phone_session_browser.py`` writes them
into ``docs/`` (``docs/reviewing.md`` shows them)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select

from app.core.db import make_engine
from app.items import drills
from app.models import DrillShowing
from tests.utils.accounts import new_user

ROOT = Path(__file__).resolve().parents[2]
PHONE = 390
REVIEWS = 40
SLIP = {"GB": ("TB", 1e-3), "MB": ("GB", 1e-3), "ms": ("s", 1e-3), "GiB": ("GB", 1.073741824), "s": ("ms", 1e3)}

pytestmark = [pytest.mark.browser, pytest.mark.bundled_deck, pytest.mark.slow,
              pytest.mark.backend_agnostic("the quiz page at phone width in Chromium; grading and storing run on "
                                           "both backends in tests/api")]


def _logged(api: httpx.Client) -> int:
    return int(api.get("/api/review/log", params={"limit": 500}).json()["count"])


def _drill(database_url: str) -> tuple[float, str]:
    """The answer and unit of the drill the page shows (the newest showing)."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            showing = s.exec(select(DrillShowing).order_by(col(DrillShowing.id).desc())).first()
        assert showing is not None
        return drills.answer(showing.params), drills.unit(showing.params)
    finally:
        engine.dispose()


def test_forty_reviews_on_a_phone(live_server: str, database_url: str, browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    shots = Path(os.environ.get("PROOFDECK_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    token, link = new_user(database_url, "phone-session")
    context = browser.new_context(viewport={"width": PHONE, "height": 844}, is_mobile=True)
    page = context.new_page()
    with httpx.Client(base_url=live_server, headers={"Authorization": f"Bearer {token}"}, timeout=30) as api:
        # a learner who studies card by card (deck order, burying off: a card's follow-ups, pitfalls and drills
        # the same day), 60 new a day
        api.put("/api/review/settings", json={"new_per_day": 60, "bury_siblings": False, "gather_order": "deck",
                                              "language": "both"}).raise_for_status()
        try:
            page.goto(f"{live_server}/login?token={link}&next=/quiz")
            kinds: list[str] = []
            taken: set[str] = set()
            slipped = False
            steps = 0
            while (done := _logged(api)) < REVIEWS:
                steps += 1
                assert steps < 6 * REVIEWS, f"stuck after {done} reviews"
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= PHONE, (done, kinds[-1:], width)
                expect(page.locator("#kind")).not_to_have_text("")
                if page.locator("#typed-answer").is_visible() and page.locator("#typed-answer").is_enabled():
                    answer, unit = _drill(database_url)
                    kinds.append("drill")
                    if not slipped and unit in SLIP:  # the right number in a wrong unit: wrong, and said why
                        other, _factor = SLIP[unit]
                        page.locator("#typed-answer").fill(f"{answer:.6g} {other}")
                        page.keyboard.press("Enter")
                        expect(page.locator("#verdict")).to_contain_text(f"you wrote {other}")
                        page.screenshot(path=str(shots / "phone-drill-wrong-unit.png"), full_page=True)
                        taken.add("drill")
                        slipped = True
                    else:
                        page.locator("#typed-answer").fill(f"{answer:.6g} {unit}")
                        page.keyboard.press("Enter")
                        expect(page.locator("#verdict")).to_contain_text("✓")
                    continue
                if page.locator("#grades").is_visible() and page.locator("#verdict").is_visible():
                    page.keyboard.press("1")  # a wrong drill answer: keep Again
                    expect(page.locator("#verdict")).to_be_hidden()
                    continue
                if page.locator("#continue").is_visible() or page.locator("#study-next").is_visible():
                    page.keyboard.press("Space")  # after a drill's verdict, or a study item: the next one
                    continue
                if page.locator("#reveal").is_visible():
                    kinds.append(page.locator("#kind").inner_text())
                    if "front" not in taken:
                        page.screenshot(path=str(shots / "phone-quiz-front.png"), full_page=True)
                        taken.add("front")
                    page.keyboard.press("Space")
                    expect(page.locator("#grades")).to_be_visible()
                    if "back" not in taken:
                        page.screenshot(path=str(shots / "phone-quiz-back.png"), full_page=True)
                        taken.add("back")
                    before = done
                    page.keyboard.press("1" if len(kinds) % 7 == 0 else "3")
                    for _ in range(100):
                        if _logged(api) > before:
                            break
                        page.wait_for_timeout(30)
                    continue
                page.wait_for_timeout(50)  # between two items: the next one is loading
            log = api.get("/api/review/log", params={"limit": 500}).json()
            assert log["count"] >= REVIEWS
            assert {"drill"} <= set(kinds) and any("follow-up" in k or "追问" in k for k in kinds), kinds
            assert slipped and any(e["correct"] is False for e in log["data"] if e.get("typed_answer"))
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
            page.goto(f"{live_server}/quiz/stats")
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
            page.screenshot(path=str(shots / "phone-stats.png"), full_page=True)
            assert {p.name for p in shots.glob("phone-*.png")} >= {"phone-quiz-front.png", "phone-quiz-back.png",
                                                                 "phone-drill-wrong-unit.png", "phone-stats.png"}
        finally:
            context.close()

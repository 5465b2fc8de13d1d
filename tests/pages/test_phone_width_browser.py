"""Every page of the bundled deck fits a 390 px phone: the card page of every bundled card, the quiz, the stats
page, a computed drill's worked solution on the quiz, and the offline handbook opened from file:// (612 px
wide before inline formulas got their own scroll box). A long formula, table or code block scrolls inside its
own box; nothing may widen the page (``document.documentElement.scrollWidth`` stays at the viewport's 390 px),
and a formula wider than its box can be scrolled, not cut off. One browser context and one page object serve
every page (a context per page cost seconds each)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from app.auth.links import issue_link
from app.auth.users import create_user
from app.core.config import settings
from app.core.db import make_engine
from app.deck.verdicts import load_bundled
from app.export.deck import load_docs, load_verdicts
from app.export.handbook import render_handbook
from app.models import UserSettings
from app.review.study_snapshot import handbook_study
from tests.utils.accounts import new_user_link
from tests.utils.review import engine_answer, engine_next, review_engine

ROOT = Path(__file__).resolve().parents[2]
PHONE = 390

pytestmark = [pytest.mark.browser, pytest.mark.bundled_deck,
              pytest.mark.backend_agnostic("the layout in Chromium; what the pages hold runs on both backends")]



WIDTH = "() => document.documentElement.scrollWidth"
# formulas wider than their box whose box does not scroll (what a phone would cut off)
CUT = """(scope) => [...document.querySelectorAll(scope + ' math, ' + scope + ' .math-block')]
    .filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1
                 && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
    .map(e => e.textContent.slice(0, 40))"""


def _widest(page: Any) -> str:
    """What sticks out past the viewport (for the failure message)."""
    return str(page.evaluate(f"""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > {PHONE} + 1
                     && !(e.parentElement.getBoundingClientRect().right > {PHONE} + 1))
        .slice(0, 4).map(e => e.tagName + '.' + e.className + ' in ' + e.parentElement.tagName + '.'
                         + e.parentElement.className + ' ' + Math.round(e.getBoundingClientRect().right))
        .join('; ')"""))


def test_every_page_fits_390px(live_server: str, database_url: str, browser: Any, tmp_path: Path) -> None:
    token = new_user_link(database_url, "phone")
    slugs = sorted(p.stem for p in (ROOT / "cards").glob("*.md") if p.stem != "README")
    assert len(slugs) >= 20
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{live_server}/login?token={token}&next=/quiz")
        too_wide: dict[str, str] = {}
        for path in [f"/cards/{slug}" for slug in slugs] + ["/quiz", "/quiz/stats"]:
            response = page.goto(f"{live_server}{path}")
            assert response is not None and response.ok, (path, response and response.status, page.content()[:300])
            if page.evaluate(WIDTH) > PHONE:
                too_wide[path] = f"{page.evaluate(WIDTH)} px: {_widest(page)}"
        assert not too_wide, too_wide

        # a computed drill's worked solution (two display formulas) on the quiz: the formula scrolls in its box
        page.goto(f"{live_server}/login?token={_at_first_drill(database_url)}&next=/quiz")
        page.locator("#typed-answer").fill("1")
        page.keyboard.press("Enter")
        page.locator("#back .math-block").first.wait_for()
        assert page.evaluate(WIDTH) <= PHONE, _widest(page)
        assert page.evaluate(CUT, "#back") == []
        wide = page.evaluate("() => [...document.querySelectorAll('#back .math-block')]"
                             ".filter(e => e.scrollWidth > e.clientWidth).length")
        print(f"drill solution at {PHONE} px: {wide} formula box(es) scroll")

        # the offline handbook of the same deck with the bundled report's verdicts, opened from disk
        engine = make_engine(database_url)
        try:
            load_bundled(engine, settings.BUNDLED_REPORT)
            with Session(engine) as s:
                docs, verdicts = load_docs(s), load_verdicts(s)
            study = handbook_study(review_engine(engine), docs, None)
        finally:
            engine.dispose()
        handbook = tmp_path / "proofdeck.html"
        handbook.write_text(render_handbook(docs, verdicts, study=study), encoding="utf-8")
        page.goto(handbook.as_uri())
        width = page.evaluate(WIDTH)
        print(f"handbook at {PHONE} px: {width} px wide, {len(docs)} cards")
        assert width <= PHONE, f"{width} px: {_widest(page)}"
        assert page.evaluate(CUT, "main") == []
        scrolling = page.evaluate("() => [...document.querySelectorAll('main math')]"
                                  ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
        assert scrolling > 0  # the formulas that made it 612 px wide are still there, scrolling in their boxes
        # every computed drill's worked solution as the handbook's study mode shows it (its back, all showings)
        shown = page.evaluate(SOLUTIONS)
        assert shown > 20, shown
        assert page.evaluate(WIDTH) <= PHONE, _widest(page)
        assert page.evaluate(CUT, "#s-back") == []
    finally:
        context.close()


# the study panel opened with every drill showing's back in it (study.js shows one at a time, from these templates)
SOLUTIONS = """() => { document.getElementById('study').hidden = false;
    document.getElementById('s-item').hidden = false;
    const back = document.getElementById('s-back'); back.hidden = false;
    for (const t of document.querySelectorAll('template[id^="sd-"]')) back.append(t.content.cloneNode(true));
    return back.querySelectorAll('.math-block').length; }"""


def _at_first_drill(database_url: str) -> str:
    """A new user whose next quiz item is a computed drill (the items before it answered Good); a one-time login
    link's token for them."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as s, s.begin():
            user, _api = create_user(s, "phone-drill")
            assert user.id is not None
            user_id = user.id
            token = issue_link(s, user)
            st = s.exec(select(UserSettings).where(UserSettings.user_id == user_id)).one()
            st.gather_order, st.bury_siblings = "deck", False  # a card's drills are its siblings
        now = datetime.now(UTC)
        for _ in range(40):
            item = engine_next(engine, user_id, now)["item"]
            if item["kind"] == "drill":
                return token
            engine_answer(engine, user_id, item_id=item["id"], rating=3, now=now)
        raise AssertionError("no computed drill among the first 40 items")
    finally:
        engine.dispose()

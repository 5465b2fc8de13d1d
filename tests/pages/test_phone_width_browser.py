"""Every page of the bundled deck fits a 390 px phone: the card page of every bundled card, the quiz and the
stats page (the offline handbook is not covered yet: it is 608 px wide at 390 px, inline formulas in its
paragraphs overflow). A long formula, table or code block scrolls inside its own box; nothing
may widen the page (``document.documentElement.scrollWidth`` stays at the viewport's 390 px). One browser
context and one page object serve every page (a context per page cost seconds each)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.utils.accounts import new_user_link

ROOT = Path(__file__).resolve().parents[2]
PHONE = 390

pytestmark = [pytest.mark.browser,
              pytest.mark.backend_agnostic("the layout in Chromium; what the pages hold runs on both backends")]



@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """The bundled deck (this folder's conftest serves a fixture deck otherwise)."""
    dest = tmp_path / "cards"
    shutil.copytree(ROOT / "cards", dest)
    return dest


WIDTH = "() => document.documentElement.scrollWidth"


def _widest(page: Any) -> str:
    """What sticks out past the viewport (for the failure message)."""
    return str(page.evaluate(f"""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > {PHONE} + 1
                     && !(e.parentElement.getBoundingClientRect().right > {PHONE} + 1))
        .slice(0, 4).map(e => e.tagName + '.' + e.className + ' in ' + e.parentElement.tagName + '.'
                         + e.parentElement.className + ' ' + Math.round(e.getBoundingClientRect().right))
        .join('; ')"""))


def test_card_quiz_and_stats_pages_fit_390px(live_server: str, database_url: str, browser: Any) -> None:
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
    finally:
        context.close()

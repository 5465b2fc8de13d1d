"""The XSS corpus in headless Chromium: card page, index, quiz (front, back, drills, chain) and the
offline handbook from ``file://``. The browser context bypasses the Content-Security-Policy, so what is
tested is the markup itself, not the second wall: no dialog may open and ``window.__xss`` stays unset
while we toggle languages, open every ``<details>``, reveal answers and hover everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from tests.utils.cards import make_card, write_cards
from tests.utils.xss import hostile_card, hostile_report

pytestmark = pytest.mark.backend_agnostic("what Chromium executes of stored text; "
                                          "the text round-trips both backends unchanged in tests/api")

ALL = "xss-all"
POKE = """() => {
  for (const el of document.querySelectorAll("*")) {
    for (const type of ["mouseover", "mouseenter", "mousemove", "focus", "focusin", "toggle", "animationstart"]) {
      el.dispatchEvent(new Event(type, {bubbles: true}));
    }
  }
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  return document.querySelectorAll("*").length;
}"""


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    return write_cards(tmp_path / "cards", hostile_card(ALL, link_to="plain"), make_card("plain"))


def assert_nothing_ran(page: Any, dialogs: list[str], where: str) -> None:
    assert page.evaluate("() => typeof window.__xss") == "undefined", where
    assert dialogs == [], (where, dialogs)


def click_around(page: Any, dialogs: list[str], where: str) -> None:
    for lang in ("zh", "en", "both"):
        page.locator(f"[data-set-lang={lang}]").first.click()
    for summary in page.locator("details > summary").all()[:40]:
        if summary.is_visible():
            summary.click()
    for link in page.locator("main a, article a").all()[:40]:
        if link.is_visible():  # the events a hover sends, on the link itself (a sticky header may cover it)
            for event in ("mouseover", "mouseenter", "mousemove", "focus"):
                link.dispatch_event(event)
    assert page.evaluate(POKE) > 50
    assert_nothing_ran(page, dialogs, where)


@pytest.mark.browser
@pytest.mark.slow
def test_pages_and_quiz_run_no_card_script(live_server: str, database_url: str,
                                           hostile_page: tuple[Any, list[str]], tmp_path: Path) -> None:
    from app.auth.links import issue_link
    from app.auth.users import create_user
    from app.core.db import make_engine
    from app.export.deck import load_docs, load_verdicts
    from app.export.handbook import render_handbook
    from app.verification.store import store_report

    page, dialogs = hostile_page
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            store_report(s, hostile_report([hostile_card(ALL)]))
        with Session(engine) as s, s.begin():
            user, _api_token = create_user(s, "tess")
            token = issue_link(s, user)
        with Session(engine) as s:
            handbook = tmp_path / "handbook.html"
            handbook.write_text(render_handbook(load_docs(s), load_verdicts(s)), encoding="utf-8")
    finally:
        engine.dispose()

    page.goto(f"{live_server}/cards/{ALL}")
    assert page.locator(".claim-verdict.verdict-conditional").count() == 1  # the hostile verdict is shown
    assert "<script>window.__xss=1</script>" in page.locator("h1").inner_text()  # as text
    click_around(page, dialogs, "card page")
    page.screenshot(path="/tmp/xss-card.png")

    page.goto(f"{live_server}/")
    click_around(page, dialogs, "index")

    page.goto(f"{live_server}/login?token={token}")
    assert page.url == f"{live_server}/quiz"
    page.evaluate("() => fetch('/api/review/settings', {method: 'PUT', headers: {'Content-Type': "
                  "'application/json'}, body: JSON.stringify({new_per_day: 500, bury_siblings: false})})")
    kinds = set()  # every item of the hostile card (burying off: they are siblings)
    for step in range(16):
        page.wait_for_function("() => !document.getElementById('quiz').hidden || "
                               "!document.getElementById('done').hidden")
        if not page.locator("#done").is_hidden():
            break
        kinds.add(page.locator("#kind").inner_text())
        page.evaluate(POKE)
        if page.locator("#typed-form").is_visible():  # a drill: answer, see the worked solution
            page.locator("#typed-answer").fill("1")
            page.keyboard.press("Enter")
            page.locator("#verdict").wait_for(state="visible")
        else:
            page.locator("#reveal").click()
            page.locator("#back").wait_for(state="visible")
            page.evaluate(POKE)
            with page.expect_response(lambda r: r.url.endswith("/api/review") and r.request.method == "POST"):
                page.locator("#grades [data-rating='3']").click()
        page.evaluate(POKE)
        assert_nothing_ran(page, dialogs, f"quiz step {step}")
        if page.locator("#continue-row").is_visible():
            page.locator("#continue").click()
        page.wait_for_function("() => document.getElementById('back').hidden || "
                               "!document.getElementById('done').hidden")
    assert {"卡片 card", "追问 follow-up", "计算 drill"} <= kinds, kinds
    page.goto(f"{live_server}/quiz/stats")
    click_around_stats = page.evaluate(POKE)
    assert click_around_stats > 20
    assert_nothing_ran(page, dialogs, "stats")

    page.goto(handbook.as_uri())
    click_around(page, dialogs, "handbook")
    page.locator("#q").fill("script")
    page.evaluate(POKE)
    assert_nothing_ran(page, dialogs, "handbook search")


POKE_STUDY = POKE.replace('document.querySelectorAll("*")', 'document.querySelectorAll("#study *")', 1)


@pytest.mark.browser
def test_handbook_study_mode_runs_no_card_script(engine: Any, cards_dir: Path, hostile_page: tuple[Any, list[str]],
                                                 tmp_path: Path) -> None:
    """Every item of the hostile card in the handbook's study mode (its card, follow-ups, one pitfall per
    payload, the misconception drill of its refuted claim, the drills' faces and worked solutions), with
    every language, revealed and graded: no dialog, no ``window.__xss``, no element the corpus smuggles in."""
    from app.auth.users import create_user
    from app.deck.sync import sync_cards
    from app.items.items import refresh_after_verdicts
    from app.models.user import UserSettings
    from app.verification.store import store_report
    from tests.utils.handbook import write_handbook

    page, dialogs = hostile_page
    sync_cards(engine, cards_dir)
    with Session(engine) as s:
        store_report(s, hostile_report([hostile_card(ALL)]))
    with Session(engine) as s:
        refresh_after_verdicts(s)  # the conditional verdict makes a misconception drill
    with Session(engine) as s, s.begin():
        user, _token = create_user(s, "tess")
        user_id = user.id
        assert user_id is not None
    with Session(engine) as s, s.begin():
        settings = s.get(UserSettings, user_id) or UserSettings(user_id=user_id)
        settings.new_per_day = 1000
        s.add(settings)
    handbook = write_handbook(engine, tmp_path / "handbook.html", "tess")
    page.goto(handbook.as_uri() + "#study")
    kinds: set[str] = set()
    for step in range(400):
        if page.locator("#s-done").is_visible():
            break
        kinds.add(page.locator("#s-kind").inner_text())
        page.locator(f"[data-set-lang={('zh', 'en', 'both')[step % 3]}]").first.click()
        if page.locator("#s-typed").is_visible():
            page.locator("#s-answer").fill("1")
            page.keyboard.press("Enter")
            page.locator("#s-back").wait_for(state="visible")
            page.evaluate(POKE_STUDY)
            page.keyboard.press("Space")
        else:
            page.keyboard.press("Space")
            page.locator("#s-back").wait_for(state="visible")
            page.evaluate(POKE_STUDY)
            page.keyboard.press("4")
        assert_nothing_ran(page, dialogs, f"study step {step}")
        if step % 10 == 0:
            assert page.evaluate("document.querySelectorAll('#study script, #study iframe, #study object, "
                                 "#study embed, #study img, #study [onerror], #study [onclick]').length") == 0
    assert page.locator("#s-done").is_visible(), "the session did not end"
    assert {"卡片 card", "追问 follow-up", "陷阱 pitfall", "纠错 misconception", "计算 drill"} <= kinds, kinds
    assert_nothing_ran(page, dialogs, "study mode")

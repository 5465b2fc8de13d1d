"""In headless Chromium: the ranked search on / and the quiz's "paste a question" study session."""

from __future__ import annotations

from typing import Any

import pytest

from tests.utils.accounts import new_user_link


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.backend_agnostic("the search box in Chromium; "
                              "ranking runs on both backends in test_match_api.py and test_backends.py")
def test_search_box_ranks_and_quiz_paste_box_studies(live_server: str, database_url: str, page: Any) -> None:
    from playwright.sync_api import expect


    page.goto(f"{live_server}/")
    page.fill("#q", "为什么ZeRO-3通信量更大")
    page.press("#q", "Enter")
    page.wait_for_url("**/?q=*")
    first = page.locator("ol.matches > li.match").first
    expect(first.locator("a.card-link")).to_have_attribute("href", "/cards/zero-sharding")
    assert page.locator("ol.matches > li.match").count() >= 3
    marks = first.locator(".snippet mark")
    assert marks.count() >= 1 and any(t in marks.first.inner_text() for t in ("ZeRO", "通信"))

    token = new_user_link(database_url, "paula")
    page.goto(f"{live_server}/login?token={token}")
    assert page.url == f"{live_server}/quiz"
    page.wait_for_load_state("networkidle")  # quiz.js has fetched and shown its item (it may move the focus)
    page.fill("#paste-q", "How does interleaved 1F1B with virtual stages shrink the pipeline bubble?")
    page.press("#paste-q", "Enter")  # focus first: quiz.js may move the focus to the item once it loads
    page.wait_for_url("**/quiz/study?q=*")
    expect(page.locator("#study-cards li").first).to_have_attribute("data-slug", "pipeline-parallelism")
    expect(page.locator("#kind")).to_contain_text("card")
    expect(page.locator("#front")).to_contain_text("Pipeline Parallelism")
    total = int(page.locator("#due-left").inner_text())
    assert total > 3
    page.keyboard.press("Space")
    expect(page.locator("#back")).to_be_visible()
    assert page.locator("#grades").is_hidden() and page.locator("#study-next").is_visible()
    page.keyboard.press("Space")  # next item of the session, nothing graded
    expect(page.locator("#due-left")).to_have_text(str(total - 1))
    expect(page.locator("#kind")).to_contain_text("follow-up")
    page.locator("#reveal").click()
    page.locator("#study-next").click()
    expect(page.locator("#due-left")).to_have_text(str(total - 2))
    log = page.request.get(f"{live_server}/api/review/log").json()
    assert log["count"] == 0  # studying left the schedule alone


@pytest.mark.browser
def test_the_offline_handbook_ranks_in_the_browser(tmp_path: Any, page: Any) -> None:
    from pathlib import Path

    from playwright.sync_api import expect

    from app.deck.sync import load_deck
    from app.export.handbook import render_handbook
    from app.search.index import index_cards
    from app.search.match import rank
    from app.search.offline import card_text

    root = Path(__file__).resolve().parents[2]
    docs = [s.doc for s in load_deck(root / "cards")]
    out = Path(tmp_path) / "handbook.html"
    out.write_text(render_handbook(docs), encoding="utf-8")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(out.as_uri())
    page.fill("#q", "为什么ZeRO-3通信量更大")
    ranked = page.locator("#ranked li")
    expect(ranked.first).to_have_attribute("data-slug", "zero-sharding")
    assert ranked.count() == 5
    # the example: the handbook finds as many cards as the server's matcher on the same deck (one card
    # with the nine ZeRO cards; the canon's 3D-parallelism and accumulation cards speak of the bubble too)
    server = rank(index_cards([card_text(d) for d in sorted(docs, key=lambda d: d.slug)], 0, "both"), "bubble",
                  limit=50).hits
    assert server and server[0].card.slug == "pipeline-parallelism"
    page.fill("#q", "bubble")
    expect(page.locator("#count")).to_have_text(str(len(server)))
    expect(ranked.first).to_have_attribute("data-slug", "pipeline-parallelism")
    page.fill("#q", "的？")
    expect(page.locator("#count")).to_have_text("0")
    assert errors == []

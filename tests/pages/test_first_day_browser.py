"""A new learner's first day on the bundled deck, through the real quiz page in Chromium on a live uvicorn
server, with the default queue (interleaved gather order, siblings buried):

- 24 answers: every item comes from another card (the first 20 from 20 cards), so no sibling of an
  answered item comes back that day; the header's counts equal the API's after each answer;
- the deck holds each drill once (no drill key on two cards);
- a second learner with burying off: inside a follow-up chain the header's counts still equal the API's
  after each answer; in a drill's focused answer box ``-`` buries and ``@`` suspends (nothing typed), Esc
  leaves the box (``h`` then works), Enter goes back to it and submits, ``-`` after an exponent is typed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, func, select

from app.core.db import make_engine
from app.models import Card, ReviewItem
from tests.utils.accounts import new_user

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.browser, pytest.mark.bundled_deck, pytest.mark.slow,
              pytest.mark.backend_agnostic("the quiz page's queue in Chromium; the queue's counts against a "
                                           "rebuilt one run in tests/review/test_gather_bury.py")]


@pytest.fixture
def learner(live_server: str, database_url: str) -> Iterator[tuple[str, httpx.Client]]:
    """(a one-time login link's token for the page, the same learner through the API)."""
    token, link = new_user(database_url, "first-day")
    with httpx.Client(base_url=live_server, headers={"Authorization": f"Bearer {token}"}, timeout=30) as api:
        yield link, api


def _logged(api: httpx.Client, n: int) -> None:
    """Wait until the page's answer number ``n`` is stored."""
    for _ in range(300):
        if api.get("/api/review/log", params={"limit": 500}).json()["count"] >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"answer {n} never arrived")


def _header_matches(page: Any, api: httpx.Client) -> None:
    """The header shows the API's counts (polled: the page updates it after its own request)."""
    from playwright.sync_api import expect

    counts = api.get("/api/review/counts").json()
    assert counts == api.get("/api/review/stats").json()["counts"]
    expect(page.locator("#due-left")).to_have_text(str(counts["total"]))
    for k in ("new", "learning", "review"):
        expect(page.locator(f"#count-{k}")).to_have_text(str(counts[k]))


def test_first_day_then_a_chain_and_a_drill_box(live_server: str, database_url: str, browser: Any,
                                                  learner: tuple[str, httpx.Client]) -> None:
    from playwright.sync_api import expect

    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            per_key = s.exec(select(ReviewItem.key, func.count()).join(Card, col(Card.id) == ReviewItem.card_id)
                             .where(ReviewItem.kind == "drill", col(ReviewItem.retired).is_(False),
                                    col(Card.retired).is_(False)).group_by(ReviewItem.key)).all()
    finally:
        engine.dispose()
    assert per_key and all(n == 1 for _key, n in per_key), [k for k, n in per_key if n > 1]

    token, api = learner
    assert api.put("/api/review/settings", json={"new_per_day": 30}).status_code == 200
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_server}/login?token={token}&next=/quiz")
        cards: list[str] = []
        for n in range(24):
            item = api.get("/api/review/next").json()["item"]
            assert item is not None and item["new"], (n, item)
            expect(page.locator("#card-title")).to_have_attribute("href", f"/cards/{item['card']['slug']}")
            _header_matches(page, api)
            cards.append(item["card"]["slug"])
            assert not item["typed"], item  # interleaved: every card's first item (the card) comes first
            page.keyboard.press("Space")
            page.keyboard.press("4")  # Easy: straight to Review, nothing of today comes back
            _logged(api, n + 1)
        assert len(set(cards[:20])) == 20 and len(set(cards)) == 24, cards  # no card twice: siblings buried
        _header_matches(page, api)
        left = api.get("/api/review/next").json()["item"]
        assert left is None or left["card"]["slug"] not in cards
    finally:
        context.close()
    _chain_counts_and_keys_in_a_drill_box(live_server, database_url, browser)  # the same server: no second start


def _to_next_drill(page: Any, api: httpx.Client, live_server: str) -> dict[str, Any]:
    """Suspend (through the API) whatever comes before the next drill, then show the page's quiz again."""
    for _ in range(60):
        item = api.get("/api/review/next").json()["item"]
        if item["typed"]:
            page.goto(f"{live_server}/quiz")
            return dict(item)
        api.post(f"/api/review/items/{item['id']}/suspend").raise_for_status()
    raise AssertionError("no drill came up")


def _chain_counts_and_keys_in_a_drill_box(live_server: str, database_url: str, browser: Any) -> None:
    from playwright.sync_api import expect

    token, link = new_user(database_url, "chain")
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    with httpx.Client(base_url=live_server, headers={"Authorization": f"Bearer {token}"}, timeout=30) as api:
        try:
            api.put("/api/review/settings", json={"new_per_day": 200, "bury_siblings": False,
                                                  "gather_order": "deck"}).raise_for_status()
            page.goto(f"{live_server}/login?token={link}&next=/quiz")
            expect(page.locator("#kind")).to_contain_text("card")
            _header_matches(page, api)
            page.keyboard.press("Space")
            page.keyboard.press("4")
            _logged(api, 1)
            expect(page.locator("#chain-note")).to_contain_text("follow-up question(s) of this card")
            for n in (2, 3):  # inside the chain: no GET /next, the header still follows
                expect(page.locator("#kind")).to_contain_text("follow-up")
                _header_matches(page, api)
                page.keyboard.press("Space")
                page.keyboard.press("4")
                _logged(api, n)
            _header_matches(page, api)

            # the card's other items out of the way (suspended through the API) until a drill is next
            first = _to_next_drill(page, api, live_server)
            box = page.locator("#typed-answer")
            expect(box).to_be_focused()
            page.keyboard.type("7")
            page.keyboard.press("Escape")  # leaves the box; the quiz's keys work again
            expect(box).not_to_be_focused()
            expect(box).to_have_value("7")
            page.keyboard.press("h")
            expect(page.locator("#item-history")).to_be_visible()
            page.keyboard.press("Enter")  # back into the box
            expect(box).to_be_focused()
            page.keyboard.press("-")  # buries; not typed
            expect(page.locator("#status")).to_contain_text("Buried until tomorrow")
            second = _to_next_drill(page, api, live_server)
            assert second["id"] != first["id"]
            expect(box).to_be_focused()
            expect(box).to_have_value("")
            page.keyboard.type("3")
            page.keyboard.press("@")  # suspends; not typed
            expect(page.locator("#status")).to_contain_text("Suspended")
            held = {h["item_id"]: h["hold"]["kind"] for h in api.get("/api/review/held").json()["data"]}
            assert held[first["id"]] == "bury" and held[second["id"]] == "suspend"
            third = _to_next_drill(page, api, live_server)
            assert third["id"] not in held
            expect(box).to_be_focused()
            page.keyboard.type("1e-3")  # an exponent's sign is typed
            expect(box).to_have_value("1e-3")
            logs = api.get("/api/review/log", params={"limit": 500}).json()["count"]
            page.keyboard.press("Enter")  # submits
            expect(page.locator("#verdict")).to_be_visible()
            _logged(api, logs + 1)
            _header_matches(page, api)  # after a drill's answer too
        finally:
            context.close()

"""The stats page at phone width in Chromium: the year heatmap shows each day's reviews, the 30-day charts
count reviews and minutes, retention without data says so, and the ticks are legible and not cut."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from app.auth.links import issue_link
from app.auth.users import create_user
from app.models import ReviewItem, ReviewLog
from app.srs.scheduler import now_utc, to_db

pytestmark = pytest.mark.backend_agnostic("the charts' layout in Chromium; "
                                          "the counts behind them run on both backends in tests/api and tests/review")


@pytest.mark.browser
def test_heatmap_and_charts_at_390px(live_server: str, database_url: str, browser: Any) -> None:
    from playwright.sync_api import expect

    from app.core.db import make_engine

    engine = make_engine(database_url)
    now = now_utc()
    # new items only (prev_state None): nothing counts toward true retention, so it must say "no data"
    per_day = {0: 3, 1: 1, 9: 12, 200: 5}  # days ago -> reviews
    try:
        with Session(engine) as s, s.begin():
            user, _api_token = create_user(s, "hana")
            token = issue_link(s, user)
            item = s.exec(select(ReviewItem)).first()
            assert item is not None and item.id is not None
            for ago, n in per_day.items():
                for k in range(n):
                    s.add(ReviewLog(user_id=user.id or 0, item_id=item.id, rating=3, duration_ms=30_000,
                                    reviewed_at=to_db(now - timedelta(days=ago, seconds=k)),
                                    idempotency_key=f"seed-{ago}-{k}"))
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(f"{live_server}/login?token={token}&next=/quiz/stats")
        page.goto(f"{live_server}/quiz/stats")
        cells = page.locator("#heatmap rect.day")
        expect(cells).to_have_count(371)
        for ago, n in per_day.items():
            day = (now - timedelta(days=ago)).date().isoformat()
            cell = page.locator(f'#heatmap rect[data-date="{day}"]')
            assert cell.get_attribute("data-reviews") == str(n)
        assert "l4" in (page.locator(f'#heatmap rect[data-date="{(now - timedelta(days=9)).date()}"]')
                        .get_attribute("class") or "")  # the busiest day: darkest
        assert page.locator("#heatmap rect.l0").count() == 371 - len(per_day)
        expect(page.locator("#heatmap-summary")).to_contain_text("21 reviews on 4 days")

        # the last 30 days: 16 reviews on three days (day 200 is outside), 30 s each
        reviews = page.locator("svg.reviews rect.bar")
        assert reviews.count() == 30
        assert reviews.nth(29).locator("title").text_content().endswith(": 3")
        assert page.locator("svg.minutes rect.bar").nth(20).locator("title").text_content().endswith(": 6.0")

        retention = page.locator("svg.retention")
        assert retention.locator("rect.bar").count() == 0
        expect(retention.locator("text.nodata")).to_have_count(2)
        expect(retention.locator("text.top")).to_have_text("100%")

        # every chart's ticks are legible at 390 px and the top tick is not cut at the left edge
        for svg in page.locator("svg.chart").all():
            box = svg.bounding_box()
            top = svg.locator("text.top").bounding_box()
            assert top["x"] >= box["x"] - 0.5, (top, box)
            sizes = svg.locator("text.tick").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect().height)")
            assert min(sizes) >= 9, sizes  # 11 px fonts were drawn about 6 px high before
        page.screenshot(path="/tmp/quiz-stats-390.png", full_page=True)
        context.close()
    finally:
        engine.dispose()

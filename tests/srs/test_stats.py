"""Stats: streak over UTC days, true retention counts only reviews of items in Review state, forecast."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deck.sync import sync_cards
from app.models import ReviewItem
from app.srs.stats import streak, user_stats
from tests.utils.review import engine_answer
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 2, 1, 23, 30, tzinfo=UTC)


def test_streak_counts_back_from_today_or_yesterday() -> None:
    today = date(2026, 2, 10)
    days = {today - timedelta(days=i) for i in (1, 2, 3, 5)}
    assert streak(days, today) == 3  # nothing yet today: the run ending yesterday still counts
    assert streak(days | {today}, today) == 4
    assert streak(set(), today) == 0


def test_user_stats(engine: Engine, tmp_path: Path) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card("a", follow_ups=0, pitfalls=(0, 0)),
                                                        make_card("b", follow_ups=0, pitfalls=(0, 0))]))
    uid = new_user_id(engine, "ana")
    with Session(engine) as s:
        a, b = (i.id or 0 for i in s.exec(select(ReviewItem).order_by(col(ReviewItem.position))))
    # Easy on day 0 (→ Review, due in 8 days); on day 8, a Good and an Again: two review-state answers
    for item in (a, b):
        out = engine_answer(engine, uid, item_id=item, rating=4, now=T0, fuzz=False)
    t1 = datetime.fromisoformat(out["state"]["due"])
    assert t1 - T0 == timedelta(days=8)
    engine_answer(engine, uid, item_id=a, rating=3, now=t1, fuzz=False)
    engine_answer(engine, uid, item_id=b, rating=1, now=t1, fuzz=False)
    with Session(engine) as s:
        st = user_stats(s, uid, t1 + timedelta(minutes=1))
    assert st["reviewed_today"] == 2 and st["total_reviews"] == 4
    assert st["retention"]["7d"] == {"days": 7, "reviews": 2, "passed": 1, "retention": 0.5}
    assert st["streak"] == 1  # reviews on day 0 and day 8: a gap, so only today counts
    assert st["forecast"][0]["due"] == 1  # b relearns in 10 minutes; a is weeks away
    assert st["due_today"] == 1 and st["due_now"] == 0 and len(st["forecast"]) == 30

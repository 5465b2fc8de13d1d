"""Known-value scheduling with FSRS-6 default parameters, fixed UTC datetimes, fuzzing off.

Where the numbers come from (FSRS-6 defaults w0..w20, desired retention 0.9, learning steps 1 and 10 min):
- a new card's first stability is w[rating-1]: Again 0.212, Hard 1.2931, Good 2.3065, Easy 8.2956;
- at R = 0.9 the next interval equals the stability in days (rounded), so Easy on a new card → 8 days;
- Good on a new card → learning step 2 (10 min); Good again the same day → Review, same-day stability
  increase clamped at ≥ 1 for Good, so S stays 2.3065 → 2 days; then 11 days, then 46 days.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fsrs import Card, Rating, Scheduler, State
from sqlalchemy.engine import Engine

from app.deck.sync import sync_cards
from app.review.errors import NotDue
from app.srs.scheduler import as_utc, make_scheduler, parse_rating, review
from app.srs.state import StateRow
from tests.utils.review import engine_answer, engine_next
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _sched() -> Scheduler:
    return make_scheduler(fuzz=False)


def test_first_ratings_give_fsrs6_initial_stability_and_steps() -> None:
    expected = {Rating.Again: (0.212, State.Learning, timedelta(minutes=1)),
                Rating.Hard: (1.2931, State.Learning, timedelta(minutes=5, seconds=30)),
                Rating.Good: (2.3065, State.Learning, timedelta(minutes=10)),
                Rating.Easy: (8.2956, State.Review, timedelta(days=8))}
    for rating, (stability, state, interval) in expected.items():
        card = review(Card(card_id=1), rating, when=T0, scheduler=_sched())
        assert card.stability == pytest.approx(stability, abs=1e-4)
        assert card.state == state
        assert card.due - T0 == interval


def test_good_four_times_gives_10min_2d_11d_46d() -> None:
    card, now, gaps = Card(card_id=7), T0, []
    for _ in range(4):
        card = review(card, Rating.Good, when=now, scheduler=_sched())
        gaps.append(card.due - now)
        now = card.due
    assert gaps == [timedelta(minutes=10), timedelta(days=2), timedelta(days=11), timedelta(days=46)]
    assert card.state == State.Review


def test_as_utc_restores_the_exact_tzinfo_fsrs_demands() -> None:
    naive = datetime(2026, 1, 5, 9, 0)
    assert as_utc(naive).tzinfo is UTC
    shanghai = datetime(2026, 1, 5, 17, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert as_utc(shanghai) == T0 and as_utc(shanghai).tzinfo is UTC
    with pytest.raises(ValueError, match="timezone-aware and set to UTC"):
        _sched().review_card(Card(card_id=1), Rating.Good, review_datetime=naive)
    # a row read back from the database (naive) is usable once restored
    card = StateRow.of({"state": 2, "step": None, "stability": 2.3065, "difficulty": 2.1, "due": naive,
                        "last_review": naive - timedelta(days=2), "reps": 3, "lapses": 0}).card(1)
    assert review(card, Rating.Good, when=naive, scheduler=_sched()).due.tzinfo is UTC


@pytest.mark.parametrize("bad", [0, 5, "3", 3.0, True, None])
def test_invalid_ratings_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match=r"rating must be 1 \(Again\), 2 \(Hard\), 3 \(Good\) or 4 \(Easy\)"):
        parse_rating(bad)


def test_review_state_round_trips_through_the_database(engine: Engine, tmp_path: Path) -> None:
    """submit_review stores the state, reads it back naive-or-aware, and schedules the same as fsrs."""


    sync_cards(engine, write_deck(tmp_path / "cards", [make_card("solo", follow_ups=0, pitfalls=(0, 0))]))
    uid = new_user_id(engine, "ana")
    first = engine_next(engine, uid, T0)["item"]
    now, gaps = T0, []
    for n in range(4):
        out = engine_answer(engine, uid, item_id=first["id"], rating=3, now=now, fuzz=False,
                                idempotency_key=f"k{n}")
        due = datetime.fromisoformat(out["state"]["due"])
        gaps.append(due - now)
        with pytest.raises(NotDue):
            engine_answer(engine, uid, item_id=first["id"], rating=3, now=due - timedelta(seconds=1), fuzz=False)
        now = due
    assert gaps == [timedelta(minutes=10), timedelta(days=2), timedelta(days=11), timedelta(days=46)]

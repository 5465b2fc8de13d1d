"""The Spaced Repetition plugin's schedules → FSRS states (app/review/obsidian_import.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from fsrs import Card, Rating, Scheduler, State

from app.review.obsidian_import import NotASchedule, ease_to_difficulty, parse_schedule


def plugin_difficulty_to_ease(d: float) -> int:
    """The plugin's difficultyToEase (sr-parser.cjs), JavaScript's Math.round included."""
    d = min(10.0, max(1.0, d))
    return math.floor(130 + (10 - d) / 9 * (370 - 130) + 0.5)


def test_ease_mapping_inverts_the_plugins_own() -> None:
    for ease in range(130, 371):
        assert plugin_difficulty_to_ease(ease_to_difficulty(ease)) == ease, ease
    assert (ease_to_difficulty(250), ease_to_difficulty(130), ease_to_difficulty(370)) == (5.5, 10.0, 1.0)
    assert ease_to_difficulty(100) == 10.0 and ease_to_difficulty(500) == 1.0  # clamped to FSRS's range


def test_an_sm2_schedule_is_a_review_state_fsrs_agrees_with() -> None:
    s = parse_schedule("!2026-12-04,3,250")
    assert s is not None
    assert (s.state, s.step, s.stability, s.difficulty) == (2, None, 3.0, 5.5)
    assert (s.due, s.last_review) == (datetime(2026, 12, 4, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
    card = Card(card_id=1, state=State.Review, stability=s.stability, difficulty=s.difficulty, due=s.due,
                last_review=s.last_review)
    scheduler = Scheduler(enable_fuzzing=False)
    # stability = interval: at the due date the predicted recall is the plugin's (and FSRS's) 90 %
    assert scheduler.get_card_retrievability(card, s.due) == pytest.approx(0.9, abs=1e-6)
    after, _ = scheduler.review_card(card, Rating.Good, review_datetime=s.due)
    assert after.state == State.Review and (after.stability or 0) > s.stability and after.due > s.due
    assert parse_schedule("!04-12-2026,3,250") == s  # the plugin's other date format


def test_fsrs_comments_are_taken_as_they_are() -> None:
    s = parse_schedule("!fsrs,2026-12-09T08:00:00.000Z,5,5.2,6.1,3,4,1,0,2026-12-04T08:00:00.000Z")
    assert s is not None
    assert (s.state, s.step, s.stability, s.difficulty, s.reps, s.lapses) == (3, 0, 5.2, 6.1, 4, 1)
    assert s.last_review == datetime(2026, 12, 4, 8, tzinfo=UTC)


@pytest.mark.parametrize("body", ["!2000-01-01,1,250", "!fsrs,2026-12-09T08:00:00.000Z,0,0,0,0,0,0,0,-"])
def test_never_reviewed_is_none(body: str) -> None:
    assert parse_schedule(body) is None


@pytest.mark.parametrize(("body", "says"), [
    ("!2026-02-30,3,250", "is not a date"),
    ("!2026-12-04,0,250", "interval 0 days"),
    ("!2026-12-04,3,9999", "ease 9999"),
    ("!2026-12-04,3,250!2026-12-05,3,250", "2 schedules in one comment"),
    ("!tomorrow,3,250", "neither the plugin's SM-2"),
    ("!fsrs,2026-12-09T08:00:00Z,5,x,6.1,2,4,1,0,-", "non-numeric"),
    ("!fsrs,2026-12-09T08:00:00Z,5,5,6.1,2,4,1,0,-", "not a reviewed card"),
    ("!fsrs,2026-12-09T08:00:00Z,5,5,60,2,4,1,0,2026-12-04T08:00:00Z", "out of FSRS's range"),
    ("!fsrs,1,2", "has 10 fields"),
])
def test_what_the_plugin_never_writes_is_refused(body: str, says: str) -> None:
    with pytest.raises(NotASchedule, match=says):
        parse_schedule(body)

"""An item's state has one shape (app.srs.state.StateRow): these fail when the row, fsrs or the log diverge.

Each neighbour of the shape is checked against it: the ``ItemState`` columns, ``fsrs.Card``'s fields and
its ``to_dict`` (the review log's format), and a round trip through the real database, where SQLite hands
back naive datetimes that must come back as aware UTC (fsrs refuses anything else).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating, State
from sqlalchemy import select as core_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deck.sync import sync_cards
from app.models import ItemState, ReviewItem
from app.models.tables import STATES
from app.srs.scheduler import make_scheduler, review
from app.srs.state import FSRS_FIELDS, STATE_FIELDS, StateRow, fsrs_card, state_public
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 4, 6, 7, 30, tzinfo=UTC)
OWNERSHIP = {"id", "user_id", "item_id", "live", "lang"}  # ItemState columns that are not the state


def _reviewed(n: int = 3) -> StateRow:
    """A state after ``n`` Good answers, through fsrs."""
    state: StateRow | None = None
    now = T0
    for _ in range(n):
        card = review(fsrs_card(9, state), Rating.Good, when=now, scheduler=make_scheduler(fuzz=False))
        state = StateRow.after(card, before=state, rating=3)
        now = card.due
    assert state is not None
    return state


def test_the_shape_has_exactly_the_state_columns_of_the_itemstate_table() -> None:
    columns = set(STATES.c.keys()) - OWNERSHIP
    assert columns == set(STATE_FIELDS)
    assert tuple(f.name for f in dataclasses.fields(StateRow)) == STATE_FIELDS
    assert set(ItemState.model_fields) - OWNERSHIP == set(STATE_FIELDS)


def test_the_fsrs_fields_are_those_of_fsrs_card_and_the_log_json_is_its_to_dict() -> None:
    state = _reviewed()
    card = state.card(9)
    as_fsrs = card.to_dict()
    assert set(as_fsrs) - {"card_id"} == set(FSRS_FIELDS)
    assert state.log_json() == {k: v for k, v in as_fsrs.items() if k != "card_id"}
    # and back: fsrs's own reading of the log gives the same card, so the log can restore a state
    assert Card.from_dict({"card_id": 9, **state.log_json()}).to_dict() == as_fsrs  # type: ignore[typeddict-item]


def test_naive_datetimes_are_restored_to_utc_on_every_construction() -> None:
    naive_due, naive_last = datetime(2026, 4, 8, 7, 30), datetime(2026, 4, 6, 7, 30)
    for state in (StateRow(2, None, 2.3, 5.0, naive_due, naive_last, 2, 0),
                  StateRow.of({"state": 2, "step": None, "stability": 2.3, "difficulty": 5.0, "due": naive_due,
                               "last_review": naive_last, "reps": 2, "lapses": 0})):
        assert state.due.tzinfo is UTC and state.last_review is not None and state.last_review.tzinfo is UTC
        assert state.due == naive_due.replace(tzinfo=UTC)
        # fsrs accepts the card built from it (it raises on a naive or non-UTC datetime)
        assert review(state.card(1), Rating.Good, when=naive_due.replace(tzinfo=UTC),
                      scheduler=make_scheduler(fuzz=False)).due.tzinfo is UTC


def test_reps_count_every_answer_and_lapses_only_again_in_review() -> None:
    learned = _reviewed(3)
    assert learned.state == State.Review.value and (learned.reps, learned.lapses) == (3, 0)
    again = review(learned.card(9), Rating.Again, when=learned.due, scheduler=make_scheduler(fuzz=False))
    lapsed = StateRow.after(again, before=learned, rating=1)
    assert (lapsed.reps, lapsed.lapses) == (4, 1)
    failed = review(fsrs_card(9, None), Rating.Again, when=T0, scheduler=make_scheduler(fuzz=False))
    first_again = StateRow.after(failed, before=None, rating=1)
    assert (first_again.reps, first_again.lapses) == (1, 0)  # a new card that is failed has not lapsed


def test_a_state_round_trips_through_the_database(engine: Engine, tmp_path: Path) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card("solo", follow_ups=0, pitfalls=(0, 0))]))
    uid = new_user_id(engine, "sam")
    state = dataclasses.replace(_reviewed(), step=None, lapses=2)
    with Session(engine) as s:
        item_id = s.exec(select(ReviewItem.id).order_by(col(ReviewItem.id))).first()
        s.connection().execute(STATES.insert(), [{"user_id": uid, "item_id": item_id, "live": True, "lang": "",
                                                  **state.columns()}])
        s.commit()
    with Session(engine) as s:
        orm = s.exec(select(ItemState).where(ItemState.user_id == uid)).one()
        core = s.connection().execute(core_select(STATES).where(STATES.c.user_id == uid)).one()
        for read in (StateRow.of(orm), StateRow.of(core), StateRow.of(dict(core._mapping))):
            assert read == state
            assert read.due.tzinfo is UTC and read.last_review is not None and read.last_review.tzinfo is UTC
    public = state_public(StateRow.of(orm))
    assert public is not None
    assert public["state"] == "review" and public["due"] == state.due.isoformat() and public["due"].endswith("+00:00")
    assert (public["reps"], public["lapses"]) == (state.reps, 2)
    assert state_public(None) is None


@pytest.mark.parametrize("field", STATE_FIELDS)
def test_columns_and_tuple_carry_every_field(field: str) -> None:
    state = _reviewed()
    assert state.columns()[field] == getattr(state, field)
    assert StateRow(*state.as_tuple()) == state
    changed = dataclasses.replace(state, **{field: _other(getattr(state, field))})
    assert StateRow.of(changed.columns()) == changed != state


def _other(value: object) -> Any:
    if isinstance(value, datetime):
        return value + timedelta(hours=1)
    if isinstance(value, bool) or value is None:
        return 1
    assert isinstance(value, (int, float))
    return value + 1

"""The daily loop through the review engine, at chosen times: undo restores the state and removes the log
row within the day (idempotently), bury lasts until the next day and suspend until resumed, the counts
are Anki's (new / learning / review left today, with both daily limits), the interval preview is what
grading then gives, a drill keeps its numbers until answered, a wrong typed answer can be regraded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deck.sync import sync_cards
from app.items import drills
from app.models.review import DrillShowing, ItemState, ReviewItem, ReviewLog
from app.review.errors import BadAnswer, ItemNotFound, NothingToUndo
from app.srs.prefs import Prefs
from tests.utils.review import engine_answer, engine_next, review_engine
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
PREFS = Prefs(new_per_day=100)
IN_DECK_ORDER = Prefs(new_per_day=100, gather_order="deck")  # "everything before it" is then what comes first


@pytest.fixture
def deck(engine: Engine, tmp_path: Path) -> Engine:
    # alpha, beta, gamma: card + one follow-up each (6 items); delta: card + 8 drills (15 in all)
    sync_cards(engine, write_deck(tmp_path / "cards", [
        *(make_card(s, follow_ups=1, pitfalls=(0, 0)) for s in ("alpha", "beta", "gamma")),
        make_card("delta", follow_ups=0, pitfalls=(0, 0), drills=True)]))
    return engine


def _next(db: Engine, uid: int, now: datetime, prefs: Prefs = PREFS) -> dict[str, Any]:
    return engine_next(db, uid, now, prefs)


def _answer(db: Engine, uid: int, item_id: int, rating: int, now: datetime, **kw: Any) -> dict[str, Any]:
    return engine_answer(db, uid, item_id=item_id, rating=rating, now=now, fuzz=False, settings=PREFS, **kw)


def _state(db: Engine, uid: int, item_id: int) -> ItemState | None:
    with Session(db) as s:
        return s.exec(select(ItemState).where(ItemState.user_id == uid, ItemState.item_id == item_id)).first()


def _logs(db: Engine, uid: int) -> list[ReviewLog]:
    with Session(db) as s:
        return list(s.exec(select(ReviewLog).where(ReviewLog.user_id == uid).order_by(col(ReviewLog.id))))


def test_undo_restores_the_previous_state_and_removes_the_log(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    first = _next(deck, uid, T0)["item"]
    _answer(deck, uid, first["id"], 3, T0)  # new → learning
    later = T0 + timedelta(hours=1)
    before = _state(deck, uid, first["id"])
    assert before is not None
    cols = {c: getattr(before, c) for c in ("state", "step", "stability", "difficulty", "due", "reps", "lapses")}
    again = _next(deck, uid, later)["item"]
    assert again["id"] == first["id"]  # learning step due: it comes first
    _answer(deck, uid, first["id"], 1, later)  # learning → again
    assert len(_logs(deck, uid)) == 2

    out = eng.undo(uid, "undo-1", now=later + timedelta(minutes=1))
    assert out["undone"]["rating"] == 1 and out["item_id"] == first["id"] and out["replayed"] is False
    after = _state(deck, uid, first["id"])
    assert after is not None
    assert {c: getattr(after, c) for c in cols} == cols, "not the state before the undone answer"
    assert [log.rating for log in _logs(deck, uid)] == [3]
    # a retry with the same key answers the same and undoes nothing more
    assert eng.undo(uid, "undo-1", now=later + timedelta(minutes=2)) == {**out, "replayed": True}
    assert [log.rating for log in _logs(deck, uid)] == [3]
    # a second undo (new key) takes the first answer back: the item is new again, first in line
    eng.undo(uid, "undo-2", now=later + timedelta(minutes=3))
    assert _state(deck, uid, first["id"]) is None and _logs(deck, uid) == []
    nxt = _next(deck, uid, later + timedelta(minutes=3))
    assert nxt["item"]["id"] == first["id"] and nxt["item"]["new"] and nxt["counts"]["new"] == 15
    with pytest.raises(NothingToUndo):
        eng.undo(uid, "undo-3", now=later)


def test_a_late_retry_of_an_undone_answer_is_replayed_not_graded_again(deck: Engine) -> None:
    """The client never saw the reply to its answer, the learner undid it, then the client retried the answer
    with its key: the retry gets the first reply back and nothing is graded, logged or scheduled again."""
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    item = _next(deck, uid, T0)["item"]
    first = _answer(deck, uid, item["id"], 4, T0, idempotency_key="answer-1")
    eng.undo(uid, "undo-1", now=T0 + timedelta(minutes=1))
    assert _state(deck, uid, item["id"]) is None and _logs(deck, uid) == []
    retry = _answer(deck, uid, item["id"], 4, T0 + timedelta(minutes=2), idempotency_key="answer-1")
    assert retry["replayed"] is True and retry["rating"] == first["rating"] and retry["state"] == first["state"]
    assert _state(deck, uid, item["id"]) is None and _logs(deck, uid) == [], "the undone answer counted again"
    # a new key grades as usual
    fresh = _answer(deck, uid, item["id"], 4, T0 + timedelta(minutes=3), idempotency_key="answer-2")
    assert fresh["replayed"] is False and len(_logs(deck, uid)) == 1


def test_undo_only_within_the_day_and_only_your_own(deck: Engine) -> None:
    ada, bob = new_user_id(deck, "ada"), new_user_id(deck, "bob")
    eng = review_engine(deck, fuzz=False)
    item = _next(deck, ada, T0)["item"]
    _answer(deck, ada, item["id"], 4, T0)
    with pytest.raises(NothingToUndo):
        eng.undo(bob, "k", now=T0)  # bob has nothing; ada's answer stays
    assert len(_logs(deck, ada)) == 1
    with pytest.raises(NothingToUndo):
        eng.undo(ada, "k2", now=T0 + timedelta(days=1))  # the next day: yesterday's answer stays
    assert len(_logs(deck, ada)) == 1
    # the key is bob's: ada's undo with the same key is hers, not a replay of bob's refusal
    assert eng.undo(ada, "k", now=T0 + timedelta(hours=2))["undone"]["rating"] == 4


def test_undo_lapse_steps_back(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    item = _next(deck, uid, T0)["item"]["id"]
    _answer(deck, uid, item, 4, T0)  # easy: Review state
    st = _state(deck, uid, item)
    assert st is not None and st.state == 2
    due = st.due.replace(tzinfo=UTC) + timedelta(hours=1)
    _answer(deck, uid, item, 1, due)  # a lapse
    lapsed = _state(deck, uid, item)
    assert lapsed is not None and lapsed.lapses == 1 and lapsed.reps == 2
    eng.undo(uid, "u", now=due)
    back = _state(deck, uid, item)
    assert back is not None and (back.lapses, back.reps, back.state) == (0, 1, 2)


def test_bury_until_tomorrow_suspend_until_resumed(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    first = _next(deck, uid, T0)
    a, total = first["item"]["id"], first["counts"]["new"]
    assert total == 15
    eng.hold(uid, a, "bury", now=T0)
    out = _next(deck, uid, T0)
    assert out["item"]["id"] != a and out["counts"]["new"] == total - 1
    b = out["item"]["id"]
    eng.hold(uid, b, "suspend", now=T0)
    out = _next(deck, uid, T0)
    assert out["item"]["id"] not in (a, b) and out["counts"]["new"] == total - 2
    with Session(deck) as s:
        assert {h["item_id"]: h["hold"]["kind"] for h in eng.held(s, uid, T0)} == {a: "bury", b: "suspend"}
    # the next day (UTC): the buried item is back, the suspended one is not
    tomorrow = T0 + timedelta(days=1)
    out = _next(deck, uid, tomorrow)
    assert out["item"]["id"] == a and out["counts"]["new"] == total - 1
    with Session(deck) as s:
        assert [h["item_id"] for h in eng.held(s, uid, tomorrow)] == [b]
    assert eng.resume(uid, b)["resumed"] is True
    assert eng.resume(uid, b)["resumed"] is False  # a retried resume is harmless
    assert _next(deck, uid, tomorrow)["counts"]["new"] == total
    # a held item that is due never comes up either
    _answer(deck, uid, a, 1, tomorrow)  # learning, due in a minute
    soon = tomorrow + timedelta(minutes=5)
    assert _next(deck, uid, soon)["item"]["id"] == a
    eng.hold(uid, a, "suspend", now=soon)
    out = _next(deck, uid, soon)
    assert out["item"]["id"] != a and out["counts"]["learning"] == 0
    with pytest.raises(ItemNotFound):
        eng.hold(uid, 999_999, "bury", now=soon)


def test_holds_are_per_user(deck: Engine) -> None:
    ada, bob = new_user_id(deck, "ada"), new_user_id(deck, "bob")
    eng = review_engine(deck, fuzz=False)
    item = _next(deck, ada, T0)["item"]["id"]
    eng.hold(bob, item, "suspend", now=T0)
    assert _next(deck, ada, T0)["item"]["id"] == item  # bob's suspension is bob's
    assert _next(deck, bob, T0)["item"]["id"] != item
    with Session(deck) as s:
        assert eng.held(s, ada, T0) == []


def test_counts_and_the_daily_limits(deck: Engine) -> None:
    """A scripted day: the counts follow Anki's definitions and both daily limits."""
    uid = new_user_id(deck, "ada")
    prefs = Prefs(new_per_day=3, reviews_per_day=1)
    eng = review_engine(deck, fuzz=False)

    def counts(now: datetime) -> dict[str, int]:
        out = _next(deck, uid, now, prefs)["counts"]
        assert out == eng.counts(uid, prefs, now).public(), "next and counts disagree"
        return dict(out)

    assert counts(T0) == {"new": 3, "learning": 0, "review": 0, "total": 3}
    items = []
    for rating in (3, 4, 4):  # good: learning (10 min); easy, easy: review in days
        item = _next(deck, uid, T0, prefs)["item"]
        items.append(item["id"])
        _answer(deck, uid, item["id"], rating, T0)
    assert counts(T0) == {"new": 0, "learning": 1, "review": 0, "total": 1}  # the new quota is spent
    assert _next(deck, uid, T0, prefs)["item"] is None  # the learning step is 10 minutes away
    # later that day the learning step is due; it is counted the same before and after
    assert _next(deck, uid, T0 + timedelta(minutes=11), prefs)["item"]["id"] == items[0]
    # a month on: the learning step and both easy items are due, but only one review a day is allowed
    week = T0 + timedelta(days=30)
    assert counts(week) == {"new": 3, "learning": 1, "review": 1, "total": 5}
    shown = _next(deck, uid, week, prefs)["item"]
    assert shown["id"] == items[0] and shown["state"]["state"] == "learning"  # the most overdue
    _answer(deck, uid, shown["id"], 3, week)  # graduates: due in days, not today
    assert counts(week) == {"new": 3, "learning": 0, "review": 1, "total": 4}  # learning is not capped
    shown = _next(deck, uid, week, prefs)["item"]
    assert shown["id"] in items[1:] and shown["state"]["state"] == "review"
    _answer(deck, uid, shown["id"], 3, week)
    # the review quota is spent: the other due review waits, new items still come
    assert counts(week) == {"new": 3, "learning": 0, "review": 0, "total": 3}
    assert _next(deck, uid, week, prefs)["item"]["new"] is True
    # the next day the quota is fresh: the waiting review is offered again
    assert counts(week + timedelta(days=1))["review"] == 1


def test_preview_is_what_grading_gives(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    item = _next(deck, uid, T0)["item"]["id"]
    with Session(deck) as s:
        new = eng.intervals(s, uid, item, PREFS, T0)
    assert [i["rating"] for i in new["intervals"]] == [1, 2, 3, 4] and new["new"] is True
    secs = [i["seconds"] for i in new["intervals"]]
    assert secs == sorted(secs) and secs[0] < secs[3]
    assert new["summary"] == " · ".join(i["label"] for i in new["intervals"])
    out = _answer(deck, uid, item, 4, T0)
    assert out["interval_seconds"] == new["intervals"][3]["seconds"]
    due = datetime.fromisoformat(out["state"]["due"])
    with Session(deck) as s:
        review = eng.intervals(s, uid, item, PREFS, due)
    out = _answer(deck, uid, item, 3, due)
    assert out["interval_seconds"] == review["intervals"][2]["seconds"]
    secs = [i["seconds"] for i in review["intervals"]]
    assert secs[0] < secs[1] <= secs[2] < secs[3] and secs[2] > 86_400  # again < hard <= good < easy, days


def test_a_drill_keeps_its_numbers_until_answered_and_a_slip_can_be_regraded(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    eng = review_engine(deck, fuzz=False)
    with Session(deck) as s:
        drill = s.exec(select(ReviewItem).where(ReviewItem.kind == "drill").order_by(col(ReviewItem.position))).first()
        assert drill is not None and drill.id is not None
        # everything before the drill is suspended, so the drill comes first
        for other in s.exec(select(ReviewItem).where(col(ReviewItem.position) < drill.position)):
            assert other.id is not None
            eng.hold(uid, other.id, "suspend", now=T0)
    shown = _next(deck, uid, T0, IN_DECK_ORDER)["item"]
    assert shown["id"] == drill.id
    reload = _next(deck, uid, T0, IN_DECK_ORDER)["item"]  # the page reloaded: the same showing, the same numbers
    assert reload["showing_id"] == shown["showing_id"] and reload["front"] == shown["front"]
    out = engine_answer(deck, uid, item_id=drill.id, typed_answer="0.000001", showing_id=shown["showing_id"],
                        now=T0, fuzz=False, settings=PREFS)
    assert out["correct"] is False and out["rating"] == 1
    regraded = eng.regrade(uid, out["log_id"], 3, prefs=PREFS, now=T0)
    assert regraded["rating"] == 3 and regraded["self_graded"] is True
    st = _state(deck, uid, drill.id)
    assert st is not None and st.due.replace(tzinfo=UTC) == datetime.fromisoformat(regraded["state"]["due"])
    assert _logs(deck, uid)[-1].rating == 3
    assert eng.regrade(uid, out["log_id"], 3, prefs=PREFS, now=T0)["state"] == regraded["state"]  # same again
    with pytest.raises(NothingToUndo):
        eng.regrade(new_user_id(deck, "bob"), out["log_id"], 4, prefs=PREFS, now=T0)  # not bob's
    # the next showing (once due again) has new numbers
    later = datetime.fromisoformat(regraded["state"]["due"]) + timedelta(minutes=1)
    again = _next(deck, uid, later, IN_DECK_ORDER)["item"]
    assert again["id"] == drill.id and again["showing_id"] != shown["showing_id"]
    # a right answer is no slip: it cannot be regraded
    with Session(deck) as s:
        showing = s.get(DrillShowing, again["showing_id"])
        assert showing is not None
        right = f"{drills.answer(showing.params):.6f}"
    ok = engine_answer(deck, uid, item_id=drill.id, typed_answer=right, showing_id=again["showing_id"], now=later,
                       fuzz=False, settings=PREFS)
    assert ok["correct"] is True
    with pytest.raises(BadAnswer):
        eng.regrade(uid, ok["log_id"], 1, prefs=PREFS, now=later)

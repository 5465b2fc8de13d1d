"""Grading many answers in one transaction (app.review.grading) and the group commit behind POST /api/review.

Each answer of a batch gets its own outcome; what is stored matches exactly the answers acknowledged;
a write that would have to wait for a lock is never attempted on the event loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.core.db import write_lock
from app.deck.sync import sync_cards
from app.models import ItemState, ReviewItem, ReviewLog
from app.review import errors
from app.review.committer import GroupCommit
from app.review.grading import Answer, grade_batch
from app.srs.scheduler import InvalidRating
from harness.db import backend_name
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _items(engine: Engine, tmp_path: Path, n_cards: int = 3) -> list[int]:
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card(f"c{i}", follow_ups=2) for i in range(n_cards)]))
    with Session(engine) as s:
        return [i for i in s.exec(select(ReviewItem.id).where(ReviewItem.kind != "drill")
                                  .order_by(col(ReviewItem.position))) if i is not None]


def _logs(engine: Engine, uid: int) -> dict[str, ReviewLog]:
    with Session(engine) as s:
        return {r.idempotency_key: r for r in s.exec(select(ReviewLog).where(ReviewLog.user_id == uid))}


def test_one_batch_many_outcomes(engine: Engine, tmp_path: Path) -> None:
    items = _items(engine, tmp_path)
    ada, bob = new_user_id(engine, "ada"), new_user_id(engine, "bob")
    a, b, c = items[:3]
    answers = [
        Answer(user_id=ada, item_id=a, now=T0, rating=3, key="k1", fuzz=False),   # graded
        Answer(user_id=ada, item_id=a, now=T0, rating=3, key="k1", fuzz=False),   # retry in the same batch
        Answer(user_id=ada, item_id=a, now=T0, rating=1, key="k2", fuzz=False),   # same item again: not due
        Answer(user_id=ada, item_id=b, now=T0, rating=3, key="k1", fuzz=False),   # key reused for another item
        Answer(user_id=ada, item_id=999_999, now=T0, rating=3, key="k3", fuzz=False),  # no such item
        Answer(user_id=ada, item_id=c, now=T0, rating=7, key="k4", fuzz=False),   # bad rating
        Answer(user_id=bob, item_id=a, now=T0, rating=4, key="k1", fuzz=False),   # another user, same key and item
    ]
    out = grade_batch(engine, answers)
    assert out is not None and len(out) == len(answers)
    first, retry, again, reused, missing, bad, other = out
    assert isinstance(first, dict) and first["replayed"] is False and first["rating"] == 3
    assert isinstance(retry, dict) and retry["replayed"] is True and retry["log_id"] == first["log_id"]
    assert isinstance(again, errors.NotDue)
    assert isinstance(reused, errors.KeyReused)
    assert isinstance(missing, errors.ItemNotFound)
    assert isinstance(bad, InvalidRating)
    assert isinstance(other, dict) and other["rating"] == 4 and other["log_id"] != first["log_id"]
    logs_ada, logs_bob = _logs(engine, ada), _logs(engine, bob)
    assert set(logs_ada) == {"k1"} and logs_ada["k1"].id == first["log_id"] and logs_ada["k1"].item_id == a
    assert set(logs_bob) == {"k1"} and logs_bob["k1"].id == other["log_id"]
    assert logs_ada["k1"].response["state"] == first["state"]
    # a later batch replays from the database
    later = grade_batch(engine, [Answer(user_id=ada, item_id=a, now=T0, rating=1, key="k1", fuzz=False)])
    assert later is not None and isinstance(later[0], dict)
    assert later[0]["replayed"] and later[0]["log_id"] == first["log_id"] and later[0]["rating"] == 3


def test_an_item_answered_twice_in_one_batch_when_due_both_times(engine: Engine, tmp_path: Path) -> None:
    """The second answer sees the first one's state (here: both at a time when the item is due)."""
    items = _items(engine, tmp_path, n_cards=1)
    uid = new_user_id(engine, "ada")
    later = T0 + timedelta(days=400)
    out = grade_batch(engine, [Answer(user_id=uid, item_id=items[0], now=T0, rating=1, key="a", fuzz=False),
                               Answer(user_id=uid, item_id=items[0], now=later, rating=3, key="b", fuzz=False)])
    assert out is not None and all(isinstance(o, dict) for o in out)
    with Session(engine) as s:
        state = s.exec(select(ItemState).where(ItemState.user_id == uid)).one()
        logs = s.exec(select(ReviewLog).where(ReviewLog.user_id == uid).order_by(col(ReviewLog.id))).all()
    assert state.reps == 2 and [lg.was_new for lg in logs] == [True, False]
    assert logs[1].state_before == logs[0].state_after


def test_try_write_now_never_waits(engine: Engine, tmp_path: Path) -> None:
    items = _items(engine, tmp_path, n_cards=1)
    uid = new_user_id(engine, "ada")
    answer = [Answer(user_id=uid, item_id=items[0], now=T0, rating=3, key="x", fuzz=False)]
    if backend_name() == "postgresql":  # no fast path: network round trips and row locks always go to a thread
        assert grade_batch(engine, answer, wait=False) is None and _logs(engine, uid) == {}
        return
    lock = write_lock(engine)
    assert lock is not None
    with lock:  # another thread of this process is writing
        assert grade_batch(engine, answer, wait=False) is None
    path = engine.url.database
    assert path
    other = sqlite3.connect(path, isolation_level=None)  # another process holds the database's write lock
    try:
        other.execute("BEGIN IMMEDIATE")
        assert grade_batch(engine, answer, wait=False) is None
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert _logs(engine, uid) == {}  # nothing half-written
    out = grade_batch(engine, answer, wait=False)
    assert out is not None and isinstance(out[0], dict) and set(_logs(engine, uid)) == {"x"}


def test_group_commit_acknowledges_only_what_it_stored(engine: Engine, tmp_path: Path) -> None:
    """64 answers submitted at once from one event loop, a third of them retries: every outcome is right,
    the log holds each key once, and a held write lock only delays the batch (worker-thread path)."""
    items = _items(engine, tmp_path, n_cards=8)
    uid = new_user_id(engine, "ada")
    assert len(items) >= 24

    async def run() -> list[object]:
        committer = GroupCommit(engine, asyncio.get_running_loop())
        answers = [Answer(user_id=uid, item_id=items[i % 24], now=T0, rating=3, key=f"k{i % 24}", fuzz=False)
                   for i in range(64)]
        lock = write_lock(engine)
        release = threading.Timer(0.3, lock.release) if lock is not None else None
        if lock is not None and release is not None:
            lock.acquire()
            release.start()
        return list(await asyncio.gather(*(committer.submit(a) for a in answers)))

    results: list[list[object]] = []  # a thread of its own: the suite's browser tests may hold a loop here
    worker = threading.Thread(target=lambda: results.append(asyncio.run(run())))
    worker.start()
    worker.join()
    outcomes = results[0]
    assert all(isinstance(o, dict) for o in outcomes), [o for o in outcomes if not isinstance(o, dict)][:3]
    by_key: dict[str, set[int]] = {}
    for o in outcomes:
        assert isinstance(o, dict)
        by_key.setdefault(f"k{items.index(o['item_id'])}", set()).add(o["log_id"])
    logs = _logs(engine, uid)
    assert set(logs) == set(by_key) and all(ids == {logs[k].id} for k, ids in by_key.items())
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(ReviewLog)).one() == 24
        assert s.exec(select(func.count()).select_from(ItemState)).one() == 24

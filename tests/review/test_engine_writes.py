"""Every public write path bumps the change clock: a second process (its own review engine and in-memory
queues) sees a write made here through any of them, without a restart.

The second process is real (``python`` reading commands on stdin): it answers ``next`` from its own
queues, checked against the clock at every call (``CHECK_SECONDS`` 0 there). A writer that forgot the
bump would leave it serving its old queue, and the assertion on what it says would fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, delete, select

from app.deck.sync import sync_cards
from app.models.review import ItemState, ReviewLog
from app.srs.prefs import Prefs
from tests.utils.review import engine_answer, review_engine
from tests.utils.srs_cards import make_card, new_user_id, write_deck

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
PREFS = Prefs(new_per_day=100)

SECOND = """
import asyncio, json, sys
from datetime import datetime
from app.core.db import make_engine
from app.review import queue
from app.review.engine import ReviewEngine
from app.srs.prefs import Prefs
queue.CHECK_SECONDS = 0.0
engine = ReviewEngine(make_engine(sys.argv[1])).install()
for line in sys.stdin:
    uid, now = line.split()
    out = asyncio.run(engine.next(int(uid), Prefs(new_per_day=100), datetime.fromisoformat(now)))
    item = out["item"]
    print(json.dumps({"due_now": out["due_now"], "new_left": out["new_left"],
                      "slug": item["card"]["slug"] if item else None}), flush=True)
"""


class Second:
    """The other process: ``next`` for a user at a time, from its own queues."""

    def __init__(self, url: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", SECOND, url], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def next(self, uid: int, now: datetime) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{uid} {now.isoformat()}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the second process ended"
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def second(engine: Engine) -> Iterator[Second]:
    proc = Second(engine.url.render_as_string(hide_password=False))
    try:
        yield proc
    finally:
        proc.close()


def _deck(tmp_path: Path, slugs: tuple[str, ...]) -> Path:
    return write_deck(tmp_path / "cards", [make_card(s, follow_ups=1, pitfalls=(0, 0)) for s in slugs])


def test_an_answer_is_seen_by_a_second_process(engine: Engine, tmp_path: Path, second: Second) -> None:
    sync_cards(engine, _deck(tmp_path, ("alpha", "beta")))
    uid = new_user_id(engine, "ada")
    before = second.next(uid, T0)
    assert before["due_now"] == 0 and before["new_left"] == 4
    first = engine_answer(engine, uid, item_id=_first_new(engine, uid), rating=1, now=T0, fuzz=False)
    after = second.next(uid, T0 + timedelta(hours=1))
    # alpha's card in learning; its follow-up (a sibling) waits until tomorrow, in the second process too
    assert (after["due_now"], after["new_left"]) == (1, 2), first


def test_engine_write_is_seen_by_a_second_process(engine: Engine, tmp_path: Path, second: Second) -> None:
    sync_cards(engine, _deck(tmp_path, ("alpha",)))
    uid = new_user_id(engine, "ada")
    engine_answer(engine, uid, item_id=_first_new(engine, uid), rating=1, now=T0, fuzz=False)
    later = T0 + timedelta(hours=1)
    assert second.next(uid, later)["due_now"] == 1

    def forget(s: Session) -> None:  # e.g. a reset of the user's progress
        s.exec(delete(ReviewLog).where(col(ReviewLog.user_id) == uid))
        s.exec(delete(ItemState).where(col(ItemState.user_id) == uid))

    review_engine(engine).write(uid, forget)
    assert (second.next(uid, later)["due_now"], second.next(uid, later)["new_left"]) == (0, 2)


def test_a_sync_is_seen_by_a_second_process(engine: Engine, tmp_path: Path, second: Second) -> None:
    folder = _deck(tmp_path, ("alpha", "beta"))
    sync_cards(engine, folder)
    uid = new_user_id(engine, "ada")
    assert second.next(uid, T0) == {"due_now": 0, "new_left": 4, "slug": "alpha"}
    (folder / "alpha.md").unlink()  # the card is retired by the next sync
    sync_cards(engine, folder)
    assert second.next(uid, T0) == {"due_now": 0, "new_left": 2, "slug": "beta"}


def test_a_user_deletion_is_seen_by_a_second_process(client: Any, second: Second) -> None:
    from app.auth.users import create_user

    engine: Engine = client.app.state.engine
    with Session(engine) as s, s.begin():
        _admin, admin_token = create_user(s, "boss", is_admin=True)
        ada, token = create_user(s, "ada2")
        ada_id = ada.id
    assert ada_id is not None
    item = client.get("/api/review/next", headers={"Authorization": f"Bearer {token}"}).json()["item"]
    r = client.post("/api/review", json={"item_id": item["id"], "rating": 1},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    soon = datetime.now(UTC) + timedelta(hours=1)
    assert second.next(ada_id, soon)["due_now"] == 1
    r = client.delete(f"/api/users/{ada_id}", headers={"Authorization": f"Bearer {admin_token}"})
    assert r.status_code in (200, 204), r.text
    assert second.next(ada_id, soon)["due_now"] == 0


def test_an_obsidian_review_import_is_seen_by_a_second_process(engine: Engine, tmp_path: Path,
                                                              second: Second) -> None:
    from app.export.obsidian_state import NoteState, VaultState
    from app.models.card import Card
    from app.models.review import ReviewItem
    from app.review.obsidian_import import import_reviews

    sync_cards(engine, _deck(tmp_path, ("alpha",)))
    uid = new_user_id(engine, "ada")
    later = T0 + timedelta(days=5)
    assert (second.next(uid, later)["due_now"], second.next(uid, later)["new_left"]) == (0, 2)
    with Session(engine) as s:
        key = s.exec(select(ReviewItem.key).join(Card, col(Card.id) == ReviewItem.card_id)
                     .where(Card.slug == "alpha", ReviewItem.kind == "followup")).one()
    note = NoteState(path="proofdeck/alpha.md", slug="alpha", schedules={key: "!2026-03-04,3,250"}, lines={key: 9})
    report = import_reviews(engine, uid, VaultState(notes={"alpha": note}))
    assert report.applied == [f"alpha/{key}"], report.as_json()
    assert (second.next(uid, later)["due_now"], second.next(uid, later)["new_left"]) == (1, 1)


def _first_new(engine: Engine, uid: int) -> int:
    from tests.utils.review import engine_next

    item = engine_next(engine, uid, T0, PREFS)["item"]
    assert item is not None and item["new"]
    return int(item["id"])

"""The in-memory review queue (app.review.queue) against the database it mirrors.

After every step of a random session (answers, time passing, syncs that retire, revive and edit cards),
``next_item`` served from memory must say exactly what the database says: the same counts, the most
overdue item (or the first new one, or the next due time). Writes by another process (a second engine)
show up once the queue checks the revisions; a fresh queue answers without touching the database.
"""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.core.db import make_engine
from app.deck.sync import sync_cards
from app.models import Card, ItemState, ReviewItem, clock
from app.review import queue as queue_mod
from app.review import queue_index
from app.review import service as srs
from app.review.errors import NotDue
from app.review.queue import queues
from app.srs.due import due_counts
from app.srs.prefs import Prefs
from app.srs.scheduler import as_utc
from tests.utils.review import engine_answer, engine_next
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
# the oracle below finds the first new item in deck order and knows no burying
ORACLE = Prefs(gather_order="deck", bury_siblings=False)


def _deck(folder: Path, n: int = 6, extra_follow_ups: int = 0) -> list[Any]:
    return [make_card(f"card-{i}", follow_ups=2 + (extra_follow_ups if i == 0 else 0), pitfalls=(2, 1))
            for i in range(n)]


def _live_states(s: Session, uid: int, lang: str) -> list[ItemState]:
    q = select(ItemState).where(ItemState.user_id == uid, col(ItemState.live).is_(True))
    if lang in ("zh", "en"):
        q = q.where(col(ItemState.lang).in_(("", lang)))
    return list(s.exec(q))


def _first_new(s: Session, uid: int, lang: str) -> int | None:
    seen = select(ItemState.item_id).where(ItemState.user_id == uid)
    q = (select(ReviewItem.id).join(Card, col(Card.id) == ReviewItem.card_id)
         .where(col(ReviewItem.retired).is_(False), col(Card.retired).is_(False), col(ReviewItem.id).not_in(seen))
         .order_by(col(ReviewItem.position), col(ReviewItem.id)))
    if lang in ("zh", "en"):
        q = q.where(col(ReviewItem.lang).in_(("", lang)))
    return s.exec(q).first()


def _assert_matches_database(engine: Engine, uid: int, now: datetime, prefs: Prefs) -> dict[str, Any]:
    out = engine_next(engine, uid, now, prefs)
    with Session(engine) as s:
        due_n, new_n = due_counts(s, uid, prefs.language, now, prefs.new_per_day)
        states = _live_states(s, uid, prefs.language)
        first_new = _first_new(s, uid, prefs.language)
    assert (out["due_now"], out["new_left"]) == (due_n, new_n), "counts differ from the database"
    dues = sorted(as_utc(st.due) for st in states)
    if due_n:
        assert out["item"] is not None and not out["item"]["new"]
        assert as_utc(datetime.fromisoformat(out["item"]["state"]["due"])) == dues[0]
    elif new_n:
        assert out["item"] is not None and out["item"]["new"] and out["item"]["id"] == first_new
    else:
        assert out["item"] is None
        assert out["next_due"] == (dues[0].isoformat() if dues else None)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("language", ["both", "zh", "en"])
def test_memory_says_what_the_database_says_through_a_random_session(
        engine: Engine, tmp_path: Path, seed: int, language: str) -> None:
    rng = random.Random(seed)
    folder = write_deck(tmp_path / "cards", _deck(tmp_path))
    sync_cards(engine, folder)
    uid = new_user_id(engine, "ada")
    # the queue's mechanics against the database in deck order without burying (the oracle's order);
    # gather orders and burying: tests/review/test_gather_bury.py
    prefs = Prefs(language=language, new_per_day=rng.choice((3, 8, 50)), gather_order="deck", bury_siblings=False)
    now = T0
    for step in range(60):
        out = _assert_matches_database(engine, uid, now, prefs)
        action = rng.random()
        if out["item"] is not None and action < 0.6:  # answer what was offered
            engine_answer(engine, uid, item_id=out["item"]["id"], rating=rng.randint(1, 4), now=now,
                              fuzz=False, settings=prefs, idempotency_key=f"s{step}")
        elif action < 0.75:
            now += timedelta(minutes=rng.choice((1, 11, 90, 60 * 26, 60 * 24 * 5)))
        elif action < 0.85:  # a sync retires a card, or brings every card back, or edits one
            cards = _deck(tmp_path, extra_follow_ups=rng.randint(0, 2))
            if rng.random() < 0.5:
                cards.pop(rng.randrange(len(cards)))
            for f in folder.glob("*.md"):
                f.unlink()
            write_deck(folder, cards)
            sync_cards(engine, folder)
        else:  # an answer for an item not due: refused, and nothing changes
            with Session(engine) as s:
                future = s.exec(select(ItemState).where(ItemState.user_id == uid, col(ItemState.live).is_(True),
                                                        col(ItemState.due) > now)).first()
            if future is not None:
                with pytest.raises(NotDue):
                    engine_answer(engine, uid, item_id=future.item_id, rating=3, now=now, fuzz=False,
                                      settings=prefs)
    _assert_matches_database(engine, uid, now, prefs)


def test_a_fresh_queue_answers_next_without_a_query(engine: Engine, tmp_path: Path) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", _deck(tmp_path)))
    uid = new_user_id(engine, "ada")
    first = engine_next(engine, uid, T0, ORACLE)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    registry = queues(engine)
    q = registry.fresh(uid, "both", T0, ORACLE)
    assert q is not None
    again = srs.next_view(engine, uid, registry.pick(q, T0, 20), "both")
    assert again == first and statements == []


def test_answers_from_another_process_show_once_the_queue_checks(engine: Engine, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", _deck(tmp_path, n=2)))
    uid = new_user_id(engine, "ada")
    other = make_engine(str(engine.url.render_as_string(hide_password=False)))  # its own queues: "another process"
    try:
        offered = engine_next(engine, uid, T0, ORACLE)["item"]
        engine_answer(other, uid, item_id=offered["id"], rating=3, now=T0, fuzz=False)
        # within the check interval this process still offers it (documented)
        assert engine_next(engine, uid, T0, ORACLE)["item"]["id"] == offered["id"]
        monkeypatch.setattr(queue_mod, "CHECK_SECONDS", 0.0)
        out = _assert_matches_database(engine, uid, T0, ORACLE)
        assert out["item"]["id"] != offered["id"]
    finally:
        other.dispose()


def test_a_direct_edit_that_bumps_the_clock_is_seen(engine: Engine, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", _deck(tmp_path, n=2)))
    uid = new_user_id(engine, "ada")
    item = engine_next(engine, uid, T0, ORACLE)["item"]
    engine_answer(engine, uid, item_id=item["id"], rating=4, now=T0, fuzz=False)
    later = T0 + timedelta(hours=1)
    assert _assert_matches_database(engine, uid, later, ORACLE)["due_now"] == 0
    with engine.begin() as conn:  # what bench/review.py does between rounds
        conn.execute(ItemState.__table__.update().values(due=T0 - timedelta(days=1)))  # type: ignore[attr-defined]
        clock.bump(conn, clock.user_scope(uid))
    monkeypatch.setattr(queue_mod, "CHECK_SECONDS", 0.0)
    assert _assert_matches_database(engine, uid, later, ORACLE)["due_now"] == 1


def test_an_answer_committed_while_the_queue_loads_is_replayed(engine: Engine, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    sync_cards(engine, write_deck(tmp_path / "cards", _deck(tmp_path, n=2)))
    uid = new_user_id(engine, "ada")
    with Session(engine) as s:
        new_items = [i.id for i in s.exec(select(ReviewItem).order_by(col(ReviewItem.position))) if i.id]
    real_load = queue_index.load_user  # the loader queue.py calls (patched there, where it is looked up)
    answered: list[int] = []

    def load_racing_an_answer(*args: Any, **kwargs: Any) -> Any:
        if not answered:  # our snapshot is taken: an answer commits now, from another thread
            answered.append(new_items[0])
            t = threading.Thread(target=engine_answer, args=(engine, uid),
                                 kwargs={"item_id": new_items[0], "rating": 4, "now": T0, "fuzz": False})
            t.start()
            t.join()
        return real_load(*args, **kwargs)

    monkeypatch.setattr(queue_mod, "load_user", load_racing_an_answer)
    out = _assert_matches_database(engine, uid, T0, ORACLE)
    assert answered and out["item"]["id"] != new_items[0]  # the answer is in the queue, not offered again
    with Session(engine) as s:
        seen = s.exec(select(func.count()).select_from(ItemState).where(ItemState.user_id == uid)).one()
    assert seen == 1


def test_sync_in_this_process_drops_the_queues_at_once(engine: Engine, tmp_path: Path) -> None:
    folder = write_deck(tmp_path / "cards", _deck(tmp_path, n=2))
    sync_cards(engine, folder)
    uid = new_user_id(engine, "ada")
    first = engine_next(engine, uid, T0, ORACLE)["item"]
    (folder / f"{first['card']['slug']}.md").unlink()
    sync_cards(engine, folder)  # no waiting for the check interval
    out = _assert_matches_database(engine, uid, T0, ORACLE)
    assert out["item"]["card"]["slug"] != first["card"]["slug"]


def test_a_sync_between_loading_and_picking_leaves_the_pick_consistent(engine: Engine, tmp_path: Path) -> None:
    """The route gets a queue, then picks from it; a sync in another thread may drop every queue between."""
    sync_cards(engine, write_deck(tmp_path / "cards", _deck(tmp_path, n=2)))
    uid = new_user_id(engine, "ada")
    registry = queues(engine)
    q = registry.get(uid, "both", T0)
    registry.forget_all()
    pick = registry.pick(q, T0, 20)
    assert pick.item is not None and pick.item.id in q.deck.items

"""The new-item queue spreads and buries as Anki does (``app/review/gather.py``, ``UserQueue.answered``), on a
fixed clock: the three gather orders, siblings (items of one card) buried until the next day and back on it,
review siblings buried too and learning steps kept, and the counts of the queue kept up by each answer equal
to those of a queue built afresh from the database after every step (a scripted day, and a random session of
answers, direct answers of buried siblings, holds and time passing).

The ZeRO drills hang on one card only; reviews of the duplicates an older sync made stay readable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deck.sync import sync_cards
from app.items.items import refresh_stale_items
from app.models import Card, ItemState, ReviewItem
from app.models.review import ItemSource
from app.review import gather
from app.review.queue import queues
from app.srs.prefs import Prefs
from tests.utils.review import engine_answer, engine_next, review_engine
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
N_CARDS = 8  # a card, 2 follow-ups and one pitfall each: 32 items


@pytest.fixture
def deck(engine: Engine, tmp_path: Path) -> Engine:
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card(f"c{i:02d}", follow_ups=2, pitfalls=(1, 1))
                                                       for i in range(N_CARDS)]))
    return engine


def _card_of(engine: Engine) -> dict[int, str]:
    with Session(engine) as s:
        return {i.id: c.slug for i, c in s.exec(select(ReviewItem, Card).join(Card, col(Card.id) == ReviewItem.card_id))
                if i.id is not None}


def _fresh_counts(engine: Engine, uid: int, prefs: Prefs, now: datetime) -> dict[str, int]:
    """The counts of a queue built now from the database (nothing carried over from earlier answers)."""
    queues(engine).forget_all()
    return review_engine(engine).counts(uid, prefs, now).public()


def _day(engine: Engine, uid: int, prefs: Prefs, now: datetime, n: int, rating: int = 3) -> list[dict[str, Any]]:
    """Answer the next item ``n`` times at ``now``; each step's counts must equal a rebuilt queue's."""
    out = []
    for step in range(n):
        got = engine_next(engine, uid, now, prefs)
        assert got["counts"] == _fresh_counts(engine, uid, prefs, now), f"step {step}: kept counts drifted"
        if got["item"] is None:
            break
        out.append(got)
        engine_answer(engine, uid, item_id=got["item"]["id"], rating=rating, now=now, fuzz=False, settings=prefs)
    return out


def test_gather_orders() -> None:
    order = [1, 2, 3, 4, 5, 6]
    card_of = {1: 10, 2: 10, 3: 10, 4: 20, 5: 30, 6: 30}
    assert gather.gathered(order, card_of, "deck", 1, T0) == order
    assert gather.gathered(order, card_of, "interleaved", 1, T0) == [1, 4, 5, 2, 6, 3]
    shuffled = gather.gathered(list(range(100)), {i: i for i in range(100)}, "random", 7, T0)
    assert sorted(shuffled) == list(range(100)) and shuffled != list(range(100))
    # stable for one user and day (any process: a hash, not hash()), another order for another user or day
    assert gather.gathered(list(range(100)), {}, "random", 7, T0 + timedelta(hours=3)) == shuffled
    assert gather.gathered(list(range(100)), {}, "random", 8, T0) != shuffled
    assert gather.gathered(list(range(100)), {}, "random", 7, T0 + timedelta(days=1)) != shuffled
    with pytest.raises(ValueError, match="unknown gather order 'cards'"):
        gather.gathered(order, card_of, "cards", 1, T0)


@pytest.mark.parametrize("how", ["interleaved", "deck", "random"])
def test_a_first_day_takes_one_item_per_card_and_the_siblings_come_back_tomorrow(deck: Engine, how: str) -> None:
    uid = new_user_id(deck, "ada")
    prefs = Prefs(new_per_day=40, gather_order=how)
    card_of = _card_of(deck)
    first = _day(deck, uid, prefs, T0, 40)
    slugs = [card_of[g["item"]["id"]] for g in first]
    assert len(first) == N_CARDS and len(set(slugs)) == N_CARDS  # one per card, then nothing: all buried
    if how == "deck":
        assert slugs == sorted(slugs) and {g["item"]["kind"] for g in first} == {"card"}
    if how == "interleaved":
        assert {g["item"]["kind"] for g in first} == {"card"}  # the first item of every card
    done = engine_next(deck, uid, T0, prefs)
    assert done["item"] is None and done["counts"]["new"] == 0  # quota left (28), but no card is free
    # the answered items' learning steps come back today; their siblings do not
    later = T0 + timedelta(minutes=30)
    again = _day(deck, uid, prefs, later, 40)
    assert {g["item"]["id"] for g in again} == {g["item"]["id"] for g in first}
    # the next day the siblings are back, again one per card
    tomorrow = T0 + timedelta(days=1)
    nxt = _day(deck, uid, prefs, tomorrow, 40)
    new = [g for g in nxt if g["item"]["new"]]
    assert new and len({card_of[g["item"]["id"]] for g in new}) == len(new)


def test_without_burying_siblings_come_the_same_day(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    prefs = Prefs(new_per_day=30, gather_order="deck", bury_siblings=False)
    first = _day(deck, uid, prefs, T0, 8)
    card_of = _card_of(deck)
    assert [card_of[g["item"]["id"]] for g in first] == ["c00"] * 4 + ["c01"] * 4  # card by card, all its items
    inter = Prefs(new_per_day=30, bury_siblings=False)
    bob = new_user_id(deck, "bob")
    kinds = [g["item"]["kind"] for g in _day(deck, bob, inter, T0, N_CARDS + 2)]
    assert kinds[:N_CARDS] == ["card"] * N_CARDS and kinds[N_CARDS:] == ["followup", "followup"]


def test_review_siblings_are_buried_and_a_sibling_answered_anyway_is_counted_once(deck: Engine) -> None:
    uid = new_user_id(deck, "ada")
    with Session(deck) as s:
        items = [i.id for i in s.exec(select(ReviewItem).join(Card, col(Card.id) == ReviewItem.card_id)
                                      .where(Card.slug == "c00").order_by(col(ReviewItem.position)))]
    # day 0, burying off: every item of c00 learnt straight to Review (Easy)
    for item_id in items:
        engine_answer(deck, uid, item_id=item_id or 0, rating=4, now=T0, fuzz=False,
                      settings=Prefs(bury_siblings=False))
    with Session(deck) as s:
        dues = [st.due.replace(tzinfo=UTC) for st in s.exec(select(ItemState).where(ItemState.user_id == uid))]
    later = max(dues) + timedelta(hours=1)
    prefs = Prefs(new_per_day=0)  # reviews only
    before = engine_next(deck, uid, later, prefs)
    assert before["counts"]["review"] == 4
    # answering one review of c00 buries the other three for the day (they leave the count)
    engine_answer(deck, uid, item_id=before["item"]["id"], rating=3, now=later, fuzz=False, settings=prefs)
    after = engine_next(deck, uid, later, prefs)
    assert after["item"] is None and after["counts"]["review"] == 0
    assert after["counts"] == _fresh_counts(deck, uid, prefs, later)
    # a buried sibling answered anyway (through the API) is no longer buried, and counted once
    sibling = next(i for i in items if i != before["item"]["id"])
    engine_answer(deck, uid, item_id=sibling or 0, rating=3, now=later, fuzz=False, settings=prefs)
    assert engine_next(deck, uid, later, prefs)["counts"] == _fresh_counts(deck, uid, prefs, later)


def test_zero_drills_hang_on_one_card_and_old_duplicates_keep_their_history(engine: Engine, tmp_path: Path) -> None:
    two_claims = make_card("zero-a", drills=True).model_dump()
    two_claims["claims"].append({"id": "comm-ledger", "text": {"en": "ZeRO-3 sends 1.5x"},
                                 "asserts": "comm_volume(zero3) / comm_volume(ddp) == 3/2"})
    from app.cards.schema import CardDoc

    folder = write_deck(tmp_path / "cards", [make_card("a-first", drills=True), CardDoc.model_validate(two_claims),
                                             make_card("plain")])
    sync_cards(engine, folder)
    with Session(engine) as s:
        live = s.exec(select(ReviewItem, Card).join(Card, col(Card.id) == ReviewItem.card_id)
                      .where(ReviewItem.kind == "drill", col(ReviewItem.retired).is_(False))).all()
        assert {c.slug for _i, c in live} == {"zero-a"} and len(live) == 8  # the card with most ZeRO claims
        kept = {i.key: i.id for i, _c in live}
        # an older sync hung the same drills on a-first too; a learner reviewed one of those
        other = s.exec(select(Card).where(Card.slug == "a-first")).one()
        dup = ReviewItem(card_id=other.id or 0, kind="drill", key="memory-zero3", position=(other.id or 0) * 1000 + 9)
        s.add(dup)
        s.commit()
        dup_id = dup.id or 0
    uid = new_user_id(engine, "ada")
    shown = engine_next(engine, uid, T0, Prefs(gather_order="deck", bury_siblings=False))
    assert shown["item"] is not None
    with Session(engine) as s:
        s.add(ItemState(user_id=uid, item_id=dup_id, due=T0, lang="", state=2, step=None, stability=3.0,
                        difficulty=5.0, last_review=T0 - timedelta(days=3)))
        for src in s.exec(select(ItemSource)):
            src.content_hash = ""  # derive the items again, as a start-up after the upgrade does
            s.add(src)
        s.commit()
    with Session(engine) as s:
        refresh_stale_items(s)
        s.commit()
    with Session(engine) as s:
        assert s.get(ReviewItem, dup_id).retired  # type: ignore[union-attr]
        assert not s.exec(select(ItemState).where(ItemState.item_id == dup_id)).one().live
        again = {i.key: i.id for i in s.exec(select(ReviewItem).where(ReviewItem.kind == "drill",
                                                                       col(ReviewItem.retired).is_(False)))}
    assert again == kept  # the kept drills keep their ids
    # the orphaned review neither breaks the queue nor hides its history
    eng = review_engine(engine)
    out = engine_next(engine, uid, T0 + timedelta(days=1))
    assert out["counts"] == _fresh_counts(engine, uid, Prefs(), T0 + timedelta(days=1))
    with Session(engine) as s:
        assert eng.item_log(s, uid, dup_id)["count"] == 0
    # a sync that drops the owner moves the drills to the other ZeRO card
    (folder / "zero-a.md").unlink()
    sync_cards(engine, folder)
    with Session(engine) as s:
        owners = {c.slug for _i, c in s.exec(select(ReviewItem, Card).join(Card, col(Card.id) == ReviewItem.card_id)
                                             .where(ReviewItem.kind == "drill", col(ReviewItem.retired).is_(False)))}
    assert owners == {"a-first"}


@pytest.mark.parametrize(("seed", "how"), [(1, "interleaved"), (2, "random")])
def test_a_kept_queue_says_what_a_rebuilt_one_says_through_a_random_session(deck: Engine, seed: int,
                                                                            how: str) -> None:
    """Answers (of what is offered, or of any item straight through the API), holds and time passing: after
    each step the queue kept up by the answers offers the same item with the same counts as one built now."""
    import random

    rng = random.Random(seed)
    uid = new_user_id(deck, "ada")
    prefs = Prefs(new_per_day=25, gather_order=how)
    items = list(_card_of(deck))
    eng = review_engine(deck, fuzz=False)
    now = T0
    for step in range(45):
        kept = engine_next(deck, uid, now, prefs)
        queues(deck).forget_all()
        rebuilt = engine_next(deck, uid, now, prefs)
        assert (kept["item"] and kept["item"]["id"], kept["counts"]) == \
            (rebuilt["item"] and rebuilt["item"]["id"], rebuilt["counts"]), f"step {step}"
        action = rng.random()
        if kept["item"] is not None and action < 0.55:
            engine_answer(deck, uid, item_id=kept["item"]["id"], rating=rng.randint(1, 4), now=now, fuzz=False,
                          settings=prefs, idempotency_key=f"a{step}")
        elif action < 0.7:  # any item, buried sibling or not, if it is due or new
            try:
                engine_answer(deck, uid, item_id=rng.choice(items), rating=3, now=now, fuzz=False, settings=prefs,
                              idempotency_key=f"b{step}")
            except Exception as exc:  # not due yet: refused, nothing changes
                assert type(exc).__name__ == "NotDue", exc
        elif action < 0.8:
            eng.hold(uid, rng.choice(items), rng.choice(("bury", "suspend")), now=now)
        else:
            now += timedelta(minutes=rng.choice((2, 15, 60 * 5, 60 * 24)))

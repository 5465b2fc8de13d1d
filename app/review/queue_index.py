"""The in-memory index a review queue is built from: the deck's live items and one user's states, as loaded.

    python -c "from app.review.queue_index import load_deck"   # used by app.review.queue.Queues

:class:`DeckIndex`: the live items in new-item order, with their card's slug, titles, text and latest verdicts.
:class:`UserQueue`: one (user, language)'s live scheduler states sorted by due time, today's new and review
counts and held items. Both are loaded from one snapshot of the database (``snapshot``); ``app.review.queue``
keeps them exact afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from sortedcontainers import SortedList
from sqlalchemy import bindparam, func, or_
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection, Engine
from sqlmodel.sql.sqltypes import UTCDateTime

from app.core.db import new_session
from app.core.vocab import LANGUAGES as LANGS
from app.core.vocab import lang_matches
from app.models.tables import CARDS, HOLDS, ITEMS, LOGS, STATES
from app.review import gather
from app.srs.scheduler import day_start, to_db
from app.srs.state import STATE_FIELDS, StateRow
from app.verification.store import CardVerdicts, card_verdicts

REVIEW_STATE = 2  # fsrs.State.Review: what the daily review limit caps (learning steps are never capped)


@dataclass(frozen=True, slots=True)
class LiveItem:
    """A live review item with what the quiz shows of its card."""

    id: int
    kind: str
    key: str
    lang: str
    card_id: int
    slug: str
    title_zh: str
    title_en: str
    source_text: str
    verdicts: CardVerdicts = CardVerdicts()  # the card's latest verdicts (marks, misconception drills)


DUE = STATE_FIELDS.index("due")  # positions in StateRow.as_tuple()
STATE = STATE_FIELDS.index("state")
Change = tuple[int, tuple[Any, ...], datetime]  # (item id, StateRow.as_tuple(), answered at)


@dataclass(slots=True)
class DeckIndex:
    """The live items of the deck at one deck revision."""

    rev: int
    items: dict[int, LiveItem]
    order: dict[str, list[int]]  # per language: live item ids in new-item order (position)
    by_card: dict[int, list[int]] = field(default_factory=dict)  # card id -> its live items, by position
    _gathered: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (lang, order): not per user

    def new_order(self, lang: str, how: str, user_id: int, day: datetime) -> list[int]:
        """The new-item order of ``lang`` gathered as ``how`` says (``app.review.gather``); the orders that
        do not depend on the user are computed once per deck."""
        card_of = {item_id: item.card_id for item_id, item in self.items.items()}
        if how == "random":
            return gather.gathered(self.order[lang], card_of, how, user_id, day)
        found = self._gathered.get((lang, how))
        if found is None:
            found = self._gathered[(lang, how)] = gather.gathered(self.order[lang], card_of, how, user_id, day)
        return found


@dataclass(slots=True)
class UserQueue:
    """One user's live states in one language, and their new items answered on ``day``."""

    user_id: int
    lang: str
    rev: int  # the user's clock revision these states reflect
    deck: DeckIndex  # the deck it was built on (a sync meanwhile leaves this queue consistent, then unused)
    day: datetime
    new_today: int
    # item id -> the fields of its StateRow as a plain tuple of scalars and datetimes: the garbage
    # collector stops tracking such tuples, so 15,000 states cost a full collection nothing
    states: dict[int, tuple[Any, ...]]
    cursor: int = 0  # new-item order before it holds only items with a state
    checked: float = field(default_factory=time.monotonic)
    # the daily loop (issue 15): items the user buried (until their next day) or suspended, the reviews of
    # items in Review state answered on ``day`` (the daily review limit), and the states sorted by due time
    # ((due timestamp, item id): O(log n) to move one item, to count what is due) split by kind of state
    held: frozenset[int] = frozenset()
    reviews_today: int = 0
    by_due_review: SortedList = field(default_factory=SortedList)  # state Review
    by_due_learn: SortedList = field(default_factory=SortedList)  # Learning and Relearning
    # issue 33: the new-item order as gathered (app/review/gather.py), and sibling burying: items answered on
    # ``day``, the cards they belong to, the siblings waiting for the next day (taken out of ``by_due*``) and
    # how many of those are new and not held (the new count leaves them out)
    order: list[int] = field(default_factory=list)
    gather: str = "interleaved"
    bury: bool = True
    answered_today: set[int] = field(default_factory=set)
    buried_cards: set[int] = field(default_factory=set)
    sibling_buried: set[int] = field(default_factory=set)
    sibling_new: int = 0

    def answered(self, item_id: int) -> None:
        """``item_id`` was answered on ``day`` (call before :meth:`put` of its new state): it is no longer a
        buried sibling, and (with burying on) its card's other new and review items wait until the next day.
        Siblings in Learning or Relearning keep their steps, as in Anki."""
        self.answered_today.add(item_id)
        if item_id in self.sibling_buried:  # answered anyway (the API, a follow-up chain with burying off)
            self.sibling_buried.discard(item_id)
            if item_id not in self.states and item_id not in self.held:
                self.sibling_new -= 1
        item = self.deck.items.get(item_id)
        if not self.bury or item is None or item.card_id in self.buried_cards:
            return
        self.buried_cards.add(item.card_id)
        for sib in self.deck.by_card.get(item.card_id, ()):
            if sib in self.answered_today or not lang_matches(self.deck.items[sib].lang, self.lang):
                continue
            row = self.states.get(sib)
            if row is None:
                self.sibling_buried.add(sib)
                self.sibling_new += sib not in self.held
            elif row[STATE] == REVIEW_STATE:
                self.sibling_buried.add(sib)
                self.by_due_review.discard((row[DUE].timestamp(), sib))

    def put(self, item_id: int, row: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """Insert or replace an item's state (``StateRow.as_tuple()``); the state it had (None: it was new)."""
        old = self.states.get(item_id)
        if old is not None:
            entry = (old[DUE].timestamp(), item_id)
            (self.by_due_review if old[STATE] == REVIEW_STATE else self.by_due_learn).discard(entry)
        self.states[item_id] = row
        entry = (row[DUE].timestamp(), item_id)
        (self.by_due_review if row[STATE] == REVIEW_STATE else self.by_due_learn).add(entry)
        return old


@dataclass(frozen=True, slots=True)
class Counts:
    """What is left today, as Anki counts it (the quiz header, the stats page and ``GET /api/review/stats``
    all show these, computed by :meth:`Queues.counts` alone): new items within today's new quota, items in
    Learning/Relearning due before the end of the day, items in Review due before the end of the day within
    today's review quota. Buried and suspended items count nowhere."""

    new: int
    learning: int
    review: int

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review

    def public(self) -> dict[str, int]:
        return {"new": self.new, "learning": self.learning, "review": self.review, "total": self.total}


@dataclass(frozen=True, slots=True)
class Pick:
    """What ``next`` found: the counts, and the item to show (with the user's state; None when new)."""

    due_now: int
    new_left: int
    item: LiveItem | None = None
    state: StateRow | None = None
    next_due: datetime | None = None
    counts: Counts | None = None


@lru_cache(maxsize=1)
def _deck_statement() -> Any:
    it, ca = ITEMS.c, CARDS.c
    return (core_select(it.id, it.kind, it.key, it.lang, ca.id.label("card_id"), ca.slug, ca.title_zh,
                        ca.title_en, ca.source_text)
            .select_from(ITEMS.join(CARDS, ca.id == it.card_id))
            .where(it.retired.is_(False), ca.retired.is_(False)).order_by(it.position, it.id))


@lru_cache(maxsize=1)
def _states_statement() -> Any:
    st = STATES.c
    return core_select(st.item_id, st.lang, *(st[c] for c in STATE_FIELDS)).where(
        st.user_id == bindparam("uid"), st.live.is_(True))


@lru_cache(maxsize=1)
def _new_today_statement() -> Any:
    lg = LOGS.c
    day: Any = bindparam("day", type_=UTCDateTime())
    return core_select(func.count()).select_from(LOGS).where(
        lg.user_id == bindparam("uid"), lg.was_new.is_(True), lg.reviewed_at >= day)


@lru_cache(maxsize=1)
def _reviews_today_statement() -> Any:
    lg = LOGS.c
    day: Any = bindparam("day", type_=UTCDateTime())
    return core_select(func.count()).select_from(LOGS).where(
        lg.user_id == bindparam("uid"), lg.prev_state == REVIEW_STATE, lg.reviewed_at >= day)


@lru_cache(maxsize=1)
def _answered_today_statement() -> Any:
    lg = LOGS.c
    day: Any = bindparam("day", type_=UTCDateTime())
    return (core_select(lg.item_id).distinct()
            .where(lg.user_id == bindparam("uid"), lg.reviewed_at >= day))


@lru_cache(maxsize=1)
def _held_statement() -> Any:
    h = HOLDS.c
    now: Any = bindparam("now", type_=UTCDateTime())
    return core_select(h.item_id).where(h.user_id == bindparam("uid"), or_(h.until.is_(None), h.until > now))


def load_deck(conn: Connection, rev: int) -> DeckIndex:
    items: dict[int, LiveItem] = {}
    order: dict[str, list[int]] = {lang: [] for lang in LANGS}
    cards: dict[int, list[int]] = {}
    with new_session(conn.engine, bind=conn) as session:
        verdicts = card_verdicts(session)
    for r in conn.execute(_deck_statement()):
        item = LiveItem(id=r.id, kind=r.kind, key=r.key, lang=r.lang, card_id=r.card_id, slug=r.slug,
                        title_zh=r.title_zh, title_en=r.title_en, source_text=r.source_text,
                        verdicts=verdicts.get(r.slug, CardVerdicts()))
        items[item.id] = item
        cards.setdefault(item.card_id, []).append(item.id)
        for lang in LANGS:
            if lang_matches(item.lang, lang):
                order[lang].append(item.id)
    return DeckIndex(rev=rev, items=items, order=order, by_card=cards)


def load_user(conn: Connection, deck: DeckIndex, user_id: int, lang: str, rev: int, now: datetime,
              gather_order: str = "interleaved", bury: bool = True) -> UserQueue:
    day = day_start(now)
    states: dict[int, tuple[Any, ...]] = {}
    for r in conn.execute(_states_statement(), {"uid": user_id}):
        if r.item_id in deck.items and lang_matches(r.lang, lang):
            states[r.item_id] = StateRow.of(r).as_tuple()
    params = {"uid": user_id, "day": to_db(day)}
    new_today = int(conn.execute(_new_today_statement(), params).scalar_one())
    reviews_today = int(conn.execute(_reviews_today_statement(), params).scalar_one())
    held = frozenset(r.item_id for r in conn.execute(_held_statement(), {"uid": user_id, "now": to_db(now)}))
    entries = [((row[DUE].timestamp(), item_id), row[STATE] == REVIEW_STATE) for item_id, row in states.items()]
    q = UserQueue(user_id=user_id, lang=lang, rev=rev, deck=deck, day=day, new_today=new_today,
                  states=states, held=held,
                  reviews_today=reviews_today, by_due_review=SortedList(e for e, r in entries if r),
                  by_due_learn=SortedList(e for e, r in entries if not r),
                  order=deck.new_order(lang, gather_order, user_id, day), gather=gather_order, bury=bury)
    q.answered_today = {r.item_id for r in conn.execute(_answered_today_statement(), params)}
    for item_id in sorted(q.answered_today):  # every item answered today is kept; their siblings wait
        q.answered(item_id)
    return q


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection whose reads all see one snapshot of the database (then rolled back)."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("BEGIN")  # pysqlite would not start a transaction for reads; WAL keeps the snapshot
            yield conn
    else:
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
            yield conn

"""What is due for a user, kept in memory: ``GET /api/review/next`` answers without a query.

Per engine, a :class:`Queues` registry holds one :class:`DeckIndex` (the live items in new-item order,
with their card's slug, titles and text) and one :class:`UserQueue` per (user, language): that user's
live scheduler states sorted by due time and the count of new items answered today.

Kept exact:
- by this process's own answers: ``app.review.grading`` applies every committed batch (:meth:`Queues.applied`);
- by this process's syncs and user deletions: they drop the affected queues after their commit.

Writes by other processes (a second worker, the CLI) bump the revisions of ``app.models.clock`` in their
transaction. A queue not checked for :data:`CHECK_SECONDS` re-reads the two revisions it depends on (one
indexed query) and is rebuilt if either moved, so another process's answers show up within that time.
The answer path never trusts a queue: it re-reads the state under the write lock (409 when not due).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from sortedcontainers import SortedList
from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel.sql.sqltypes import UTCDateTime

from app.core.db import new_session
from app.core.vocab import LANGUAGES as LANGS
from app.core.vocab import lang_matches
from app.models import clock
from app.models.tables import CARDS, ITEMS, LOGS, STATES
from app.srs.scheduler import as_utc, day_start, to_db
from app.srs.state import STATE_FIELDS, StateRow
from app.verification.store import CardVerdicts, card_verdicts

CHECK_SECONDS = 1.0  # how stale another process's writes may look here
MAX_QUEUES = 256  # (user, language) queues kept per engine; the least recently used go first
RECENT = 256  # committed batches remembered per user for replay onto a queue that is being loaded


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


_DUE = STATE_FIELDS.index("due")
Change = tuple[int, tuple[Any, ...], datetime]  # (item id, StateRow.as_tuple(), answered at)


@dataclass(slots=True)
class DeckIndex:
    """The live items of the deck at one deck revision."""

    rev: int
    items: dict[int, LiveItem]
    order: dict[str, list[int]]  # per language: live item ids in new-item order (position)


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
    by_due: SortedList  # (due timestamp, item id): O(log n) to move one item, to count what is due
    cursor: int = 0  # new-item order before it holds only items with a state
    checked: float = field(default_factory=time.monotonic)

    def put(self, item_id: int, row: tuple[Any, ...]) -> bool:
        """Insert or replace an item's state (``StateRow.as_tuple()``); True when it had none (it was new)."""
        old = self.states.get(item_id)
        if old is not None:
            self.by_due.discard((old[_DUE].timestamp(), item_id))
        self.states[item_id] = row
        self.by_due.add((row[_DUE].timestamp(), item_id))
        return old is None


@dataclass(frozen=True, slots=True)
class Pick:
    """What ``next`` found: the counts, and the item to show (with the user's state; None when new)."""

    due_now: int
    new_left: int
    item: LiveItem | None = None
    state: StateRow | None = None
    next_due: datetime | None = None


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


def load_deck(conn: Connection, rev: int) -> DeckIndex:
    items: dict[int, LiveItem] = {}
    order: dict[str, list[int]] = {lang: [] for lang in LANGS}
    with new_session(conn.engine, bind=conn) as session:
        verdicts = card_verdicts(session)
    for r in conn.execute(_deck_statement()):
        item = LiveItem(id=r.id, kind=r.kind, key=r.key, lang=r.lang, card_id=r.card_id, slug=r.slug,
                        title_zh=r.title_zh, title_en=r.title_en, source_text=r.source_text,
                        verdicts=verdicts.get(r.slug, CardVerdicts()))
        items[item.id] = item
        for lang in LANGS:
            if lang_matches(item.lang, lang):
                order[lang].append(item.id)
    return DeckIndex(rev=rev, items=items, order=order)


def load_user(conn: Connection, deck: DeckIndex, user_id: int, lang: str, rev: int, now: datetime) -> UserQueue:
    day = day_start(now)
    states: dict[int, tuple[Any, ...]] = {}
    for r in conn.execute(_states_statement(), {"uid": user_id}):
        if r.item_id in deck.items and lang_matches(r.lang, lang):
            states[r.item_id] = StateRow.of(r).as_tuple()
    params = {"uid": user_id, "day": to_db(day)}
    new_today = int(conn.execute(_new_today_statement(), params).scalar_one())
    by_due = SortedList((row[_DUE].timestamp(), item_id) for item_id, row in states.items())
    return UserQueue(user_id=user_id, lang=lang, rev=rev, deck=deck, day=day, new_today=new_today,
                     states=states, by_due=by_due)


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection whose reads all see one snapshot of the database (then rolled back)."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("BEGIN")  # pysqlite would not start a transaction for reads; WAL keeps the snapshot
            yield conn
    else:
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
            yield conn


class Queues:
    """The queues of one engine (see the module docstring). Every method is thread-safe."""

    def __init__(self, engine: Engine) -> None:
        self._engine_ref = weakref.ref(engine)
        self._lock = threading.Lock()
        self._deck: DeckIndex | None = None
        self._users: OrderedDict[tuple[int, str], UserQueue] = OrderedDict()
        self._loading = threading.Lock()
        # per user: the last answers this process committed, (revision, changes), to replay onto a queue
        # whose rows were read before they committed
        # (the states as plain tuples, which the garbage collector stops tracking)
        self._recent: dict[int, deque[tuple[int, list[Change]]]] = {}
        self.deck_loaded: Callable[[], None] | None = None  # called after each deck is loaded into memory

    @property
    def engine(self) -> Engine:
        engine = self._engine_ref()
        assert engine is not None, "the engine of these queues is gone"
        return engine

    def fresh(self, user_id: int, lang: str, now: datetime) -> UserQueue | None:
        """The queue if it needs no database read now (no I/O: safe on the event loop), else None."""
        with self._lock:
            q = self._users.get((user_id, lang))
            if q is None or time.monotonic() - q.checked > CHECK_SECONDS or q.day != day_start(now):
                return None
            self._users.move_to_end((user_id, lang))
            return q

    def get(self, user_id: int, lang: str, now: datetime) -> UserQueue:
        """The queue, checked against the revisions (and rebuilt) when due; blocks on the database.

        One load at a time per engine (concurrent callers wait and reuse it). The rows are read in one
        snapshot together with the revision they reflect; answers this process commits meanwhile are
        replayed from :attr:`_recent` (a gap in the revisions, another process's write, forces a check).
        """
        q = self.fresh(user_id, lang, now)
        if q is not None:
            return q
        with self._loading:
            q = self.fresh(user_id, lang, now)
            if q is not None:
                return q
            scope = clock.user_scope(user_id)
            with _snapshot(self.engine) as conn:
                revs = clock.read(conn, clock.DECK, scope)
                with self._lock:
                    deck = self._deck if self._deck is not None and self._deck.rev == revs[clock.DECK] else None
                    q = self._users.get((user_id, lang))
                if deck is None:
                    deck = load_deck(conn, revs[clock.DECK])
                    if self.deck_loaded is not None:  # the GC policy (ReviewEngine.install sets it)
                        self.deck_loaded()
                if q is None or q.rev != revs[scope] or q.deck.rev != deck.rev or q.day != day_start(now):
                    q = load_user(conn, deck, user_id, lang, revs[scope], now)
            with self._lock:
                if self._deck is None or self._deck.rev != deck.rev:
                    self._deck = deck
                    self._users.clear()
                q.checked = time.monotonic()
                for rev, changes in self._recent.get(user_id, ()):
                    if rev <= q.rev:
                        continue
                    if rev != q.rev + 1:
                        q.checked = 0.0  # another process wrote in between: check again next time
                        break
                    self._apply(q, rev, changes)
                self._users[(user_id, lang)] = q
                self._users.move_to_end((user_id, lang))
                while len(self._users) > MAX_QUEUES:
                    self._users.popitem(last=False)
                return q

    def pick(self, q: UserQueue, now: datetime, new_per_day: int) -> Pick:
        """The most overdue item, else the first new one within today's quota, else when one is next due."""
        with self._lock:
            deck = q.deck
            now_ts = as_utc(now).timestamp()
            due_now = q.by_due.bisect_right((now_ts, float("inf")))
            order = deck.order[q.lang]
            quota = max(0, new_per_day - q.new_today)
            new_left = min(quota, max(0, len(order) - len(q.states)))
            if due_now:
                item_id = q.by_due[0][1]
                return Pick(due_now, new_left, deck.items[item_id], StateRow(*q.states[item_id]))
            if new_left:
                while q.cursor < len(order) and order[q.cursor] in q.states:
                    q.cursor += 1
                if q.cursor < len(order):
                    return Pick(due_now, new_left, deck.items[order[q.cursor]], None)
            return Pick(due_now, new_left, next_due=q.states[q.by_due[0][1]][_DUE] if q.by_due else None)

    def applied(self, user_id: int, rev: int, changes: list[tuple[int, StateRow, datetime]]) -> None:
        """A committed transaction moved ``user_id``'s clock to ``rev`` with these (item, new state, answered at)
        changes: apply them to the user's queues that were at ``rev - 1``; drop any that were not."""
        with self._lock:
            recent = self._recent.get(user_id)
            if recent is None:
                if len(self._recent) > 4 * MAX_QUEUES:
                    self._recent.clear()
                recent = self._recent[user_id] = deque(maxlen=RECENT)
            plain = [(item_id, row.as_tuple(), at) for item_id, row, at in changes]
            recent.append((rev, plain))
            for lang in LANGS:
                q = self._users.get((user_id, lang))
                if q is None or q.rev >= rev:
                    continue  # loaded after the commit: already has it
                if q.rev != rev - 1:
                    del self._users[(user_id, lang)]  # missed another writer's change: rebuild on next use
                    continue
                self._apply(q, rev, plain)

    def _apply(self, q: UserQueue, rev: int, changes: list[Change]) -> None:
        deck = q.deck
        for item_id, row, at in changes:
            if item_id not in deck.items or not lang_matches(deck.items[item_id].lang, q.lang):
                continue
            if q.put(item_id, row) and day_start(at) == q.day:
                q.new_today += 1
        q.rev = rev

    def forget_user(self, user_id: int) -> None:
        with self._lock:
            for lang in LANGS:
                self._users.pop((user_id, lang), None)

    def forget_all(self) -> None:
        with self._lock:
            self._deck = None
            self._users.clear()


_registry: weakref.WeakKeyDictionary[Engine, Queues] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def queues(engine: Engine) -> Queues:
    """The registry of ``engine`` (one per engine object, gone with it)."""
    found = _registry.get(engine)
    if found is None:
        with _registry_lock:
            found = _registry.setdefault(engine, Queues(engine))
    return found


# ------------------------------------------------------------------ other writers' marks (app/models/clock.py)


def after_commit(session: OrmSession) -> None:
    """Session listener, installed on the app's sessionmaker of an engine by
    :meth:`app.review.engine.ReviewEngine.install`: a committed transaction marked by
    :func:`app.models.clock.deck_changed` / ``user_changed`` drops this process's queues of that database."""
    forget = session.info.pop(clock.FORGET, None)
    if not forget:
        return
    bind = session.get_bind()
    url = str(bind.engine.url if isinstance(bind, Connection) else bind.url)
    for engine, registry in list(_registry.items()):  # every engine of this database in this process
        if str(engine.url) != url:
            continue
        if None in forget:
            registry.forget_all()
        for user_id in forget - {None}:
            registry.forget_user(user_id)


def after_rollback(session: OrmSession) -> None:
    session.info.pop(clock.FORGET, None)

"""What is due for a user, kept in memory: ``GET /api/review/next`` answers without a query.

Per engine, a :class:`Queues` registry holds one ``DeckIndex`` (the live items in new-item order, with their
card's slug, titles and text) and one ``UserQueue`` per (user, language): that user's live scheduler states
sorted by due time and the count of new items answered today (both in ``app.review.queue_index``).

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
from collections.abc import Callable
from datetime import datetime, timedelta

from sortedcontainers import SortedList
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session as OrmSession

from app.core.vocab import LANGUAGES as LANGS
from app.core.vocab import lang_matches
from app.models import clock
from app.review.queue_index import (
    DUE,
    REVIEW_STATE,
    STATE,
    Change,
    Counts,
    DeckIndex,
    Pick,
    UserQueue,
    load_deck,
    load_user,
    snapshot,
)
from app.srs.prefs import Prefs
from app.srs.scheduler import as_utc, day_start
from app.srs.state import StateRow

CHECK_SECONDS = 1.0  # how stale another process's writes may look here
MAX_QUEUES = 256  # (user, language) queues kept per engine; the least recently used go first
_END = float("inf")
RECENT = 256  # committed batches remembered per user for replay onto a queue that is being loaded


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

    def fresh(self, user_id: int, lang: str, now: datetime, prefs: Prefs | None = None) -> UserQueue | None:
        """The queue if it needs no database read now (no I/O: safe on the event loop), else None.
        ``prefs``: the gather order and sibling burying it must have been built with (None: the defaults)."""
        gather, bury = _queue_prefs(prefs)
        with self._lock:
            q = self._users.get((user_id, lang))
            if (q is None or time.monotonic() - q.checked > CHECK_SECONDS or q.day != day_start(now)
                    or (q.gather, q.bury) != (gather, bury)):
                return None
            self._users.move_to_end((user_id, lang))
            return q

    def get(self, user_id: int, lang: str, now: datetime, prefs: Prefs | None = None) -> UserQueue:
        """The queue, checked against the revisions (and rebuilt) when due; blocks on the database.

        One load at a time per engine (concurrent callers wait and reuse it). The rows are read in one
        snapshot together with the revision they reflect; answers this process commits meanwhile are
        replayed from :attr:`_recent` (a gap in the revisions, another process's write, forces a check).
        """
        q = self.fresh(user_id, lang, now, prefs)
        if q is not None:
            return q
        gather, bury = _queue_prefs(prefs)
        with self._loading:
            q = self.fresh(user_id, lang, now, prefs)
            if q is not None:
                return q
            scope = clock.user_scope(user_id)
            with snapshot(self.engine) as conn:
                revs = clock.read(conn, clock.DECK, scope)
                with self._lock:
                    deck = self._deck if self._deck is not None and self._deck.rev == revs[clock.DECK] else None
                    q = self._users.get((user_id, lang))
                if deck is None:
                    deck = load_deck(conn, revs[clock.DECK])
                    if self.deck_loaded is not None:  # the GC policy (ReviewEngine.install sets it)
                        self.deck_loaded()
                if (q is None or q.rev != revs[scope] or q.deck.rev != deck.rev or q.day != day_start(now)
                        or (q.gather, q.bury) != (gather, bury)):
                    q = load_user(conn, deck, user_id, lang, revs[scope], now, gather, bury)
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

    def pick(self, q: UserQueue, now: datetime, new_per_day: int, reviews_per_day: int | None = None) -> Pick:
        """The most overdue item (items in Review only within today's review quota), else the first new one
        (in the queue's gather order) within today's new quota, else when one is next due. Held (buried,
        suspended) items and buried siblings are skipped."""
        with self._lock:
            deck = q.deck
            now_ts = as_utc(now).timestamp()
            counts = self._counts(q, now, new_per_day, reviews_per_day)
            review_quota = self._review_quota(q, reviews_per_day)
            learn = _first(q.by_due_learn, q.held)
            review = _first(q.by_due_review, q.held) if review_quota else None
            due_now = _due_count(q, False, now_ts) + min(review_quota, _due_count(q, True, now_ts))
            new_left = counts.new
            soonest = min((e for e in (learn, review) if e is not None), default=None)
            if soonest is not None and soonest[0] <= now_ts:
                item_id = soonest[1]
                return Pick(due_now, new_left, deck.items[item_id], StateRow(*q.states[item_id]), counts=counts)
            if new_left:
                order, done, siblings = q.order, q.states, q.sibling_buried
                # both sets only grow until the queue is rebuilt (a new day, a hold, another writer)
                while q.cursor < len(order) and (order[q.cursor] in done or order[q.cursor] in siblings):
                    q.cursor += 1
                j = q.cursor
                while j < len(order) and (order[j] in done or order[j] in q.held or order[j] in siblings):
                    j += 1
                if j < len(order):
                    return Pick(due_now, new_left, deck.items[order[j]], None, counts=counts)
            next_due = q.states[soonest[1]][DUE] if soonest is not None else None
            return Pick(due_now, new_left, next_due=next_due, counts=counts)

    def counts(self, q: UserQueue, now: datetime, new_per_day: int, reviews_per_day: int | None) -> Counts:
        """New / learning / review left today (see :class:`Counts`): the one place they are computed."""
        with self._lock:
            return self._counts(q, now, new_per_day, reviews_per_day)

    @staticmethod
    def _review_quota(q: UserQueue, reviews_per_day: int | None) -> int:
        return len(q.states) if reviews_per_day is None else max(0, reviews_per_day - q.reviews_today)

    def _counts(self, q: UserQueue, now: datetime, new_per_day: int, reviews_per_day: int | None) -> Counts:
        end_ts = (q.day + timedelta(days=1)).timestamp() - 1e-6
        order = q.deck.order[q.lang]
        held_new = 0
        for item_id in q.held:  # held items never answered, of this queue's language
            item = q.deck.items.get(item_id)
            if item is not None and item_id not in q.states and lang_matches(item.lang, q.lang):
                held_new += 1
        quota = max(0, new_per_day - q.new_today)
        new = min(quota, max(0, len(order) - len(q.states) - held_new - q.sibling_new))
        learning = _due_count(q, False, end_ts)
        review = min(self._review_quota(q, reviews_per_day), _due_count(q, True, end_ts))
        return Counts(new=new, learning=learning, review=review)

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
            if day_start(at) == q.day:
                q.answered(item_id)
            old = q.put(item_id, row)
            if day_start(at) == q.day:
                if old is None:
                    q.new_today += 1
                elif old[STATE] == REVIEW_STATE:
                    q.reviews_today += 1
        q.rev = rev

    def forget_user(self, user_id: int) -> None:
        with self._lock:
            for lang in LANGS:
                self._users.pop((user_id, lang), None)

    def forget_all(self) -> None:
        with self._lock:
            self._deck = None
            self._users.clear()


def _queue_prefs(prefs: Prefs | None) -> tuple[str, bool]:
    p = prefs or Prefs()
    return p.gather_order, p.bury_siblings


def _first(by_due: SortedList, held: frozenset[int]) -> tuple[float, int] | None:
    """The earliest (due timestamp, item id) of ``by_due`` that is not held."""
    for entry in by_due:
        if entry[1] not in held:
            return entry  # type: ignore[no-any-return]
    return None


def _due_count(q: UserQueue, review: bool, until_ts: float) -> int:
    """Items in Review (``review``) or in Learning/Relearning due at or before ``until_ts``, held ones left out
    (buried siblings are not in ``by_due*`` at all)."""
    by_due = q.by_due_review if review else q.by_due_learn
    n: int = by_due.bisect_right((until_ts, _END))
    for item_id in q.held:  # a few items at most: looked up, not scanned for
        row = q.states.get(item_id)
        if (row is not None and (row[STATE] == REVIEW_STATE) == review and row[DUE].timestamp() <= until_ts
                and item_id not in q.sibling_buried):
            n -= 1
    return n


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

"""The review engine: the one door through which the quiz and the API read what is due and answer it.

:class:`ReviewEngine` is built once per database engine by ``create_app`` (``app.state.review``) and is
what the routes, the pages, the CLI and the tests call. It owns everything on the hot path:

- the in-memory queues (``app.review.queue``) and their per-engine registry;
- group commit (``app.review.committer``) and grading (``app.review.grading``);
- the change clock's use: every write it makes bumps the user's revision inside its own transaction
  (:meth:`ReviewEngine.answer`, :meth:`ReviewEngine.write`, :meth:`ReviewEngine.update_settings`), so no
  writer on this path can forget it; writers elsewhere (sync, user deletion, the Obsidian import) mark their
  transaction with ``app.models.clock.deck_changed`` / ``user_changed``;
- what it needs installed, by :meth:`ReviewEngine.install` (called by ``create_app``; nothing is
  registered at import): the session listeners that drop this process's queues when another writer's
  transaction commits, on the app's sessionmaker of its database engine (``app.core.db.session_factory``: a
  session made otherwise, or on another engine, never fires them), and the GC policy of its queues (a
  deck loaded into memory is frozen out of the cyclic collector, ``app.core.memory``).

The daily loop's other steps are methods of this class too and go through :meth:`write`, so they get the
clock bump and the queue update for free: :meth:`undo` and :meth:`regrade` (``app/review/undo.py``),
:meth:`hold` and :meth:`resume` (bury / suspend, ``app/review/holds.py``). :meth:`counts` is the one place
the new / learning / review counts of today come from (the quiz header through :meth:`next`, the stats
page, ``GET /api/review/stats``); :meth:`intervals` previews what each grade would give.

How ``next`` and an answer are served
-------------------------------------
The two hot routes are built for the daily loop; both go through this class.

- *``GET /api/review/next`` reads no database.* Each server process keeps, per user and language, the
  user's live FSRS states sorted by due time and the count of new items answered today, next to one
  in-memory index of the deck's live items (``app/review/queue.py``). It is built from the database on first
  use and kept exact by this process's own answers and syncs. Writes by *other* processes (a second
  worker, the CLI) bump a revision in the ``changeclock`` table (migration 0004) inside their transaction;
  a queue re-reads its two revisions (one indexed query) when it is more than a second old and rebuilds
  if one moved. So another process's answer shows up here within a second; the answer path never trusts
  the queue (it re-reads the state under the write lock and says 409 if the item is not due). A script
  that edits review state with raw SQL must bump ``user:<id>`` (or ``deck``) the same way
  (``app.models.clock.bump``, as ``bench/review.py`` does), or servers keep their queue until a sync or restart.
- *Answers are group-committed.* ``POST /api/review`` hands its answer to the engine's batcher
  (``app/review/committer.py``), which waits three event-loop turns for answers already on the wire, then
  grades them all in one transaction (``app/review/grading.py``: a few statements for the whole batch, FSRS per
  answer in arrival order, one executemany per table). Each answer gets its own outcome (a bad one does
  not fail the others; a retried key, even inside the same batch, gets the first response) and its
  response is sent only after the commit. On SQLite the batch runs right on the event loop when no
  writer holds the lock (``try_write_now``, busy timeout 0), else in a worker thread; on PostgreSQL always
  in a thread. SQLite writers start with ``BEGIN IMMEDIATE``, so what a batch reads cannot change under it.
- *No stalls on the loop.* While the server runs, SQLite's WAL checkpoints happen in a background thread
  (``app/core/checkpointer.py``), not inside a commit; the objects that live as long as the process
  (imports, the deck index) are frozen out of the garbage collector's full collections
  (``app/core/memory.py``), and the queue keeps states as plain tuples it never has to scan. Both hot
  routes take the request alone (sign-in from the per-process cache as an immutable value, the body
  checked by pydantic, orjson responses): FastAPI's dependency solving cost more than their own work.

The two hot routes call :func:`app.api.deps.review_engine` and ``signed_in`` themselves rather than through
``Depends`` for that reason; every other review route takes ``ReviewEngineDep``.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col
from sqlmodel import select as sm_select
from starlette.concurrency import run_in_threadpool

from app.core.db import new_session, session_factory
from app.core.memory import freeze_long_lived
from app.core.vocab import settings_errors
from app.core.writes import run_write
from app.models.clock import user_changed
from app.models.review import ReviewItem, ReviewLog
from app.models.tables import STATES
from app.models.user import UserSettings
from app.review import holds as holds_mod
from app.review import queue as queue_mod
from app.review import undo as undo_mod
from app.review.committer import GroupCommit
from app.review.errors import BadSettings, ItemNotFound
from app.review.grading import Answer
from app.review.queue import Queues, queues
from app.review.queue_index import Counts
from app.review.service import log_public, next_view
from app.srs import preview
from app.srs.prefs import Prefs, settings_for
from app.srs.scheduler import make_scheduler, now_utc
from app.srs.state import STATE_FIELDS

T = TypeVar("T")

_install_lock = threading.Lock()


class ReviewEngine:
    """Next item and answers for the users of one database (see the module docstring). Thread-safe; its
    async methods run on the event loop of the caller (a new loop, as a test starts one, is fine)."""

    def __init__(self, db: Engine, *, fuzz: bool = True) -> None:
        self.db = db
        self.fuzz = fuzz  # FSRS interval fuzzing; tests of exact intervals turn it off
        self.queues: Queues = queues(db)
        self._commit: GroupCommit | None = None

    # ------------------------------------------------------------------ process-wide set-up

    def install(self) -> ReviewEngine:
        """Install what this engine needs on its database engine (idempotent; ``create_app`` calls it): the
        session listeners, on the app's sessionmaker of ``db`` (``app.core.db.session_factory``), so only the app's
        sessions on this database fire them; and the GC policy of its queues. Returns the engine."""
        maker = session_factory(self.db)
        with _install_lock:
            for name, fn in (("after_commit", queue_mod.after_commit), ("after_rollback", queue_mod.after_rollback)):
                if not event.contains(maker, name, fn):
                    event.listen(maker, name, fn)
            self.queues.deck_loaded = freeze_long_lived  # the deck lives until the next sync
        return self

    # ------------------------------------------------------------------ reading

    async def next(self, user_id: int, prefs: Prefs | None = None, now: datetime | None = None) -> dict[str, Any]:
        """What ``GET /api/review/next`` answers: the most overdue item, else a new one within today's quota,
        else when the next one is due. No I/O on the loop unless a check, a load or a drill needs it."""
        now = now or now_utc()
        if prefs is None:
            prefs = await run_in_threadpool(self.prefs, user_id)
        q = self.queues.fresh(user_id, prefs.language, now, prefs)
        if q is None:
            q = await run_in_threadpool(self.queues.get, user_id, prefs.language, now, prefs)
        pick = self.queues.pick(q, now, prefs.new_per_day, prefs.reviews_per_day)
        if pick.item is not None and pick.item.kind == "drill":
            return await run_in_threadpool(next_view, self.db, user_id, pick, prefs.language)
        return next_view(self.db, user_id, pick, prefs.language)

    async def counts_now(self, user_id: int, prefs: Prefs, now: datetime | None = None) -> Counts:
        """:meth:`counts` for the event loop (``GET /api/review/counts``): no I/O unless the queue needs a check."""
        now = now or now_utc()
        q = self.queues.fresh(user_id, prefs.language, now, prefs)
        if q is None:
            q = await run_in_threadpool(self.queues.get, user_id, prefs.language, now, prefs)
        return self.queues.counts(q, now, prefs.new_per_day, prefs.reviews_per_day)

    def prefs(self, user_id: int) -> Prefs:
        """The user's review settings as stored (defaults when none); blocks on the database."""
        with new_session(self.db) as session:
            return Prefs.of(settings_for(session, user_id))

    # ------------------------------------------------------------------ writing

    def answer_of(self, user_id: int, item_id: int, *, rating: object = None, typed: str | None = None,
                  showing_id: int | None = None, duration_ms: int | None = None, key: str | None = None,
                  prefs: Prefs | None = None, now: datetime | None = None) -> Answer:
        """An answer checked for what no database state can make valid (raises :class:`ReviewError`)."""
        keyed: dict[str, Any] = {"key": key} if key else {}
        answer = Answer(user_id=user_id, item_id=item_id, now=now or now_utc(), rating=rating, typed=typed,
                        showing_id=showing_id, duration_ms=duration_ms, fuzz=self.fuzz, prefs=prefs, **keyed)
        answer.check()
        return answer

    async def answer(self, user_id: int, item_id: int, **kwargs: Any) -> dict[str, Any]:
        """Grade one answer (``POST /api/review``), with whatever else arrives meanwhile, in one transaction.
        Returns the response once committed; raises ``ReviewError`` / ``InvalidRating`` for a refused one.
        Keyword arguments as :meth:`answer_of`."""
        return await self.submit(self.answer_of(user_id, item_id, **kwargs))

    async def submit(self, answer: Answer) -> dict[str, Any]:
        """Grade an already checked :class:`Answer` (see :meth:`answer`)."""
        loop = asyncio.get_running_loop()
        commit = self._commit
        if commit is None or commit.loop is not loop:
            commit = self._commit = GroupCommit(self.db, loop)
        outcome = await commit.submit(answer)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def write(self, user_id: int, work: Callable[[Session], T], *, release: Session | None = None) -> T:
        """Run ``work(session)`` in one write transaction that also bumps ``user_id``'s change clock (other
        processes see the change within a second; this process's queues of the user are rebuilt)."""

        def bumped(session: Session) -> T:
            result = work(session)
            user_changed(session, user_id)
            return result

        return run_write(self.db, bumped, release=release)

    def update_settings(self, user_id: int, *, release: Session | None = None, **values: Any) -> UserSettings:
        """Change a user's review settings (``None`` values are left as they are); raises
        :class:`BadSettings` (422) naming what is out of range."""
        given = {k: v for k, v in values.items() if v is not None}
        problems = settings_errors(**given)
        if problems:
            raise BadSettings("; ".join(problems))

        def work(s: Session) -> UserSettings:
            st = s.get(UserSettings, user_id) or UserSettings(user_id=user_id)
            for k, v in given.items():
                setattr(st, k, v)
            s.add(st)
            return st

        return self.write(user_id, work, release=release)

    # ------------------------------------------------------------------ the daily loop (issue 15)

    def counts(self, user_id: int, prefs: Prefs | None = None, now: datetime | None = None) -> Counts:
        """New / learning / review left today (:class:`~app.review.queue.Counts`), from the same queue and
        the same code as the quiz header's; blocks on the database when the queue needs a check."""
        now = now or now_utc()
        prefs = prefs or self.prefs(user_id)
        q = self.queues.get(user_id, prefs.language, now, prefs)
        return self.queues.counts(q, now, prefs.new_per_day, prefs.reviews_per_day)

    def undo(self, user_id: int, key: str | None = None, *, now: datetime | None = None,
             release: Session | None = None) -> dict[str, Any]:
        """Undo the user's latest answer of today (``POST /api/review/undo``, ``app/review/undo.py``); a retry
        with the same ``key`` gets the first response back. Raises ``NothingToUndo`` (409)."""
        now = now or now_utc()
        key = key or f"auto-{secrets.token_hex(16)}"
        for attempt in range(2):
            try:
                return self.write(user_id, lambda s: undo_mod.undo(s, user_id, key, now), release=release)
            except IntegrityError:  # the same key committed by a concurrent retry: replay it
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def regrade(self, user_id: int, log_id: int, rating: object, *, prefs: Prefs | None = None,
                now: datetime | None = None, release: Session | None = None) -> dict[str, Any]:
        """Grade a wrong typed answer yourself (``POST /api/review/regrade``, ``app/review/undo.py``)."""
        now = now or now_utc()
        prefs = prefs or self.prefs(user_id)
        return self.write(user_id, lambda s: undo_mod.regrade(s, user_id, log_id, rating, prefs, now,
                                                              fuzz=self.fuzz), release=release)

    def hold(self, user_id: int, item_id: int, kind: str, *, now: datetime | None = None,
             release: Session | None = None) -> dict[str, Any]:
        """Bury (``kind="bury"``, until the user's next day) or suspend an item for this user."""
        now = now or now_utc()
        for attempt in range(2):
            try:
                return self.write(user_id, lambda s: holds_mod.hold(s, user_id, item_id, kind, now), release=release)
            except IntegrityError:  # a concurrent hold of the same item inserted first: replace it
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def resume(self, user_id: int, item_id: int, *, release: Session | None = None) -> dict[str, Any]:
        """Lift this user's bury or suspension of an item (idempotent)."""
        return self.write(user_id, lambda s: holds_mod.resume(s, user_id, item_id), release=release)

    def held(self, session: Session, user_id: int, now: datetime | None = None) -> list[dict[str, Any]]:
        """This user's buried and suspended items (``GET /api/review/held``, the page ``/quiz/held``)."""
        return holds_mod.held(session, user_id, now or now_utc())

    def intervals(self, session: Session, user_id: int, item_id: int, prefs: Prefs | None = None,
                  now: datetime | None = None) -> dict[str, Any]:
        """What each grade would give the item now: seconds and a label per rating (the ``fsrs`` scheduler's
        preview, ``app/srs/preview.py``), and the item's hold."""
        now = now or now_utc()
        prefs = prefs or Prefs.of(settings_for(session, user_id))
        holds_mod.live_item(session, item_id)
        row = session.connection().execute(select(*(STATES.c[c] for c in STATE_FIELDS)).where(
            STATES.c.user_id == user_id, STATES.c.item_id == item_id)).first()
        scheduler = make_scheduler(parameters=list(prefs.parameters) if prefs.parameters else None,
                                   desired_retention=prefs.desired_retention, fuzz=False)
        seconds = preview.intervals(item_id, dict(row._mapping) if row is not None else None, scheduler, now)
        out = [{"rating": r, "seconds": s, "label": preview.label(s)} for r, s in sorted(seconds.items())]
        return {"item_id": item_id, "new": row is None, "intervals": out,
                "summary": " · ".join(i["label"] for i in out),  # type: ignore[misc]
                "hold": holds_mod.hold_public(holds_mod.hold_of(session, user_id, item_id, now))}

    def item_log(self, session: Session, user_id: int, item_id: int, limit: int = 100) -> dict[str, Any]:
        """The item's own history for this user: its review log rows, newest first (a retired item keeps it)."""
        if session.get(ReviewItem, item_id) is None:
            raise ItemNotFound(item_id)
        rows = session.exec(sm_select(ReviewLog).where(ReviewLog.user_id == user_id, ReviewLog.item_id == item_id)
                            .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc()).limit(limit)).all()
        return {"item_id": item_id, "data": [log_public(r) for r in rows], "count": len(rows)}

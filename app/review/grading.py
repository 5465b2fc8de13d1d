"""Grading answers: many at once, in one write transaction (group commit), each with its own outcome.

``grade_batch`` reads every answered item's state and every Idempotency-Key of the batch in a few
statements, schedules each answer with ``fsrs`` in arrival order (two answers of one item in one batch:
the second sees the first's state), writes the states and logs with one executemany each, bumps each
user's revision (``app.models.clock``) and commits. Only then does it update this process's in-memory
queues and hand each answer its response, so nothing is acknowledged that is not stored.

One bad answer (unknown item, not due, bad rating) gets its own error and does not affect the others.
A retried key returns the first response unchanged, also when both copies arrive in the same batch.

Answers given away from the server (``Answer.offline``: the handbook's reviews, ``app.review.handbook_import``)
run through the same batch inside the importer's transaction (:func:`grade_in`): they are never refused as
not yet due (the handbook judged that from the state it had), and an answer replayed from a stored log
keeps its rating (a drill's with its stored outcome) instead of being graded again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import and_, bindparam, union_all
from sqlalchemy import select as core_select
from sqlalchemy import update as core_update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.core.writes import NOT_NOW, run_write, try_write_now
from app.items import drills
from app.items.items import drill_faces
from app.models import clock
from app.models.tables import CARDS, ITEMS, LOGS, SETTINGS, SHOWINGS, STATES, UNDOS
from app.review.errors import BadAnswer, ItemNotFound, KeyReused, NotDue, ReviewError, ShowingNotFound, ShowingUsed
from app.review.queue import queues
from app.srs.prefs import Prefs
from app.srs.scheduler import InvalidRating, as_utc, make_scheduler, parse_rating, review, to_db
from app.srs.state import STATE_FIELDS, StateRow, fsrs_card, state_public

MAX_KEY = 128


@dataclass(frozen=True, slots=True)
class Answer:
    """One POST /api/review: a rating 1-4, or a drill's typed answer with its showing id."""

    user_id: int
    item_id: int
    now: datetime
    rating: object = None
    typed: str | None = None
    showing_id: int | None = None
    duration_ms: int | None = None
    key: str = field(default_factory=lambda: f"auto-{secrets.token_hex(16)}")
    fuzz: bool = True
    prefs: Prefs | None = None  # None: read the user's settings in the transaction
    offline: bool = False  # answered elsewhere at ``now`` (a handbook review, a log replayed after one): no due check
    correct: bool | None = None  # an offline drill answer given as a rating: its stored outcome

    def check(self) -> None:
        """Refuse what no database state can make valid (before it joins a batch)."""
        if len(self.key) > MAX_KEY:
            raise BadAnswer(f"Idempotency-Key is {len(self.key)} characters long; use at most {MAX_KEY}")
        if self.duration_ms is not None and not (0 <= self.duration_ms <= 86_400_000):
            raise BadAnswer(f"duration_ms must be between 0 and 86400000; got {self.duration_ms}")


Outcome = dict[str, Any] | ReviewError | InvalidRating


@lru_cache(maxsize=1)
def _items_statement() -> Any:
    """The answered items, their card's ``retired`` and the user's state of each (``state_id`` None: new)."""
    st, it, ca = STATES.c, ITEMS.c, CARDS.c
    joined = (ITEMS.join(CARDS, ca.id == it.card_id)
              .outerjoin(STATES, and_(st.item_id == it.id, st.user_id == bindparam("uid"))))
    return (core_select(it.id.label("item_id"), it.kind, it.key, it.lang, it.retired,
                        ca.retired.label("card_retired"), st.id.label("state_id"), *(st[c] for c in STATE_FIELDS))
            .select_from(joined).where(it.id.in_(bindparam("items", expanding=True))))


@lru_cache(maxsize=1)
def _lock_statement() -> Any:
    """PostgreSQL: concurrent answers of one item (from other processes) queue on its state row."""
    st = STATES.c
    return (core_select(st.id).where(st.user_id == bindparam("uid"), st.item_id.in_(bindparam("items", expanding=True)))
            .order_by(st.id).with_for_update())


@lru_cache(maxsize=1)
def _replay_statement() -> Any:
    """The stored reply of each key already answered: in the log, or in an undo record when that answer was
    undone since (a late retry of an undone answer is replayed, never graded a second time)."""
    lg, un = LOGS.c, UNDOS.c
    logged = core_select(lg.id, lg.item_id, lg.idempotency_key, lg.response).where(
        lg.user_id == bindparam("uid"), lg.idempotency_key.in_(bindparam("keys", expanding=True)))
    undone = core_select(un.undone_log_id, un.answer_item_id, un.answer_key, un.answer_response).where(
        un.user_id == bindparam("uid"), un.answer_key.in_(bindparam("keys", expanding=True)))
    return union_all(logged, undone)


@lru_cache(maxsize=1)
def _settings_statement() -> Any:
    s = SETTINGS.c
    return core_select(s.language, s.new_per_day, s.desired_retention, s.parameters, s.reviews_per_day,
                       s.gather_order, s.bury_siblings).where(
        s.user_id == bindparam("uid"))


@lru_cache(maxsize=1)
def _state_update() -> Any:
    return core_update(STATES).where(STATES.c.id == bindparam("sid"))


def _replay(log_id: int, logged_item: int, response: dict[str, Any], a: Answer) -> Outcome:
    if logged_item != a.item_id:
        return KeyReused(a.key, logged_item)
    return {**response, "log_id": log_id, "replayed": True}


@dataclass
class _Pending:
    """What one batch will write: final state per (user, item), the logs in answer order."""

    inserts: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    updates: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    logs: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (answer index, row)
    changes: dict[int, list[tuple[int, StateRow, datetime]]] = field(default_factory=dict)  # per user


class _Batch:
    """One transaction's worth of answers (see the module docstring)."""

    def __init__(self, conn: Connection, answers: list[Answer]) -> None:
        self.conn, self.answers = conn, answers
        self.out: list[Outcome | None] = [None] * len(answers)
        self.dups: dict[int, int] = {}  # answer index -> index of the earlier answer with the same key
        self.pending = _Pending()
        self.shown: set[int] = set()  # drill showings answered in this batch

    def run(self) -> tuple[list[Outcome | None], dict[int, int], _Pending, dict[int, int]]:
        by_user: dict[int, list[int]] = {}
        for i, a in enumerate(self.answers):
            by_user.setdefault(a.user_id, []).append(i)
        for uid, idxs in by_user.items():
            self._user(uid, idxs)
        self._write()
        revs = {uid: clock.bump(self.conn, clock.user_scope(uid)) for uid in sorted(self.pending.changes)}
        return self.out, self.dups, self.pending, revs

    def _user(self, uid: int, idxs: list[int]) -> None:
        conn = self.conn
        items = sorted({self.answers[i].item_id for i in idxs})
        keys = sorted({self.answers[i].key for i in idxs})
        if conn.dialect.name != "sqlite":  # SQLite: run_write already serialises writers
            conn.execute(_lock_statement(), {"uid": uid, "items": items}).all()
        stored = {r.idempotency_key: r for r in conn.execute(_replay_statement(), {"uid": uid, "keys": keys})}
        rows = {r.item_id: r for r in conn.execute(_items_statement(), {"uid": uid, "items": items})}
        current: dict[int, StateRow | None] = {
            item: (StateRow.of(r) if r.state_id is not None else None) for item, r in rows.items()}
        first_of_key: dict[str, int] = {}
        prefs: Prefs | None = None
        for i in idxs:
            a = self.answers[i]
            if a.key in stored:
                r = stored[a.key]
                self.out[i] = _replay(r.id, r.item_id, r.response, a)
                continue
            if a.key in first_of_key:
                j = first_of_key[a.key]
                if self.answers[j].item_id != a.item_id:
                    self.out[i] = KeyReused(a.key, self.answers[j].item_id)
                else:
                    self.dups[i] = j
                continue
            first_of_key[a.key] = i
            if prefs is None:
                prefs = a.prefs or self._prefs(uid)
            try:
                self._grade(i, a, rows.get(a.item_id), current, prefs)
            except NotDue as exc:
                # PostgreSQL (read committed): the same key may have committed while we waited on the row lock
                again = conn.execute(_replay_statement(), {"uid": uid, "keys": [a.key]}).first()
                self.out[i] = _replay(again.id, again.item_id, again.response, a) if again is not None else exc
            except (ReviewError, InvalidRating) as exc:
                self.out[i] = exc

    def _prefs(self, uid: int) -> Prefs:
        row = self.conn.execute(_settings_statement(), {"uid": uid}).first()
        return Prefs.of(dict(row._mapping) if row is not None else None)

    def _grade(self, i: int, a: Answer, row: Any, current: dict[int, StateRow | None], prefs: Prefs) -> None:
        if row is None or row.retired or row.card_retired:
            raise ItemNotFound(a.item_id)
        state = current.get(a.item_id)
        if state is not None and state.due > as_utc(a.now) and not a.offline:
            raise NotDue(a.item_id, state.due)
        extra: dict[str, Any] = {}
        correct: bool | None = None
        if row.kind == "drill" and not (a.offline and a.rating is not None):
            grade, correct, extra = self._drill(a)
        else:
            grade = parse_rating(a.rating)
            correct = a.correct if row.kind == "drill" else None
        scheduler = make_scheduler(parameters=list(prefs.parameters) if prefs.parameters else None,
                                   desired_retention=prefs.desired_retention, fuzz=a.fuzz)
        before = fsrs_card(a.item_id, state)
        after = review(before, grade, when=a.now, scheduler=scheduler, duration_ms=a.duration_ms)
        new_row = StateRow.after(after, before=state, rating=int(grade))
        current[a.item_id] = new_row
        target = (a.user_id, a.item_id)
        values = new_row.columns()
        if target in self.pending.inserts:  # answered twice in this batch, new the first time
            self.pending.inserts[target].update(values)
        elif row.state_id is None:
            self.pending.inserts[target] = {"user_id": a.user_id, "item_id": a.item_id, "live": True,
                                            "lang": row.lang, **values}
        else:
            self.pending.updates[target] = {"sid": row.state_id, **values}
        self.pending.changes.setdefault(a.user_id, []).append((a.item_id, new_row, a.now))
        response = {"item_id": a.item_id, "kind": row.kind, "rating": int(grade), "correct": correct,
                    "reviewed_at": as_utc(a.now).isoformat(), "state": state_public(new_row),
                    "interval_seconds": int((after.due - as_utc(a.now)).total_seconds()), **extra}
        self.out[i] = response
        self.pending.logs.append((i, {
            "user_id": a.user_id, "item_id": a.item_id, "rating": int(grade), "typed_answer": a.typed,
            "correct": correct, "showing_id": a.showing_id if row.kind == "drill" else None,
            "duration_ms": a.duration_ms, "reviewed_at": to_db(a.now), "was_new": state is None,
            "prev_state": None if state is None else state.state,
            "state_before": None if state is None else state.log_json(), "state_after": new_row.log_json(),
            "idempotency_key": a.key, "response": response}))

    def _drill(self, a: Answer) -> tuple[Any, bool, dict[str, Any]]:
        if a.typed is None or a.showing_id is None:
            raise BadAnswer(f"review item {a.item_id} is a drill: send typed_answer and the showing_id from "
                            "GET /api/review/next (not a rating)")
        showing = self.conn.execute(core_select(SHOWINGS.c.user_id, SHOWINGS.c.item_id, SHOWINGS.c.params)
                                    .where(SHOWINGS.c.id == a.showing_id)).first()
        if showing is None or showing.user_id != a.user_id or showing.item_id != a.item_id:
            raise ShowingNotFound(a.showing_id, a.item_id)
        used = self.conn.execute(core_select(LOGS.c.id).where(LOGS.c.showing_id == a.showing_id)).first()
        if used is not None or a.showing_id in self.shown:
            raise ShowingUsed(a.showing_id)
        try:
            graded = drills.grade(showing.params, a.typed)
        except drills.DrillError as exc:
            raise BadAnswer(str(exc)) from None
        self.shown.add(a.showing_id)
        _front, back = drill_faces(showing.params)
        extra = {"expected": graded.expected, "given": graded.given, "unit": drills.unit(showing.params),
                 "unit_note": graded.note,
                 "solution": {"zh": back.zh, "en": back.en}, "solution_markdown": drills.solution(showing.params)}
        return parse_rating(3 if graded.correct else 1), graded.correct, extra

    def _write(self) -> None:
        conn, p = self.conn, self.pending
        if p.inserts:
            conn.execute(STATES.insert(), list(p.inserts.values()))
        if p.updates:
            conn.execute(_state_update(), list(p.updates.values()))
        if p.logs:
            # one executemany (RETURNING would run a statement per row on SQLite), then the ids
            conn.execute(LOGS.insert(), [row for _i, row in p.logs])
            for (i, _row), log_id in zip(p.logs, self._log_ids(), strict=True):
                out = self.out[i]
                assert isinstance(out, dict)
                out.update(log_id=log_id, replayed=False)

    def _log_ids(self) -> list[int]:
        """The ids of the logs just inserted, in order. SQLite, holding the write lock since BEGIN IMMEDIATE:
        each row took the next rowid, so they end at ``last_insert_rowid()``. Elsewhere: by their keys."""
        logs = self.pending.logs
        if self.conn.dialect.name == "sqlite":
            last = int(self.conn.exec_driver_sql("SELECT last_insert_rowid()").scalar_one())
            return list(range(last - len(logs) + 1, last + 1))
        by_user: dict[int, list[str]] = {}
        for _i, row in logs:
            by_user.setdefault(row["user_id"], []).append(row["idempotency_key"])
        ids = {(uid, r.idempotency_key): r.id for uid, keys in by_user.items()
               for r in self.conn.execute(_replay_statement(), {"uid": uid, "keys": keys})}
        return [ids[(row["user_id"], row["idempotency_key"])] for _i, row in logs]


def grade_in(session: Session, answers: list[Answer]) -> list[Outcome]:
    """Grade ``answers`` in order inside the caller's write transaction (``ReviewEngine.write``, which drops
    this process's queues of the user at commit); one outcome per answer, nothing acknowledged before the
    caller commits."""
    out, dups, _pending, _revs = _Batch(session.connection(), answers).run()
    for i, j in dups.items():
        first = out[j]
        out[i] = {**first, "replayed": True} if isinstance(first, dict) else first
    return [o for o in out if o is not None]


def grade_batch(engine: Engine, answers: list[Answer], *, wait: bool = True) -> list[Outcome] | None:
    """Grade ``answers`` in one transaction; one outcome (response or error) per answer, in order.

    ``wait=False``: only if that needs no waiting for a lock (:func:`~app.core.writes.try_write_now`),
    else None with nothing written.
    """
    for attempt in range(3):
        try:
            def work(s: Session) -> Any:
                return _Batch(s.connection(), answers).run()

            done = run_write(engine, work) if wait else try_write_now(engine, work)
            if done is NOT_NOW:
                return None
            out, dups, pending, revs = cast(tuple[list[Outcome | None], dict[int, int], _Pending, dict[int, int]],
                                            done)
            break
        except IntegrityError:
            # another process committed the same item's first state or the same key first: run again,
            # which replays that answer or says the item is not due (409)
            if attempt == 2:
                raise
    registry = queues(engine)
    for uid, rev in revs.items():
        registry.applied(uid, rev, pending.changes[uid])
    for i, j in dups.items():
        first = out[j]
        out[i] = {**first, "replayed": True} if isinstance(first, dict) else first
    assert all(o is not None for o in out)
    return [o for o in out if o is not None]

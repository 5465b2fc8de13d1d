"""Changing the last answer: undo it (``POST /api/review/undo``), or, after a wrong typed answer, grade
it yourself (``POST /api/review/regrade``). Both run inside :meth:`ReviewEngine.write` (one transaction that
moves the user's change clock, so every process's queue sees the item come back).

Undo removes the user's latest review log row of the current day and puts the item's FSRS state back as
the row recorded it before the answer (an item answered for the first time becomes new again; reps and
lapses step back). Its ``Idempotency-Key`` works as answers' do: the undo is stored with its key and
response (``undorecord``), and a retry with the same key gets that response back without undoing another
answer. A drill's showing becomes unanswered again, so the drill comes back with the same numbers.

:func:`take_back` undoes every answer of one item after a time, for a merge that answers them again in one
sequence with earlier ones (the handbook review import, ``app.review.handbook_import``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fsrs import Card as FsrsCard
from sqlalchemy import delete
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from app.models.review import ItemState, ReviewLog
from app.models.tables import LOGS, STATES
from app.models.undo import UndoRecord
from app.review.errors import BadAnswer, NothingToUndo
from app.review.grading import MAX_KEY, Answer
from app.review.queue_index import REVIEW_STATE
from app.srs.prefs import Prefs
from app.srs.scheduler import as_utc, day_start, make_scheduler, parse_rating, review, to_db
from app.srs.state import StateRow, state_public


def _latest_today(session: Session, user_id: int, now: datetime) -> ReviewLog | None:
    """The user's latest answer of today, locked (PostgreSQL) against a concurrent undo or regrade."""
    for _ in range(3):
        log_id = session.exec(select(ReviewLog.id).where(
            ReviewLog.user_id == user_id, col(ReviewLog.reviewed_at) >= to_db(day_start(now)))
            .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc()).limit(1)).first()
        if log_id is None:
            return None
        stmt = select(ReviewLog).where(ReviewLog.id == log_id)
        if session.get_bind().dialect.name != "sqlite":  # SQLite: run_write already serialises writers
            stmt = stmt.with_for_update()
        log = session.exec(stmt).first()
        if log is not None:
            return log
    return None  # three concurrent undos took each latest row first: nothing left is ours to undo


def _state_row(session: Session, user_id: int, item_id: int) -> ItemState | None:
    stmt = select(ItemState).where(ItemState.user_id == user_id, ItemState.item_id == item_id)
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    return session.exec(stmt).first()


def _card_of(item_id: int, as_json: dict[str, Any]) -> FsrsCard:
    return FsrsCard.from_dict({**as_json, "card_id": item_id})  # type: ignore[typeddict-item]


def _stored(card: FsrsCard, *, reps: int, lapses: int) -> StateRow:
    """The state to store for ``card`` with the given counts (reps and lapses are ours, not fsrs's)."""
    return StateRow(state=int(card.state), step=card.step, stability=card.stability, difficulty=card.difficulty,
                    due=card.due, last_review=card.last_review, reps=reps, lapses=lapses)


def _set(state: ItemState, row: StateRow) -> None:
    for name, value in row.columns().items():
        setattr(state, name, value)


def _lapsed(rating: int, prev_state: int | None) -> int:
    """What one answer added to ``lapses`` (as ``app.review.grading`` counts them)."""
    return int(rating == 1 and prev_state == REVIEW_STATE)


def undo(session: Session, user_id: int, key: str, now: datetime) -> dict[str, Any]:
    """Undo the user's latest answer of today (see the module docstring); raises :class:`NothingToUndo`."""
    if len(key) > MAX_KEY:
        raise BadAnswer(f"Idempotency-Key is {len(key)} characters long; use at most {MAX_KEY}")
    done = session.exec(select(UndoRecord).where(UndoRecord.user_id == user_id,
                                                 UndoRecord.idempotency_key == key)).first()
    if done is not None:
        return {**done.response, "replayed": True}
    log = _latest_today(session, user_id, now)
    if log is None:
        raise NothingToUndo()
    assert log.id is not None
    state = _state_row(session, user_id, log.item_id)
    restored: StateRow | None = None
    if state is not None:
        if log.state_before is None:  # its first answer: the item is new again
            session.delete(state)
        else:
            restored = _stored(_card_of(log.item_id, log.state_before), reps=max(0, state.reps - 1),
                               lapses=max(0, state.lapses - _lapsed(log.rating, log.prev_state)))
            _set(state, restored)
            session.add(state)
    undone = {"log_id": log.id, "item_id": log.item_id, "rating": log.rating,
              "reviewed_at": as_utc(log.reviewed_at).isoformat(), "was_new": log.was_new}
    response = {"undone": undone, "item_id": log.item_id, "state": state_public(restored)}
    session.delete(log)
    session.add(UndoRecord(user_id=user_id, idempotency_key=key, undone_log_id=log.id, undone_at=to_db(now),
                           response=response, answer_key=log.idempotency_key, answer_item_id=log.item_id,
                           answer_response=log.response))
    session.flush()
    return {**response, "replayed": False}


def regrade(session: Session, user_id: int, log_id: int, rating: object, prefs: Prefs, now: datetime,
            *, fuzz: bool = True) -> dict[str, Any]:
    """Grade a wrong typed answer yourself (a slip): the item is scheduled as if ``rating`` had been given
    at the time of the answer. Only the user's latest answer of today, and only a drill graded wrong,
    may be regraded; doing it again with the same rating changes nothing more."""
    grade = parse_rating(rating)
    log = _latest_today(session, user_id, now)
    if log is None or log.id != log_id:
        raise NothingToUndo(f"review log {log_id} is not your latest answer of today; only that one can be "
                            "regraded (GET /api/review/log)")
    if log.showing_id is None or log.correct is not False:
        raise BadAnswer(f"review log {log_id} is no wrong typed answer; only those are graded by hand "
                        "(use POST /api/review/undo, then answer again)")
    state = _state_row(session, user_id, log.item_id)
    assert state is not None, "a logged answer always has its state"
    scheduler = make_scheduler(parameters=list(prefs.parameters) if prefs.parameters else None,
                               desired_retention=prefs.desired_retention, fuzz=fuzz)
    before = (_card_of(log.item_id, log.state_before) if log.state_before is not None
              else FsrsCard(card_id=log.item_id))
    when = as_utc(log.reviewed_at)
    after = review(before, grade, when=when, scheduler=scheduler, duration_ms=log.duration_ms)
    regraded = _stored(after, reps=state.reps,
                       lapses=state.lapses - _lapsed(log.rating, log.prev_state) + _lapsed(int(grade), log.prev_state))
    _set(state, regraded)
    session.add(state)
    response = {**log.response, "rating": int(grade), "state": state_public(regraded), "self_graded": True,
                "interval_seconds": int((after.due - when).total_seconds())}
    log.rating, log.state_after, log.response = int(grade), regraded.log_json(), response
    session.add(log)
    session.flush()
    return {**response, "log_id": log.id}


def take_back(session: Session, user_id: int, item_id: int, since: datetime) -> list[Answer]:
    """Take back the user's answers of ``item_id`` later than ``since``: their logs go, the state is put back
    as the first of them recorded it before; returns them as answers to give again (stored ratings)."""
    conn = session.connection()
    lg = LOGS.c
    query = core_select(STATES).where(STATES.c.user_id == user_id, STATES.c.item_id == item_id)
    if conn.dialect.name != "sqlite":  # SQLite: run_write already serialises writers
        query = query.with_for_update()
    state = conn.execute(query).first()
    if state is None:
        return []
    later = list(conn.execute(core_select(LOGS).where(lg.user_id == user_id, lg.item_id == item_id,
                                                      lg.reviewed_at > to_db(since)).order_by(lg.reviewed_at, lg.id)))
    if not later:
        return []
    first = later[0]
    if first.state_before is None:
        conn.execute(delete(STATES).where(STATES.c.id == state.id))
    else:
        lapses = state.lapses - sum(_lapsed(r.rating, r.prev_state) for r in later)
        back = _stored(_card_of(item_id, first.state_before), reps=max(0, state.reps - len(later)),
                       lapses=max(0, lapses))
        conn.execute(STATES.update().where(STATES.c.id == state.id).values(**back.columns()))
    conn.execute(delete(LOGS).where(lg.id.in_([r.id for r in later])))
    return [Answer(user_id=user_id, item_id=item_id, now=as_utc(r.reviewed_at), rating=r.rating, typed=r.typed_answer,
                   showing_id=r.showing_id, correct=r.correct, duration_ms=r.duration_ms, key=r.idempotency_key,
                   fuzz=False, offline=True) for r in later]

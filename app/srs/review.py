"""Reviewing: what is due next for a user, grading an answer (idempotently), the follow-up chain.

Pure of HTTP: functions take a session or an engine, a user id and ``now`` (UTC), and raise precise
exceptions that the routes turn into 4xx answers.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import and_, bindparam, func, or_
from sqlalchemy import select as core_select
from sqlalchemy import update as core_update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from app.models.card import Card, CardLink
from app.models.review import DrillShowing, ItemState, ReviewItem, ReviewLog
from app.models.user import UserSettings
from app.srs import drills
from app.srs.items import drill_faces, faces
from app.srs.scheduler import (
    as_utc,
    card_columns,
    card_from_columns,
    card_json,
    make_scheduler,
    parse_rating,
    review,
    to_db,
)
from app.srs.writes import run_write

STATE_NAMES = {1: "learning", 2: "review", 3: "relearning"}


class ReviewError(Exception):
    status = 400


class ItemNotFound(ReviewError):
    status = 404

    def __init__(self, item_id: int) -> None:
        super().__init__(f"review item {item_id} does not exist (or its card was retired)")


class NotDue(ReviewError):
    status = 409

    def __init__(self, item_id: int, due: datetime) -> None:
        super().__init__(f"review item {item_id} is not due until {as_utc(due).isoformat()}; "
                         "GET /api/review/next for what is due")


class BadAnswer(ReviewError):
    status = 422


class ShowingNotFound(ReviewError):
    status = 404

    def __init__(self, showing_id: object, item_id: int) -> None:
        super().__init__(f"drill showing {showing_id} of item {item_id} not found; "
                         "answer the showing_id that GET /api/review/next gave you")


class ShowingUsed(ReviewError):
    status = 409

    def __init__(self, showing_id: int) -> None:
        super().__init__(f"drill showing {showing_id} was already answered; "
                         "GET /api/review/next for fresh numbers")


class KeyReused(ReviewError):
    status = 422

    def __init__(self, key: str, item_id: int) -> None:
        super().__init__(f"Idempotency-Key {key!r} was already used for review item {item_id}; "
                         "use a new key per answer")


def settings_for(session: Session, user_id: int, known: UserSettings | None = None) -> UserSettings:
    """``known`` (loaded with the user at sign-in) saves a query; else read them, or the defaults."""
    if known is not None and known.user_id == user_id:
        return known
    return session.get(UserSettings, user_id) or UserSettings(user_id=user_id)


def day_start(now: datetime) -> datetime:
    """Midnight UTC of ``now``'s day (a user's day is the UTC day)."""
    n = as_utc(now)
    return n.replace(hour=0, minute=0, second=0, microsecond=0)


def _live(lang: str) -> list[Any]:
    conds: list[Any] = [col(ReviewItem.retired).is_(False), col(Card.retired).is_(False)]
    if lang in ("zh", "en"):
        conds.append(col(ReviewItem.lang).in_(("", lang)))
    return conds


def _state_cols(state: ItemState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {"state": state.state, "step": state.step, "stability": state.stability,
            "difficulty": state.difficulty, "due": state.due, "last_review": state.last_review}


def state_public(state: ItemState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {"state": STATE_NAMES.get(state.state, str(state.state)), "due": as_utc(state.due).isoformat(),
            "stability": state.stability, "difficulty": state.difficulty, "reps": state.reps,
            "lapses": state.lapses,
            "last_review": as_utc(state.last_review).isoformat() if state.last_review else None}


def new_today(session: Session, user_id: int, now: datetime) -> int:
    return int(session.exec(_new_today_count(user_id, now)).one())


def _new_today_count(user_id: int, now: datetime) -> Any:
    return select(func.count()).select_from(ReviewLog).where(
        ReviewLog.user_id == user_id, col(ReviewLog.was_new).is_(True),
        col(ReviewLog.reviewed_at) >= to_db(day_start(now)))


def _lang_filter(column: Any, lang: str) -> list[Any]:
    return [column.in_(("", lang))] if lang in ("zh", "en") else []


def _new_query(user_id: int, lang: str) -> Any:
    return (select(ReviewItem, Card)
            .join(Card, col(Card.id) == ReviewItem.card_id)
            .outerjoin(ItemState, and_(col(ItemState.item_id) == ReviewItem.id, col(ItemState.user_id) == user_id))
            .where(col(ItemState.id).is_(None), *_live(lang)))


def _due_conds(user_id: int, lang: str, until: datetime) -> list[Any]:
    """Due states of live items: one range scan of ``ix_itemstate_user_live_due`` (no joins)."""
    return [ItemState.user_id == user_id, col(ItemState.live).is_(True), col(ItemState.due) <= to_db(until),
            *_lang_filter(col(ItemState.lang), lang)]


def _due_query(user_id: int, lang: str, until: datetime) -> Any:
    return select(ItemState).where(*_due_conds(user_id, lang, until))


def item_view(session: Session, user_id: int, item: ReviewItem, card: Card, state: ItemState | None) -> dict[str, Any]:
    """What the quiz shows for ``item``; a drill gets a fresh showing (numbers stored server-side)."""
    assert item.id is not None
    showing_id = None
    if item.kind == "drill":
        params = drills.new_params(item.key, secrets.randbits(64))
        item_id = item.id
        # the request's session is closed first (one pooled connection per request); loaded rows stay usable
        showing_id = run_write(session.get_bind(), lambda s: _add_showing(s, user_id, item_id, params),  # type: ignore[arg-type]
                               release=session)
        front, _back = drill_faces(params)
        back = None
    else:
        f, b = faces(card.source_text, card.slug, item.kind, item.key)
        front, back = f, b
    return {
        "id": item.id, "kind": item.kind, "key": item.key, "lang": item.lang,
        "card": {"id": card.id, "slug": card.slug, "title_zh": card.title_zh, "title_en": card.title_en},
        "front": {"zh": front.zh, "en": front.en},
        "back": {"zh": back.zh, "en": back.en} if back is not None else None,
        "typed": item.kind == "drill", "showing_id": showing_id,
        "unit": drills.unit(params) if item.kind == "drill" else None,
        "new": state is None, "state": state_public(state),
    }


def _add_showing(s: Session, user_id: int, item_id: int, params: dict[str, Any]) -> int:
    showing = DrillShowing(user_id=user_id, item_id=item_id, params=params)
    s.add(showing)
    s.flush()
    assert showing.id is not None
    return showing.id


_STATES: Any = ItemState.__table__  # type: ignore[attr-defined]
_ITEMS: Any = ReviewItem.__table__  # type: ignore[attr-defined]
_CARDS: Any = Card.__table__  # type: ignore[attr-defined]
_LOGS: Any = ReviewLog.__table__  # type: ignore[attr-defined]
_STATE_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")


@lru_cache(maxsize=8)
def _first_due_statement(lang: str) -> Any:
    """The most overdue live state with its item and card, as plain columns (Core; built once per language)."""
    st, it, ca = _STATES.c, _ITEMS.c, _CARDS.c
    now: Any = bindparam("now", type_=UTCDateTime())
    return (core_select(*(st[c] for c in _STATE_FIELDS), it.id.label("item_id"), it.kind, it.key,
                        it.lang.label("item_lang"), ca.id.label("card_id"), ca.slug, ca.title_zh, ca.title_en,
                        ca.source_text)
            .select_from(_STATES.join(_ITEMS, it.id == st.item_id).join(_CARDS, ca.id == it.card_id))
            .where(st.user_id == bindparam("uid"), st.live.is_(True), st.due <= now, *_lang_filter(st.lang, lang))
            .order_by(st.due).limit(1))


@lru_cache(maxsize=1)
def _grade_statement() -> Any:
    """An item, its card's ``retired`` and the user's state of it (``state_id`` None: never reviewed)."""
    st, it, ca = _STATES.c, _ITEMS.c, _CARDS.c
    joined = (_ITEMS.join(_CARDS, ca.id == it.card_id)
              .outerjoin(_STATES, and_(st.item_id == it.id, st.user_id == bindparam("uid"))))
    return (core_select(it.kind, it.key, it.lang, it.retired, ca.retired.label("card_retired"),
                        st.id.label("state_id"), *(st[c] for c in _STATE_FIELDS))
            .select_from(joined).where(it.id == bindparam("item_id")))


@lru_cache(maxsize=1)
def _state_update() -> Any:
    return core_update(_STATES).where(_STATES.c.id == bindparam("sid"))


@lru_cache(maxsize=1)
def _replay_statement() -> Any:
    lg = _LOGS.c
    return (core_select(lg.id, lg.item_id, lg.response)
            .where(lg.user_id == bindparam("uid"), lg.idempotency_key == bindparam("key")))


@lru_cache(maxsize=8)
def _counts_statement(lang: str) -> Any:
    """The four counts of :func:`due_counts` as one statement, built once per language (bound later)."""
    uid: Any = bindparam("uid")
    now: Any = bindparam("now", type_=UTCDateTime())
    day: Any = bindparam("day", type_=UTCDateTime())
    st, it, lg = _STATES.c, _ITEMS.c, _LOGS.c  # Core tables: no ORM layer on the hot path
    live = [st.user_id == uid, st.live.is_(True), *_lang_filter(st.lang, lang)]
    due = core_select(func.count()).select_from(_STATES).where(*live, st.due <= now).scalar_subquery()
    seen = core_select(func.count()).select_from(_STATES).where(*live).scalar_subquery()
    items = (core_select(func.count()).select_from(_ITEMS)
             .where(it.retired.is_(False), *_lang_filter(it.lang, lang)).scalar_subquery())
    today = (core_select(func.count()).select_from(_LOGS)
             .where(lg.user_id == uid, lg.was_new.is_(True), lg.reviewed_at >= day).scalar_subquery())
    return core_select(due, seen, items, today)


def due_counts(session: Session, user_id: int, lang: str, now: datetime, new_per_day: int) -> tuple[int, int]:
    """(due now, new still offered today), in one round trip.

    New = live items (in the user's languages) minus the user's states of live items, capped by what is
    left of today's quota.
    """
    params = {"uid": user_id, "now": to_db(now), "day": to_db(day_start(now))}
    n_due, n_seen, n_items, n_today = session.connection().execute(_counts_statement(lang), params).one()
    quota = max(0, new_per_day - int(n_today))
    return int(n_due), min(quota, max(0, int(n_items) - int(n_seen)))


def next_item(session: Session, user_id: int, now: datetime, settings: UserSettings | None = None) -> dict[str, Any]:
    """The most overdue item, else a new one within today's quota, else when the next one is due."""
    st = settings_for(session, user_id, settings)
    due_n, new_n = due_counts(session, user_id, st.language, now, st.new_per_day)
    out: dict[str, Any] = {"item": None, "due_left": due_n + new_n, "due_now": due_n, "new_left": new_n,
                           "next_due": None, "language": st.language}
    if due_n:
        params = {"uid": user_id, "now": to_db(now)}
        row = session.connection().execute(_first_due_statement(st.language), params).first()
        if row is not None:  # plain rows stand in for the ORM objects (no identity map on the hot path)
            m = row._mapping
            state = SimpleNamespace(**{c: m[c] for c in _STATE_FIELDS})
            item = SimpleNamespace(id=m["item_id"], kind=m["kind"], key=m["key"], lang=m["item_lang"])
            card = SimpleNamespace(id=m["card_id"], slug=m["slug"], title_zh=m["title_zh"],
                                   title_en=m["title_en"], source_text=m["source_text"])
            out["item"] = item_view(session, user_id, cast(ReviewItem, item), cast(Card, card),
                                    cast(ItemState, state))
            return out
    if new_n:
        row = session.exec(_new_query(user_id, st.language).order_by(col(ReviewItem.position)).limit(1)).first()
        if row is not None:
            item, card = row
            out["item"] = item_view(session, user_id, item, card, None)
            return out
    upcoming = session.exec(select(func.min(ItemState.due)).where(
        ItemState.user_id == user_id, col(ItemState.live).is_(True),
        *_lang_filter(col(ItemState.lang), st.language))).one()
    out["next_due"] = as_utc(upcoming).isoformat() if upcoming else None
    return out


def submit_review(engine: Engine, user_id: int, *, item_id: int, rating: object = None,
                  typed_answer: str | None = None, showing_id: int | None = None, duration_ms: int | None = None,
                  idempotency_key: str | None = None, now: datetime, fuzz: bool = True,
                  settings: UserSettings | None = None) -> dict[str, Any]:
    """Grade one answer; a repeated ``idempotency_key`` returns the first answer's response unchanged."""
    key = idempotency_key or f"auto-{secrets.token_hex(16)}"
    if len(key) > 128:
        raise BadAnswer(f"Idempotency-Key is {len(key)} characters long; use at most 128")
    if duration_ms is not None and not (0 <= duration_ms <= 86_400_000):
        raise BadAnswer(f"duration_ms must be between 0 and 86400000; got {duration_ms}")

    def work(s: Session) -> dict[str, Any]:
        if engine.dialect.name != "sqlite":  # concurrent answers of one item queue on its state row (SQLite:
            s.exec(select(ItemState.id).where(  # run_write already serialises writers)
                ItemState.user_id == user_id, ItemState.item_id == item_id).with_for_update()).first()

        def stored() -> ReviewLog | None:
            row = s.connection().execute(_replay_statement(), {"uid": user_id, "key": key}).first()
            return cast(ReviewLog, row) if row is not None else None

        old = stored()
        if old is not None:
            return _replay(old, item_id, key)
        try:
            return _grade(s, user_id, item_id, rating, typed_answer, showing_id, duration_ms, key, now, fuzz,
                          settings)
        except NotDue:
            old = stored()  # the same key committed between our two reads (PostgreSQL: read committed)
            if old is None:
                raise
            return _replay(old, item_id, key)

    for attempt in range(3):
        try:
            return run_write(engine, work)
        except IntegrityError:
            # a concurrent answer of the same item (its first state row) or with the same key committed
            # first: run again, which replays that answer or says the item is not due (409)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _replay(old: ReviewLog, item_id: int, key: str) -> dict[str, Any]:
    if old.item_id != item_id:
        raise KeyReused(key, old.item_id)
    return {**old.response, "log_id": old.id, "replayed": True}


def _grade(s: Session, user_id: int, item_id: int, rating: object, typed: str | None, showing_id: int | None,
           duration_ms: int | None, key: str, now: datetime, fuzz: bool,
           known: UserSettings | None) -> dict[str, Any]:
    conn = s.connection()  # Core statements on the connection: the write lock is held for as little as possible
    row = conn.execute(_grade_statement(), {"uid": user_id, "item_id": item_id}).first()
    if row is None or row.retired or row.card_retired:
        raise ItemNotFound(item_id)
    item = row
    state: Any = SimpleNamespace(**{c: getattr(row, c) for c in _STATE_FIELDS}) if row.state_id is not None else None
    if state is not None and as_utc(state.due) > as_utc(now):
        raise NotDue(item_id, state.due)
    extra: dict[str, Any] = {}
    correct: bool | None = None
    if item.kind == "drill":
        if typed is None or showing_id is None:
            raise BadAnswer(f"review item {item_id} is a drill: send typed_answer and the showing_id from "
                            "GET /api/review/next (not a rating)")
        showing = s.get(DrillShowing, showing_id)
        if showing is None or showing.user_id != user_id or showing.item_id != item_id:
            raise ShowingNotFound(showing_id, item_id)
        if s.exec(select(ReviewLog.id).where(ReviewLog.showing_id == showing_id)).first() is not None:
            raise ShowingUsed(showing_id)
        try:
            graded = drills.grade(showing.params, typed)
        except drills.DrillError as exc:
            raise BadAnswer(str(exc)) from None
        correct = graded.correct
        grade = parse_rating(3 if correct else 1)
        sol = drills.solution(showing.params)
        _front, back = drill_faces(showing.params)
        extra = {"expected": graded.expected, "given": graded.given, "unit": drills.unit(showing.params),
                 "solution": {"zh": back.zh, "en": back.en},
                 "solution_markdown": sol}
    else:
        grade = parse_rating(rating)
    st = settings_for(s, user_id, known)
    scheduler = make_scheduler(parameters=st.parameters, desired_retention=st.desired_retention, fuzz=fuzz)
    before = card_from_columns(item_id, _state_cols(state))
    after = review(before, grade, when=now, scheduler=scheduler, duration_ms=duration_ms)
    was_new = state is None
    columns = card_columns(after)
    reps = (0 if state is None else state.reps) + 1
    lapses = (0 if state is None else state.lapses) + (int(grade) == 1 and int(before.state) == 2)
    if state is None:
        conn.execute(_STATES.insert(), {"user_id": user_id, "item_id": item_id, "live": True, "lang": item.lang,
                                        "reps": reps, "lapses": lapses, **columns})
    else:
        conn.execute(_state_update(), {"sid": row.state_id, "reps": reps, "lapses": lapses, **columns})
    response = {"item_id": item_id, "kind": item.kind, "rating": int(grade), "correct": correct,
                "reviewed_at": as_utc(now).isoformat(),
                "state": state_public(cast(ItemState, SimpleNamespace(**columns, reps=reps, lapses=lapses))),
                "interval_seconds": int((after.due - as_utc(now)).total_seconds()), **extra}
    inserted = conn.execute(_LOGS.insert(), {
        "user_id": user_id, "item_id": item_id, "rating": int(grade), "typed_answer": typed, "correct": correct,
        "showing_id": showing_id if item.kind == "drill" else None, "duration_ms": duration_ms,
        "reviewed_at": to_db(now), "was_new": was_new, "prev_state": None if was_new else int(before.state),
        "state_before": None if was_new else card_json(before), "state_after": card_json(after),
        "idempotency_key": key, "response": response})
    log_id = inserted.inserted_primary_key[0] if inserted.inserted_primary_key else None
    return {**response, "log_id": log_id, "replayed": False}


def chain(session: Session, user_id: int, item_id: int, now: datetime) -> dict[str, Any]:
    """After a card: its follow-ups that can be reviewed now (due or new), then links to related cards."""
    item = session.get(ReviewItem, item_id)
    card = session.get(Card, item.card_id) if item is not None else None
    if item is None or card is None or item.retired or card.retired:
        raise ItemNotFound(item_id)
    st = settings_for(session, user_id)
    rows = session.exec(
        select(ReviewItem, ItemState)
        .join(Card, col(Card.id) == ReviewItem.card_id)
        .outerjoin(ItemState, and_(col(ItemState.item_id) == ReviewItem.id, col(ItemState.user_id) == user_id))
        .where(ReviewItem.card_id == card.id, ReviewItem.kind == "followup", *_live(st.language),
               or_(col(ItemState.id).is_(None), col(ItemState.due) <= to_db(now)))
        .order_by(col(ReviewItem.position))).all()
    followups = [item_view(session, user_id, fu, card, state) for fu, state in rows]
    links = session.exec(select(CardLink).where(CardLink.card_id == card.id).order_by(col(CardLink.position))).all()
    slugs = [lk.target_slug for lk in links if lk.target_slug]
    known = {c.slug: c for c in session.exec(select(Card).where(col(Card.slug).in_(slugs),
                                                                col(Card.retired).is_(False)))}
    related = []
    for lk in links:
        target = known.get(lk.target_slug)
        related.append({"slug": lk.target_slug or None, "in_deck": target is not None,
                        "title_zh": target.title_zh if target else lk.target_title_zh,
                        "title_en": target.title_en if target else lk.target_title_en,
                        "url": f"/cards/{target.slug}" if target else None})
    return {"card": {"id": card.id, "slug": card.slug}, "followups": followups, "links": related}


def recent_logs(session: Session, user_id: int, limit: int = 50, offset: int = 0) -> list[ReviewLog]:
    return list(session.exec(select(ReviewLog).where(ReviewLog.user_id == user_id)
                             .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc())
                             .offset(offset).limit(limit)).all())


def log_public(log: ReviewLog) -> dict[str, Any]:
    return {"id": log.id, "item_id": log.item_id, "rating": log.rating, "typed_answer": log.typed_answer,
            "correct": log.correct, "duration_ms": log.duration_ms,
            "reviewed_at": as_utc(log.reviewed_at).isoformat(), "was_new": log.was_new,
            "state_before": log.state_before, "state_after": log.state_after}


def upcoming_window(now: datetime, days: int) -> tuple[datetime, datetime]:
    start = day_start(now)
    return start, start + timedelta(days=days)

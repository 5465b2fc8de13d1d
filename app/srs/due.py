"""Due-state queries of one user (live items in the user's languages): the counts, the forecast's rows.

Pure of HTTP and of the in-memory queues: functions take a session, a user id and ``now`` (UTC).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from app.models.review import ItemState
from app.models.tables import ITEMS, LOGS, STATES
from app.srs.scheduler import day_start, to_db


def lang_filter(column: Any, lang: str) -> list[Any]:
    return [column.in_(("", lang))] if lang in ("zh", "en") else []


def due_conds(user_id: int, lang: str, until: datetime) -> list[Any]:
    """Due states of live items: one range scan of ``ix_itemstate_user_live_due`` (no joins)."""
    return [ItemState.user_id == user_id, col(ItemState.live).is_(True), col(ItemState.due) <= to_db(until),
            *lang_filter(col(ItemState.lang), lang)]


def due_query(user_id: int, lang: str, until: datetime) -> Any:
    return select(ItemState).where(*due_conds(user_id, lang, until))


@lru_cache(maxsize=8)
def _counts_statement(lang: str) -> Any:
    """The four counts of :func:`due_counts` as one statement, built once per language (bound later)."""
    uid: Any = bindparam("uid")
    now: Any = bindparam("now", type_=UTCDateTime())
    day: Any = bindparam("day", type_=UTCDateTime())
    st, it, lg = STATES.c, ITEMS.c, LOGS.c  # Core tables: no ORM layer on the hot path
    live = [st.user_id == uid, st.live.is_(True), *lang_filter(st.lang, lang)]
    due = core_select(func.count()).select_from(STATES).where(*live, st.due <= now).scalar_subquery()
    seen = core_select(func.count()).select_from(STATES).where(*live).scalar_subquery()
    items = (core_select(func.count()).select_from(ITEMS)
             .where(it.retired.is_(False), *lang_filter(it.lang, lang)).scalar_subquery())
    today = (core_select(func.count()).select_from(LOGS)
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


def upcoming_window(now: datetime, days: int) -> tuple[datetime, datetime]:
    start = day_start(now)
    return start, start + timedelta(days=days)

"""Review statistics for one user: due today, reviewed today, streak, true retention, 30-day forecast."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.models.review import ItemState, ReviewLog
from app.srs.due import due_conds, due_counts, due_query
from app.srs.prefs import settings_for
from app.srs.scheduler import as_utc, day_start, to_db

FORECAST_DAYS = 30
STREAK_LOOKBACK_DAYS = 400


def true_retention(session: Session, user_id: int, now: datetime, days: int) -> dict[str, Any]:
    """Share of reviews of items already in Review state that were rated Good or Easy, last ``days`` days."""
    since = to_db(as_utc(now) - timedelta(days=days))
    base = select(func.count()).select_from(ReviewLog).where(
        ReviewLog.user_id == user_id, ReviewLog.prev_state == 2, col(ReviewLog.reviewed_at) >= since)
    total = int(session.exec(base).one())
    passed = int(session.exec(base.where(col(ReviewLog.rating) >= 3)).one())
    return {"days": days, "reviews": total, "passed": passed, "retention": passed / total if total else None}


def review_days(session: Session, user_id: int, now: datetime) -> set[date]:
    """UTC days with at least one review in the look-back window.

    ``date(timestamp)`` is portable: SQLite returns 'YYYY-MM-DD', PostgreSQL a date (function-style cast).
    """
    since = to_db(day_start(now) - timedelta(days=STREAK_LOOKBACK_DAYS))
    stamp: Any = ReviewLog.reviewed_at
    if session.get_bind().dialect.name == "postgresql":
        stamp = func.timezone("UTC", stamp)  # timestamptz → UTC wall time, whatever the session time zone
    q = (select(func.date(stamp)).where(ReviewLog.user_id == user_id,
                                        col(ReviewLog.reviewed_at) >= since).distinct())
    out: set[date] = set()
    for value in session.exec(q).all():
        out.add(value if isinstance(value, date) else date.fromisoformat(str(value)[:10]))
    return out


def streak(days: set[date], today: date) -> int:
    """Consecutive days with a review ending today (or yesterday, when today has none yet)."""
    d = today if today in days else today - timedelta(days=1)
    n = 0
    while d in days:
        n += 1
        d -= timedelta(days=1)
    return n


def forecast(session: Session, user_id: int, lang: str, now: datetime,
             days: int = FORECAST_DAYS) -> list[dict[str, Any]]:
    """Items falling due per UTC day for the next ``days`` days; day 0 includes everything overdue."""
    start = day_start(now)
    q = due_query(user_id, lang, start + timedelta(days=days)).with_only_columns(col(ItemState.due))
    counts: Counter[int] = Counter()
    for due in session.execute(q).scalars().all():
        counts[max(0, (as_utc(due) - start).days)] += 1
    return [{"date": (start + timedelta(days=i)).date().isoformat(), "due": counts.get(i, 0)} for i in range(days)]


def user_stats(session: Session, user_id: int, now: datetime) -> dict[str, Any]:
    st = settings_for(session, user_id)
    today = day_start(now)
    end_of_day = today + timedelta(days=1) - timedelta(microseconds=1)
    due_today = int(session.exec(select(func.count()).select_from(ItemState).where(
        *due_conds(user_id, st.language, end_of_day))).one())
    due_now, new_left = due_counts(session, user_id, st.language, now, st.new_per_day)
    reviewed_today = int(session.exec(select(func.count()).select_from(ReviewLog).where(
        ReviewLog.user_id == user_id, col(ReviewLog.reviewed_at) >= to_db(today))).one())
    total_reviews = int(session.exec(select(func.count()).select_from(ReviewLog)
                                     .where(ReviewLog.user_id == user_id)).one())
    return {
        "due_today": due_today, "due_now": due_now, "new_left": new_left, "reviewed_today": reviewed_today,
        "streak": streak(review_days(session, user_id, now), today.date()),
        "retention": {"7d": true_retention(session, user_id, now, 7),
                      "30d": true_retention(session, user_id, now, 30)},
        "forecast": forecast(session, user_id, st.language, now),
        "total_reviews": total_reviews,
    }

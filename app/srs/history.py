"""A user's review history per UTC day: how many answers and how much time, for the stats page's year
heatmap and its 30-day charts. One grouped query; days without a review are filled with zeros here."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.models.review import ReviewLog
from app.srs.scheduler import as_utc, to_db

YEAR_DAYS = 371  # 53 whole weeks: the heatmap's columns


def daily(session: Session, user_id: int, now: datetime, days: int = YEAR_DAYS) -> list[dict[str, Any]]:
    """``[{"date": date, "reviews": n, "seconds": s}]`` for the ``days`` UTC days ending today, oldest first.
    ``seconds`` sums the answers' ``duration_ms`` (answers sent without one count no time)."""
    today = as_utc(now).date()
    first = today - timedelta(days=days - 1)
    stamp: Any = ReviewLog.reviewed_at
    if session.get_bind().dialect.name == "postgresql":
        stamp = func.timezone("UTC", stamp)  # timestamptz → UTC wall time, whatever the session time zone
    day = func.date(stamp)
    since = datetime(first.year, first.month, first.day, tzinfo=as_utc(now).tzinfo)
    q = (select(day, func.count(), func.coalesce(func.sum(ReviewLog.duration_ms), 0))
         .where(ReviewLog.user_id == user_id, col(ReviewLog.reviewed_at) >= to_db(since))
         .group_by(day))
    found: dict[date, tuple[int, float]] = {}
    for value, count, ms in session.exec(q).all():
        d = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
        found[d] = (int(count), int(ms or 0) / 1000)
    out = []
    for i in range(days):
        d = first + timedelta(days=i)
        reviews, seconds = found.get(d, (0, 0.0))
        out.append({"date": d, "reviews": reviews, "seconds": seconds})
    return out

"""FSRS-6 glue around the ``fsrs`` package (never re-implemented here).

``fsrs`` wants datetimes whose tzinfo is exactly ``datetime.timezone.utc``; SQLite hands back naive
ones (SQLModel's ``UTCDateTime`` column type restores UTC, older SQLModel versions do not). So every
value read from the database goes through :func:`as_utc`, and every value written through :func:`to_db`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from fsrs import Card, Rating, Scheduler

RATING_LABELS = {1: ("重来", "Again"), 2: ("困难", "Hard"), 3: ("良好", "Good"), 4: ("简单", "Easy")}


class InvalidRating(ValueError):
    def __init__(self, value: object) -> None:
        self.value = value
        super().__init__(f"rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy); got {value!r}")


def as_utc(dt: datetime) -> datetime:
    """The same instant with ``tzinfo=timezone.utc``; a naive value is taken to be UTC already."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def to_db(dt: datetime) -> datetime:
    """Aware UTC for a bind parameter (stored as UTC whatever the backend)."""
    return as_utc(dt)


def now_utc() -> datetime:
    return datetime.now(UTC)


def parse_rating(value: object) -> Rating:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (1, 2, 3, 4):
        raise InvalidRating(value)
    return Rating(value)


@lru_cache(maxsize=64)
def _scheduler(parameters: tuple[float, ...] | None, desired_retention: float, fuzz: bool) -> Scheduler:
    if parameters is None:
        return Scheduler(desired_retention=desired_retention, enable_fuzzing=fuzz)
    return Scheduler(parameters=parameters, desired_retention=desired_retention, enable_fuzzing=fuzz)


def make_scheduler(*, parameters: list[float] | None = None, desired_retention: float = 0.9,
                   fuzz: bool = True) -> Scheduler:
    """A (cached, stateless) scheduler for a user's parameters and retention; defaults are FSRS-6's."""
    return _scheduler(tuple(parameters) if parameters else None, round(desired_retention, 4), fuzz)


def review(card: Card, rating: Rating, *, when: datetime, scheduler: Scheduler,
           duration_ms: int | None = None) -> Card:
    new_card, _log = scheduler.review_card(card, rating, review_datetime=as_utc(when),
                                           review_duration=duration_ms)
    return new_card


def day_start(now: datetime) -> datetime:
    """Midnight UTC of ``now``'s day (a user's day is the UTC day)."""
    return as_utc(now).replace(hour=0, minute=0, second=0, microsecond=0)

"""What each grade would do: the interval the ``fsrs`` scheduler gives for Again / Hard / Good / Easy from a
state, as the quiz's four buttons show it ("10 min · 1 d · 3 d · 8 d").

The preview runs the same scheduler as grading, without interval fuzzing: an answer (fuzzed to spread
reviews over days) may land a day or so away from a preview of more than a few days.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fsrs import Card, Rating, Scheduler

from app.srs.scheduler import as_utc, review
from app.srs.state import StateRow, fsrs_card


def intervals(item_id: int, state: dict[str, Any] | None, scheduler: Scheduler, now: datetime) -> dict[int, int]:
    """Seconds until the item would be due after each rating 1-4, from ``state`` (the ``ItemState``
    columns; None: a new item)."""
    card: Card = fsrs_card(item_id, StateRow.of(state) if state is not None else None)
    when = as_utc(now)
    out = {}
    for rating in Rating:
        after = review(card, rating, when=when, scheduler=scheduler)
        out[int(rating)] = max(0, round((after.due - when).total_seconds()))
    return out


def label(seconds: int) -> str:
    """An interval the way Anki writes it on its buttons: "<1 min", "10 min", "3 h", "1 d", "1.5 mo", "2 y"."""
    minutes = seconds / 60
    if minutes < 1:
        return "<1 min"
    if minutes < 60:
        return f"{round(minutes)} min"
    hours = minutes / 60
    if hours < 24:
        return f"{round(hours)} h"
    days = hours / 24
    if days < 30:
        return f"{round(days)} d"
    if days < 365:
        return f"{days / 30:.1f} mo".replace(".0 ", " ")
    return f"{days / 365:.1f} y".replace(".0 ", " ")

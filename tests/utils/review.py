"""Driving the production review engine (``app.review.engine.ReviewEngine``) from synchronous tests.

Each call runs the engine's async method to completion on a fresh event loop, as a request would on the
server's loop: the same queues, group commit, grading and clock bumps that ``/api/review`` uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.engine import Engine

from app.models.user import UserSettings
from app.review.engine import ReviewEngine
from app.srs.prefs import Prefs

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``; from a thread that already runs a loop (Playwright's sync API), on a fresh thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def review_engine(db: Engine, *, fuzz: bool = True) -> ReviewEngine:
    """A review engine on ``db``, with the listeners ``create_app`` installs on ``db``'s sessionmaker."""
    return ReviewEngine(db, fuzz=fuzz).install()


def engine_next(db: Engine, user_id: int, now: datetime, prefs: Prefs | None = None) -> dict[str, Any]:
    """``GET /api/review/next`` for ``user_id`` at ``now`` (``prefs`` None: the user's stored settings)."""
    return _run(review_engine(db).next(user_id, prefs, now))


def engine_answer(db: Engine, user_id: int, *, item_id: int, rating: object = None, typed_answer: str | None = None,
                  showing_id: int | None = None, duration_ms: int | None = None,
                  idempotency_key: str | None = None, now: datetime, fuzz: bool = True,
                  settings: UserSettings | Prefs | None = None) -> dict[str, Any]:
    """``POST /api/review`` for ``user_id``: graded and committed by the engine's group commit."""
    prefs = settings if isinstance(settings, Prefs) or settings is None else Prefs.of(settings)
    engine = review_engine(db, fuzz=fuzz)
    return _run(engine.answer(user_id, item_id, rating=rating, typed=typed_answer, showing_id=showing_id,
                                     duration_ms=duration_ms, key=idempotency_key, prefs=prefs, now=now))

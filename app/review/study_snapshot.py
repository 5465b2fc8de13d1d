"""One user's review state as a handbook export embeds it (:class:`app.export.study.UserStudyState`).

Read through the review engine's own queue (``app.review.queue``, language "both": every live state), so
the states, today's new and review counts and the day are exactly those ``GET /api/review/next`` works
from; holds are read with their end (a buried item comes back the next day in the handbook too).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import or_
from sqlmodel import col, select

from app.cards.schema import CardDoc
from app.core.db import new_session
from app.export.study import StudyDeck, UserStudyState, study_deck
from app.models.deck import deck_id
from app.models.hold import ItemHold
from app.models.user import User
from app.review.engine import ReviewEngine
from app.srs.scheduler import as_utc, now_utc, to_db
from app.srs.state import StateRow


def user_study_state(engine: ReviewEngine, user: User, now: datetime | None = None) -> UserStudyState:
    assert user.id is not None
    now = as_utc(now or now_utc())
    prefs = engine.prefs(user.id)
    q = engine.queues.get(user.id, "both", now, prefs)
    with new_session(engine.db) as session:
        holds = session.exec(select(ItemHold).where(
            ItemHold.user_id == user.id, or_(col(ItemHold.until).is_(None), col(ItemHold.until) > to_db(now)))).all()
    return UserStudyState(
        user_id=user.id, username=user.username, now=now, prefs=prefs,
        states={item_id: StateRow(*row) for item_id, row in q.states.items()},
        held={h.item_id: as_utc(h.until) if h.until is not None else None for h in holds},
        new_today=q.new_today, reviews_today=q.reviews_today)


def handbook_study(engine: ReviewEngine, docs: Sequence[CardDoc], user: User | None = None,
                   now: datetime | None = None) -> StudyDeck:
    """The study data of a handbook of ``docs`` (with ``user``'s state when given)."""
    state = user_study_state(engine, user, now) if user is not None else None
    deck = deck_id(engine.db)
    with new_session(engine.db) as session:
        return study_deck(session, deck, docs, state)

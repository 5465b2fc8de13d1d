"""Fit a user's FSRS parameters to their own review log with ``fsrs.Optimizer`` (needs torch).

CLI only (``proofdeck srs optimize USER``), never in the request path: torch is imported lazily here,
and the web server never imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import col, select

from app.core.db import new_session
from app.models.review import ReviewLog
from app.models.user import User, UserSettings
from app.srs.scheduler import as_utc, now_utc, to_db

MIN_REVIEWS = 512  # fsrs returns its defaults below about this many reviews on distinct days


class NotEnoughReviews(ValueError):
    def __init__(self, username: str, have: int, need: int = MIN_REVIEWS) -> None:
        self.have, self.need = have, need
        super().__init__(f"user {username!r} has {have} reviews; the optimiser needs at least {need} "
                         "(spread over different days). Keep reviewing and run it again.")


class UnknownUser(ValueError):
    def __init__(self, username: str) -> None:
        super().__init__(f"no user named {username!r}; list users with GET /api/users or add one with "
                         "`proofdeck user add NAME`")


@dataclass(frozen=True)
class OptimizeResult:
    username: str
    reviews: int
    parameters: list[float]


def optimize_user(engine: Engine, username: str, *, min_reviews: int = MIN_REVIEWS) -> OptimizeResult:
    with new_session(engine) as session:
        user = session.exec(select(User).where(User.username == username)).first()
        if user is None or user.id is None:
            raise UnknownUser(username)
        logs = session.exec(select(ReviewLog).where(ReviewLog.user_id == user.id)
                            .order_by(col(ReviewLog.reviewed_at), col(ReviewLog.id))).all()
        user_id = user.id
    if len(logs) < min_reviews:
        raise NotEnoughReviews(username, len(logs), min_reviews)

    from fsrs import Optimizer, Rating  # the optimizer pulls in torch
    from fsrs import ReviewLog as FsrsLog

    fsrs_logs = [FsrsLog(card_id=log.item_id, rating=Rating(log.rating), review_datetime=as_utc(log.reviewed_at),
                         review_duration=log.duration_ms) for log in logs]
    parameters = [float(p) for p in Optimizer(fsrs_logs).compute_optimal_parameters()]
    store_parameters(engine, user_id, parameters, len(logs))
    return OptimizeResult(username, len(logs), parameters)


def store_parameters(engine: Engine, user_id: int, parameters: list[float], reviews: int) -> None:
    """Keep a fit as the user's scheduler parameters, with how many reviews it saw and when."""
    with new_session(engine) as session, session.begin():
        st = session.get(UserSettings, user_id) or UserSettings(user_id=user_id)
        st.parameters, st.optimized_reviews, st.optimized_at = parameters, reviews, to_db(now_utc())
        session.add(st)

"""What the review API refuses, and why: each error carries its HTTP status and a message that says how to fix it."""

from __future__ import annotations

from datetime import datetime

from app.srs.scheduler import as_utc


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


class BadSettings(ReviewError):
    """A review setting out of its range (``app.core.vocab``)."""

    status = 422


class NothingToUndo(ReviewError):
    """No answer of today left to undo (or the one named is not the latest)."""

    status = 409

    def __init__(self, message: str = "") -> None:
        super().__init__(message or "nothing to undo: you have no answer left from today "
                                    "(undo works within the day of the answer)")

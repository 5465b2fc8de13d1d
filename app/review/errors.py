"""What the review API refuses, and why: each error carries its HTTP status and a message that says how to fix it.

A subclass is one line: its status and the message template, filled with the positional arguments it is
raised with (``NotDue(item_id, due)``); datetimes appear in ISO 8601 UTC.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from app.srs.scheduler import as_utc


def _shown(value: object) -> object:
    return as_utc(value).isoformat() if isinstance(value, datetime) else value


class ReviewError(Exception):
    """Base of the refusals: ``status`` is the HTTP status, ``template`` the message (``{0}``, ``{1}`` ...:
    the arguments; the default shows the one message given)."""

    status: ClassVar[int] = 400
    template: ClassVar[str] = "{0}"

    def __init__(self, *args: object) -> None:
        super().__init__(self.template.format(*(_shown(a) for a in args)))


class ItemNotFound(ReviewError):
    status, template = 404, "review item {0} does not exist (or its card was retired)"


class NotDue(ReviewError):
    status, template = 409, "review item {0} is not due until {1}; GET /api/review/next for what is due"


class BadAnswer(ReviewError):
    status = 422


class ShowingNotFound(ReviewError):
    status, template = 404, ("drill showing {0} of item {1} not found; "
                             "answer the showing_id that GET /api/review/next gave you")


class ShowingUsed(ReviewError):
    status, template = 409, "drill showing {0} was already answered; GET /api/review/next for fresh numbers"


class KeyReused(ReviewError):
    status, template = 422, "Idempotency-Key {0!r} was already used for review item {1}; use a new key per answer"


class BadSettings(ReviewError):
    """A review setting out of its range (``app.core.vocab``)."""

    status = 422


class NothingToUndo(ReviewError):
    """No answer of today left to undo (or the one named is not the latest)."""

    status = 409

    def __init__(self, message: str = "") -> None:
        super().__init__(message or "nothing to undo: you have no answer left from today "
                                    "(undo works within the day of the answer)")

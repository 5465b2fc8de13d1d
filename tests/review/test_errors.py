"""The review refusals: each says its HTTP status and what to do, from the one base class's template."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.review import errors


@pytest.mark.parametrize(("error", "status", "says"), [
    (errors.ItemNotFound(7), 404, "review item 7 does not exist (or its card was retired)"),
    (errors.NotDue(3, datetime(2026, 1, 2, 3, 4, 5)), 409,
     "review item 3 is not due until 2026-01-02T03:04:05+00:00; GET /api/review/next for what is due"),
    (errors.ShowingNotFound(9, 4), 404, "drill showing 9 of item 4 not found; answer the showing_id"),
    (errors.ShowingUsed(9), 409, "drill showing 9 was already answered; GET /api/review/next for fresh numbers"),
    (errors.KeyReused("k1", 5), 422, "Idempotency-Key 'k1' was already used for review item 5; use a new key"),
    (errors.BadAnswer("duration_ms must be between 0 and 86400000; got -1"), 422, "duration_ms must be between"),
    (errors.BadSettings("new_per_day must be 0-9999"), 422, "new_per_day must be 0-9999"),
])
def test_each_refusal_has_its_status_and_a_message_that_says_what_to_do(error: errors.ReviewError, status: int,
                                                                         says: str) -> None:
    assert isinstance(error, errors.ReviewError)
    assert error.status == status
    assert str(error).startswith(says)


def test_a_message_with_braces_is_shown_as_given() -> None:
    # a free-text refusal is an argument of the template, never a template itself
    assert str(errors.BadAnswer("expected {x}")) == "expected {x}"

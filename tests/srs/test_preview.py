"""Interval labels as the grade buttons show them, and the preview's order for a new item."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.srs.preview import intervals, label
from app.srs.scheduler import make_scheduler


@pytest.mark.parametrize(("seconds", "text"), [(30, "<1 min"), (60, "1 min"), (600, "10 min"), (3 * 3600, "3 h"),
                                               (86_400, "1 d"), (8 * 86_400, "8 d"), (45 * 86_400, "1.5 mo"),
                                               (60 * 86_400, "2 mo"), (730 * 86_400, "2 y")])
def test_labels(seconds: int, text: str) -> None:
    assert label(seconds) == text


def test_a_new_item_previews_learning_steps_then_days() -> None:
    now = datetime(2026, 3, 1, 8, tzinfo=UTC)
    out = intervals(1, None, make_scheduler(fuzz=False), now)
    assert list(out) == [1, 2, 3, 4]
    assert out[1] == 60 and out[3] == 600  # FSRS's default learning steps: 1 min, 10 min
    assert out[4] >= 86_400  # easy skips the steps

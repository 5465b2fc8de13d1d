"""Typed numbers as people type them: decimal commas, Chinese forms, and a question when it reads two ways."""

from __future__ import annotations

import pytest

from app.items import drills
from app.items.answers import AnswerError, parse_number


@pytest.mark.parametrize(("typed", "value"), [
    ("2,29", 2.29),  # read as 229 before: two digits after a comma cannot be a thousands group
    ("12,5", 12.5), ("0,125", 0.125), ("1234,567", 1234.567), (",5", 0.5),
    ("1,234.5", 1234.5), ("1.234,5", 1234.5), ("1,234,567", 1234567), ("1.234.567", 1234567),
    ("16.64", 16.64), ("-3.5e2", -350), ("1_000", 1000),
    ("12 层", 12), ("12层", 12), ("12。0", 12), ("１２．５", 12.5), ("１２，５", 12.5), ("约 12", 12),
    ("24.5 GB", 24.5), ("30%", 30), ("7 layers", 7), ("≈ 3,5 s", 3.5),
])
def test_accepted_forms(typed: str, value: float) -> None:
    assert parse_number(typed) == pytest.approx(value)


@pytest.mark.parametrize(("typed", "readings"), [("1,234", (1234, 1.234)), ("12,500 GB", (12500, 12.5)),
                                                 ("１，２３４", (1234, 1.234))])
def test_ambiguous_comma_is_asked_about_in_both_languages(typed: str, readings: tuple[float, float]) -> None:
    with pytest.raises(AnswerError) as caught:
        parse_number(typed)
    exc = caught.value
    assert exc.readings == pytest.approx(readings)
    assert "reads two ways" in exc.en and f"Type {readings[0]:g} or {readings[1]:g}" in exc.en
    assert "两种读法" in exc.zh and f"请输入 {readings[0]:g} 或 {readings[1]:g}" in exc.zh
    assert str(exc).splitlines() == [exc.en, exc.zh]  # the quiz shows the learner's language's line


@pytest.mark.parametrize("typed", ["", "abc", "12,", "1,2,3", "1,23,456", "1.2.3", "1,234.5.6", "nan", "1e400",
                                   "GB", "12 34"])
def test_non_numbers_are_refused(typed: str) -> None:
    with pytest.raises(AnswerError, match="not a (finite )?number"):
        parse_number(typed)


def test_a_decimal_comma_answer_is_graded_right() -> None:
    params = {"key": "memory-zero2", "psi": 7.5e9, "n": 64}  # 16.640625 GB
    assert drills.grade(params, "16,64").correct
    assert drills.grade(params, "16,64 GB").correct and drills.grade(params, "１６．６４").correct
    with pytest.raises(drills.DrillError, match="reads two ways"):
        drills.grade(params, "16,640")

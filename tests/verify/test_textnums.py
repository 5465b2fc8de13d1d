"""Matching what a card's text states against an assertion's values (``verify.reading.textnums.matches``): equal, or
within the rounding of the number as written (half a unit of its last digit, both ends included)."""

from __future__ import annotations

import pytest
import sympy as sp

from verify.known.vocabulary import SYMBOLS
from verify.reading.textnums import Stated, Statement, matches, statements


def _one(text: str) -> Statement:
    got = statements(text)
    assert len(got) == 1, got
    return got[0]


R = sp.Rational


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("cuts it by 33%", [R(1, 3)], True),            # 0.33 is 1/3 to two digits (|Δ| = 1/300 ≤ 1/200)
    ("cuts it by 34%", [R(1, 3)], False),           # |Δ| = 1/150
    ("50% more", [R(3, 2)], True),                  # a percent may be the increase
    ("about $0.5$ of it", [R(11, 20)], True),       # |0.5 − 0.55| = 0.05: the window's edge is included
    ("about $0.5$ of it", [R(5501, 10000)], False), # just outside
    ("2× the bytes", [R(2)], True),
    ("2× the bytes", [R(12, 5)], False),            # a whole number is not rounded: 2 is not 2.4
    ("1.5× the bytes", [R(7, 5), R(3, 2), R(8)], True),
    ("1.5× the bytes", [sp.sqrt(2), R(8)], False),  # an irrational value goes through sympy
    ("1.4× the bytes", [sp.sqrt(2)], True),         # |1.4 − √2| < 0.05
    ("needs 256GB", [R(256)], True),                # as written in GB
    ("needs 256GB", [R(256 * 10**9)], True),        # or in bytes
    ("needs 256GB", [R(192 * 10**9)], False),
    ("$16\\Psi$ per rank", [16 * SYMBOLS["Psi"]], True),
    ("$16\\Psi$ per rank", [12 * SYMBOLS["Psi"], R(16)], False),
])
def test_matches_within_the_written_rounding(text: str, values: list[sp.Expr], expected: bool) -> None:
    assert matches(_one(text), Stated(values)) is expected


def test_a_prepared_assertion_keeps_its_values_apart() -> None:
    stated = Stated([R(3, 2), sp.sqrt(2), R(3, 2), 16 * SYMBOLS["Psi"]])
    assert [str(f) for f in stated.exact] == ["3/2"]  # deduplicated, sorted fractions
    assert stated.inexact == [sp.sqrt(2), 16 * SYMBOLS["Psi"]]

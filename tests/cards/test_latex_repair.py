"""LaTeX repair: backslashes come back inside math only, for known commands used as commands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cards.latex_repair import repair_math, repair_tex
from app.render.markdown import math_spans
from app.render.math import tex_to_mathml


@pytest.mark.parametrize(
    ("broken", "repaired"),
    [
        ("$4times$", "$4\\times$"),
        ("$Psi$", "$\\Psi$"),
        ("$frac{12Psi}{N}$", "$\\frac{12\\Psi}{N}$"),
        ("$$text{ZeRO-1}: text{shard optimizer};quad text{ZeRO-2}$$",
         "$$\\text{ZeRO-1}: \\text{shard optimizer};\\quad \\text{ZeRO-2}$$"),
        ("$P_{text{os+g}}$", "$P_{\\text{os+g}}$"),
        ("$Psi / N$", "$\\Psi / N$"),
        ("$left( a right)$", "$\\left( a \\right)$"),
        ("$a le b to infty$", "$a \\le b \\to \\infty$"),
        ("$sqrt[3]{x} cdot alpha$", "$\\sqrt[3]{x} \\cdot \\alpha$"),
    ],
)
def test_known_commands_regain_their_backslash(broken: str, repaired: str) -> None:
    assert repair_math(broken) == repaired


def test_words_outside_math_are_untouched() -> None:
    prose = "Use text from left to right, times two; the frac and Psi words stay. $2times$ only."
    assert repair_math(prose) == prose.replace("$2times$", "$2\\times$")


def test_text_argument_is_prose() -> None:
    assert repair_tex("text{left to right times Psi}") == "\\text{left to right times Psi}"
    assert repair_tex("\\text{quad frac{x}}") == "\\text{quad frac{x}}"


def test_not_commands_stay() -> None:
    # argument commands need their brace, delimiters need a delimiter, unknown runs stay
    assert repair_tex("text + frac + left + right") == "text + frac + left + right"
    assert repair_tex("Psiq + fp16 + N_{max}") == "Psiq + fp16 + N_{\\max}"


def test_idempotent_and_correct_tex_unchanged() -> None:
    correct = "$$2\\Psi + \\frac{2\\Psi}{N} + \\frac{12\\Psi}{N} \\quad \\text{left}$$ and $\\left(x\\right)$"
    assert repair_math(correct) == correct
    once = repair_math("$frac{16Psi}{N}$, $4times$, $$text{a};quad b$$")
    assert repair_math(once) == once


def test_escaped_dollar_and_unclosed_math() -> None:
    assert repair_math("costs \\$5 times two") == "costs \\$5 times two"
    assert repair_math("a $ lonely times") == "a $ lonely times"
    assert repair_math("two\nlines $times\n$ no") == "two\nlines $times\n$ no"


def test_repaired_formulas_convert_to_mathml() -> None:
    for tex in ("frac{12Psi}{N}", "2Psi + 2Psi + 12Psi = 16Psi", "P_{text{os+g+p}}",
                "text{ZeRO-1}: text{shard optimizer};quad text{ZeRO-2}: +text{grad}"):
        assert "<math" in tex_to_mathml(repair_tex(tex))


@pytest.mark.parametrize("prose", [
    "GPUs cost $5 to $6 an hour",
    "from $20,000 and $30,000 in a year",
    "between $5 and 6$7 a min, le max",
    "$ 5 to 6 $",
    "pay $5 in cash, or $6 min",
    "it costs $x to$5 per hour",
])
def test_prices_are_prose_not_math(prose: str) -> None:
    assert repair_math(prose) == prose
    assert math_spans(prose) == []  # the renderer agrees: no formula in it


def test_math_next_to_prices_is_still_repaired() -> None:
    text = "costs $5 to $6, while $a to b$ and $Psi in S$ are math"
    assert repair_math(text) == "costs $5 to $6, while $a \\to b$ and $\\Psi \\in S$ are math"


# Prose and math mixed at random: dollars, digits, spaces, words that are TeX commands, escaped dollars.
_PIECES = st.sampled_from(["$", "$5", "$6", "5$", " ", " ", "to", "in", "le", "min", "max", "x", "Psi",
                           "cost", "2", ",", "\\$", "times", "an hour"])
_LINES = st.lists(_PIECES, max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_the_importer_repairs_exactly_the_formulas_the_renderer_shows(line: str) -> None:
    repaired = repair_math(line)
    shown = math_spans(line)
    assert math_spans(repaired) == [(repair_tex(tex), display) for tex, display in shown]
    if not shown:
        assert repaired == line  # prose: not one character changed
    assert repaired.replace("\\", "") == line.replace("\\", "")  # only backslashes are ever added

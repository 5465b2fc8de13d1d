"""LaTeX repair: backslashes come back inside math only, for known commands used as commands."""

from __future__ import annotations

import pytest

from app.cards.latex_repair import repair_math, repair_tex
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

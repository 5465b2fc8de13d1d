"""Formulas become MathML on the server; unknown commands and malformed TeX fall back to the TeX."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from app.deck.sync import sync_cards
from app.render.markdown import math_spans, render_markdown
from app.render.math import MATHML_NS, MathError, math_problems, render_math, tex_to_mathml
from tests.utils.cards import make_card, write_cards

M = f"{{{MATHML_NS}}}"


def parse(mathml: str) -> ET.Element:
    return ET.fromstring(mathml)


def test_formula_becomes_mathml_in_the_mathml_namespace() -> None:
    root = parse(tex_to_mathml(r"\frac{12\Psi}{N_d}"))
    assert root.tag == f"{M}math"
    assert root.get("display") == "inline"
    frac = root.find(f".//{M}mfrac")
    assert frac is not None
    assert [e.text for e in frac.iter() if e.text] == ["12", "Ψ", "N", "d"]


def test_display_math_is_a_block() -> None:
    html = render_markdown("$$\n\\sum_{i=1}^{N} x_i\n$$")
    assert html.startswith('<div class="math-block"><math display="block" xmlns="http://www.w3.org/1998/Math/MathML">')


def test_inline_math_inside_chinese_text() -> None:
    html = render_markdown(r"显存约 $16\Psi$ 字节。")
    assert html.startswith("<p>显存约 <math display=\"inline\"")
    assert "<mn>16</mn><mi mathvariant=\"normal\">Ψ</mi>" in html and html.endswith("</math> 字节。</p>\n")


def test_character_references_become_characters_and_are_escaped_once() -> None:
    assert "<mo>&lt;</mo>" in tex_to_mathml("a < b")
    assert "<mo>=</mo>" in tex_to_mathml("a = b")
    assert "<mi>&amp;</mi>" in tex_to_mathml(r"a \& b")


@pytest.mark.parametrize("tex, text", [
    (r"\text{<b>bold</b>}", "<b>bold</b>"),
    (r"\text{a < b & c}", "a < b & c"),
    (r'\text{" onmouseover="x}', '" onmouseover="x'),
])
def test_text_in_math_is_text_not_markup(tex: str, text: str) -> None:
    root = parse(tex_to_mathml(tex))
    # latex2mathml keeps spaces in \text as no-break spaces
    assert [(e.text or "").replace("\xa0", " ") for e in root.iter(f"{M}mtext")] == [text]
    assert [e.tag for e in root.iter()] == [f"{M}math", f"{M}mrow", f"{M}mtext"]


@pytest.mark.parametrize("tex, reason", [
    (r"\foo", r"unknown command \foo"),
    (r"x + \foo{y}", r"unknown command \foo"),
    (r"\text{\foo}", r"unknown command \foo"),
    (r"\href{javascript:alert(1)}{x}", "unsupported attribute 'href'"),
    (r"\style{color:red}{x}", "unsupported attribute 'style'"),
    (r"\color{javascript:alert(1)}{x}", "unsupported value 'javascript:alert(1)' for attribute 'mathcolor'"),
    ("a & b", "'&' outside a matrix or align environment (write \\& for an ampersand)"),
    ("  ", "empty formula"),
])
def test_what_cannot_be_shown_says_why(tex: str, reason: str) -> None:
    with pytest.raises(MathError) as err:
        tex_to_mathml(tex)
    assert str(err.value) == reason


def test_malformed_tex_is_a_math_error() -> None:
    with pytest.raises(MathError, match=r"^malformed TeX \("):
        tex_to_mathml(r"\frac{1}{")


def test_fallback_shows_the_escaped_tex_with_the_reason() -> None:
    assert render_math(r"\foo < 1") == (
        '<code class="math-fallback" title="unknown command \\foo">$\\foo &lt; 1$</code>')
    assert render_math(r"\frac{1}{", display=True).startswith('<pre class="math-fallback" title="malformed TeX (')
    assert render_math(r"\frac{1}{", display=True).endswith(">$$\\frac{1}{$$</pre>")


def test_fallback_inside_markdown() -> None:
    html = render_markdown(r"ok $x^2$ and bad $\foo$ and broken $\frac{1}{$.")
    assert html.count("<math ") == 1
    assert '<code class="math-fallback" title="unknown command \\foo">$\\foo$</code>' in html
    assert '<code class="math-fallback" title="malformed TeX (' in html and ">$\\frac{1}{$</code>" in html


@pytest.mark.parametrize("tex", [
    r"2\Psi + 2\Psi + \frac{12\Psi}{N_d}", r"a\,b\quad c", r"\lceil x \rceil", r"\mathbb{E}[x]",
    r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{aligned}a&=b\\c&=d\end{aligned}",
    r"\text{A}\\ B", r"\xrightarrow{f}", r"\sqrt[3]{x}", r"\left(\frac{a}{b}\right)", r"1.5\times",
    r"x_{\text{shard}}", r"\underbrace{a+b}_{n}", r"\operatorname{argmax}_x f", r"50\%",
])
def test_common_card_formulas_render_as_mathml(tex: str) -> None:
    assert parse(tex_to_mathml(tex)).tag == f"{M}math"


def test_aligned_renders_as_an_aligned_table_without_stray_ampersands() -> None:
    root = parse(tex_to_mathml(r"\begin{aligned}a&=b\\c&=d\end{aligned}"))
    assert len(root.findall(f".//{M}mtr")) == 2
    assert all(e.text != "&" for e in root.iter())


def test_dollar_amounts_are_not_math() -> None:
    assert render_markdown("costs $5 and $6 per hour") == "<p>costs $5 and $6 per hour</p>\n"
    assert math_spans(r"costs $5 and $6, memory $16\Psi$") == [(r"16\Psi", False)]


def test_code_spans_are_not_math() -> None:
    assert render_markdown("`$x$`") == "<p><code>$x$</code></p>\n"
    assert math_spans("`$x$` and\n\n```\n$$y$$\n```") == []


def test_math_problems_lists_each_bad_formula_with_its_reason() -> None:
    problems = math_problems(r"$\Psi$, $\foo$ and $$\frac{1}{$$")
    assert problems[0] == (r"\foo", r"unknown command \foo")
    assert problems[1][0] == r"\frac{1}{" and problems[1][1].startswith("malformed TeX")
    assert len(problems) == 2


def test_sync_lists_formulas_shown_as_tex(engine: Engine, tmp_path: Path) -> None:
    folder = write_cards(tmp_path / "deck", make_card(
        "bad-math",
        sections={"summary": {"zh": r"好 $\Psi$，坏 $\foo$", "en": r"broken $\frac{1}{$"}},
        follow_ups=[{"id": "q1", "question": {"en": r"why $\bar$?"}, "answer": {"zh": r"$\nope$"}}],
        claims=[{"id": "c1", "text": {"en": r"costs $\weird{x}$"}, "unverifiable": "a made-up macro, no quantity"}],
    ))
    report = sync_cards(engine, folder)
    assert report.math_fallbacks[0] == r"bad-math: summary/zh: $\foo$: unknown command \foo"
    assert report.math_fallbacks[1].startswith(r"bad-math: summary/en: $\frac{1}{$: malformed TeX (")
    assert report.math_fallbacks[2].startswith(r"bad-math: follow-up q1/en: $\bar$: ")
    assert report.math_fallbacks[3] == r"bad-math: follow-up q1/zh: $\nope$: unknown command \nope"
    assert report.math_fallbacks[4] == r"bad-math: claim c1/en: $\weird{x}$: unknown command \weird"
    assert len(report.math_fallbacks) == 5

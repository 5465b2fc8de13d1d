"""Formulas that differ only in their digits share one TeX → MathML conversion (``tex_to_mathml``): the result
must be exactly the formula's own conversion, on every formula of the bundled deck, the bank-format cards, the
seed, the generated decks and formulas written to catch a digit put back in the wrong place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cards.rawformat import parse_raw_bytes
from app.deck.sync import load_deck
from app.render import math as m
from harness.deck import make_deck
from harness.deckgen import generated_card

ROOT = Path(__file__).resolve().parents[2]
FORMULA = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", re.S)
TRICKY = [r"x^12", r"x_{2}^{3}", r"x^{3}_{2}", r"\sqrt[3]{27}", r"\frac12 + \frac{10}{20}", r"10^{-24} \approx 5.96",
          r"\text{ref 42} + 7", r"\hspace{3pt} 5", r"\mathbb{1} + 2", r"\overset{2}{=} 3", r"\sum_{i=1}^{N} i^2",
          r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"2\Psi + 2\Psi + \frac{12\Psi}{N}", r"\frac{1}{"]


def _corpus() -> list[str]:
    texts = [t for s in load_deck(ROOT / "cards") for t in s.text.split("\n")]
    for path in [ROOT / "tests" / "cards" / "data" / "000_df0768db638cc9c5.txt",
                 *sorted((ROOT / "tests" / "cards" / "data" / "bank").glob("*/*.txt"))]:
        doc = parse_raw_bytes(path.read_bytes(), path.name).doc
        texts += [part for t in doc.sections.values() for part in (t.zh, t.en)]
    for doc in [*make_deck(12), *(generated_card(i, 12) for i in range(12))]:
        texts += [part for t in doc.sections.values() for part in (t.zh, t.en)]
    found = {(a or b).strip() for text in texts for a, b in FORMULA.findall(text)}
    return sorted(f for f in found if f)


def _direct(tex: str, display: bool) -> str:
    try:
        return m._convert(tex, display)
    except m.MathError as exc:
        return f"error: {exc}"


def _shared(tex: str, display: bool) -> str:
    try:
        return m.tex_to_mathml(tex, display)
    except m.MathError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("display", [False, True])
def test_a_shared_conversion_is_the_formulas_own(display: bool) -> None:
    corpus = _corpus() + TRICKY
    assert len(corpus) > 300
    m.tex_to_mathml.cache_clear()
    shared = sum(bool(m._DIGIT.search(t)) and not m._REORDERS.search(t) for t in corpus)
    assert shared > 150  # most formulas with digits take the shared path
    for tex in corpus:
        assert _shared(tex, display) == _direct(tex, display), tex


def test_formulas_differing_in_digits_convert_once() -> None:
    m.tex_to_mathml.cache_clear()
    m.shape_mathml.cache_clear()
    for i in range(15, 50):  # two digits, then three: one shape
        m.tex_to_mathml(rf"\frac{{16\Psi_{{{i}}}}}{{N}} + {i * 7}.5")
    assert m.shape_mathml.cache_info().misses == 1
    assert m.tex_to_mathml(r"\frac{16\Psi_{42}}{N} + 294.5") == m._convert(r"\frac{16\Psi_{42}}{N} + 294.5", False)
    assert m.shape_mathml.cache_info().misses == 1

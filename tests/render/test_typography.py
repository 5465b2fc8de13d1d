"""Math typography: capital Greek upright (TeX's convention, MathML would slant a lone <mi>), lowercase
Greek and Latin slanted; ``\\text{…}`` keeps its spaces and shows TeX-escaped characters as themselves."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from app.render.math import tex_to_mathml

M = "{http://www.w3.org/1998/Math/MathML}"


def _mi(tex: str) -> list[tuple[str, str | None]]:
    root = ET.fromstring(tex_to_mathml(tex))
    return [(e.text or "", e.get("mathvariant")) for e in root.iter(f"{M}mi")]


def test_capital_greek_is_upright_and_the_rest_is_not() -> None:
    assert _mi(r"16\Psi + \psi + \Delta x") == [("Ψ", "normal"), ("ψ", None), ("Δ", "normal"), ("x", None)]


def test_text_keeps_spaces_and_unescapes() -> None:
    root = ET.fromstring(tex_to_mathml(r"M = 16\Psi \text{ bytes per GPU, all\_reduce at 5\%}"))
    (text,) = [e.text for e in root.iter(f"{M}mtext")]
    assert text == "\xa0bytes\xa0per\xa0GPU,\xa0all_reduce\xa0at\xa05%"  # NBSP: MathML trims plain spaces

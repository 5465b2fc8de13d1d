"""TeX → MathML on the server (latex2mathml), with a safe fallback to the TeX source.

latex2mathml emits unknown commands silently as ``<mi>\\foo</mi>``, raises on malformed TeX, and
copies ``\\text{...}`` content and ``\\href`` targets into its output verbatim. Every result is
therefore parsed back and checked against an allow-list of MathML elements and attributes; anything
else falls back to showing the escaped TeX.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from html import escape

import latex2mathml.converter

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
ALLOWED_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder munderover "
    "mtable mtr mtd mstyle mpadded mphantom menclose mmultiscripts mprescripts none semantics "
    "annotation merror maligngroup malignmark mlabeledtr mfenced".split()
)
ALLOWED_ATTRIBUTES = frozenset(
    "xmlns display mathvariant mathsize mathcolor stretchy fence form width height depth lspace rspace "
    "columnalign rowalign columnspacing rowspacing columnlines rowlines frame framespacing accent "
    "accentunder movablelimits separator separators linethickness minsize maxsize symmetric largeop "
    "scriptlevel displaystyle notation open close equalrows equalcolumns align side minlabelspacing "
    "class encoding".split()
)
_UNKNOWN_COMMAND = re.compile(r"\\[A-Za-z]+")


class MathError(ValueError):
    """TeX that cannot be shown as MathML; the message says why."""


def _check(element: ET.Element) -> None:
    tag = element.tag.split("}", 1)[-1]
    if tag not in ALLOWED_ELEMENTS:
        raise MathError(f"unsupported element <{tag}>")
    for name in element.attrib:
        if name.split("}", 1)[-1] not in ALLOWED_ATTRIBUTES:
            raise MathError(f"unsupported attribute {name!r}")
    text = element.text or ""
    found = _UNKNOWN_COMMAND.search(text)
    if found:
        raise MathError(f"unknown command {found.group(0)}")
    for child in element:
        _check(child)


@lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool = False) -> str:
    """Return sanitised MathML for ``tex`` or raise :class:`MathError` saying why it cannot."""
    if not tex.strip():
        raise MathError("empty formula")
    try:
        raw = latex2mathml.converter.convert(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many types on malformed input
        raise MathError(f"malformed TeX ({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})") from None
    try:
        root = ET.fromstring(raw)
    except ET.ParseError:
        raise MathError("TeX produced markup that is not valid MathML") from None
    _check(root)
    ET.register_namespace("", MATHML_NS)
    return ET.tostring(root, encoding="unicode")


def render_math(tex: str, display: bool = False) -> str:
    """MathML for ``tex``, or the escaped TeX in a ``<code class="math-fallback">`` when it cannot."""
    try:
        return tex_to_mathml(tex, display)
    except MathError as exc:
        delim = "$$" if display else "$"
        tag = "pre" if display else "code"
        return (f'<{tag} class="math-fallback" title="{escape(str(exc))}">'
                f"{escape(delim + tex + delim)}</{tag}>")


def math_problems(markdown_text: str) -> list[tuple[str, str]]:
    """Every formula in a Markdown text that falls back to TeX, with the reason."""
    from app.render.markdown import math_spans

    out = []
    for tex, display in math_spans(markdown_text):
        try:
            tex_to_mathml(tex, display)
        except MathError as exc:
            out.append((tex, str(exc)))
    return out

"""TeX → MathML on the server (latex2mathml), with a safe fallback to the TeX source.

latex2mathml has three habits this module guards against:

- unknown commands come out silently as ``<mi>\\foo</mi>``;
- malformed TeX (``\\frac{1}{``) raises, with many exception types;
- its string output is *unescaped* after serialisation, so ``\\text{<b>}`` or ``a & b`` would be
  copied into the markup verbatim, and ``\\href`` targets become attributes.

So we never use its string output: we take the element tree (``convert_to_element``), check every
element and attribute against an allow-list (attribute values against a plain-token pattern), turn
its ``&#x...;`` character references into characters, and serialise it ourselves with escaping.
Anything that fails a check falls back to the escaped TeX source in ``<code class="math-fallback">``.
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
    "display mathvariant mathsize mathcolor stretchy fence form width height depth lspace rspace voffset "
    "columnalign rowalign columnspacing rowspacing columnlines rowlines frame framespacing accent "
    "accentunder movablelimits separator separators linethickness minsize maxsize symmetric largeop "
    "scriptlevel displaystyle notation open close equalrows equalcolumns align side minlabelspacing "
    "linebreak encoding".split()
)
# Attribute values are plain tokens: words, lengths ("-.2em", "+0.833em"), colours ("#a0a0ff"), lists.
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9 .#%+\-]*$")
_UNKNOWN_COMMAND = re.compile(r"\\[A-Za-z]+")
_CHAR_REF = re.compile(r"&#(x[0-9A-Fa-f]+|[0-9]+);")
# Environments latex2mathml lacks, mapped to one it renders the same way.
_ENV_ALIASES = {"aligned": "split", "alignedat": "split"}
_ENV = re.compile(r"\\(begin|end)\{(" + "|".join(_ENV_ALIASES) + r")\}")


class MathError(ValueError):
    """TeX that cannot be shown as MathML; the message says why."""


_TEXT_ESCAPE = re.compile(r"\\([_%&#$}{])")
_CAPITAL_GREEK = re.compile("[\u0391-\u03a9]")


def _char(match: re.Match[str]) -> str:
    ref = match.group(1)
    code = int(ref[1:], 16) if ref[0] in "xX" else int(ref)
    try:
        return chr(code)
    except (ValueError, OverflowError):
        raise MathError(f"invalid character reference &#{ref};") from None


def _clean(source: ET.Element, parent: ET.Element | None) -> ET.Element:
    """A checked copy of latex2mathml's element (its text holds ``&#x..;`` references as strings)."""
    tag = source.tag
    if tag not in ALLOWED_ELEMENTS:
        raise MathError(f"unsupported element <{tag}>")
    attrib: dict[str, str] = {}
    for name, value in source.attrib.items():
        if name == "xmlns" and tag == "math":
            continue
        if name not in ALLOWED_ATTRIBUTES:
            raise MathError(f"unsupported attribute {name!r}")
        if not _SAFE_VALUE.match(value):
            raise MathError(f"unsupported value {value!r} for attribute {name!r}")
        attrib[name] = value
    element = ET.Element(tag, attrib) if parent is None else ET.SubElement(parent, tag, attrib)
    text = source.text or ""
    found = _UNKNOWN_COMMAND.search(text)
    if found:
        raise MathError(f"unknown command {found.group(0)}")
    if text == "&":
        raise MathError("'&' outside a matrix or align environment (write \\& for an ampersand)")
    if text:
        element.text = _CHAR_REF.sub(_char, text)
        if tag == "mtext":  # \text{all\_reduce}: TeX's escaped characters are the characters themselves
            element.text = _TEXT_ESCAPE.sub(r"\1", element.text)
        elif tag == "mi" and "mathvariant" not in attrib and _CAPITAL_GREEK.fullmatch(element.text):
            element.set("mathvariant", "normal")  # Ψ, Δ upright, as TeX sets capital Greek (MathML would slant it)
    for child in source:
        _clean(child, element)
    return element


@lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool = False) -> str:
    """Return sanitised MathML for ``tex`` or raise :class:`MathError` saying why it cannot.

    Formulas that differ only in their digits (``16\\Psi_{0}`` and ``16\\Psi_{1}`` on two cards) share one
    conversion: the formula with every digit 0 is converted once (:func:`shape_mathml`) and the digits are
    put back, in order, into its text. A digit's value never changes how TeX is read, so the result is the
    conversion's own; where the digits could come out in another order (sub- before superscript, a root's
    index, over/under sets) or some digit does not reach the text, the formula is converted by itself."""
    if not tex.strip():
        raise MathError("empty formula")
    digits = _DIGIT.findall(tex)
    if digits and not _REORDERS.search(tex):
        try:
            shaped = _with_digits(shape_mathml(_DIGIT.sub("0", tex), display), digits)
        except MathError:
            shaped = None
        if shaped is not None:
            return shaped
    return _convert(tex, display)


_DIGIT = re.compile(r"[0-9]")
# TeX whose digits MathML may write in another order: x^{2}_{1} (msubsup puts the subscript first), a root's
# index, stacked and scripted operators.
_REORDERS = re.compile(r"\^[^_]*_|\\(?:sqrt\s*\[|overset|underset|stackrel|sideset|prescript|overbrace|underbrace"
                       r"|x(?:left|right)arrow|substack|limits|nolimits|tag|label|ref|eqref)")
_TEXT = re.compile(r"(<[^>]*>)")


@lru_cache(maxsize=1024)
def shape_mathml(shape: str, display: bool) -> str:
    return _convert(shape, display)


def _with_digits(mathml: str, digits: list[str]) -> str | None:
    """``mathml`` of the all-zero formula with its text's zeros replaced by ``digits`` in order (outside tags),
    or ``None`` when the text holds another number of zeros than the formula had digits."""
    pieces = _between_zeros(mathml)
    if len(pieces) - 1 != len(digits):
        return None
    out = [pieces[0]]
    for digit, piece in zip(digits, pieces[1:], strict=True):
        out += (digit, piece)
    return "".join(out)


@lru_cache(maxsize=1024)
def _between_zeros(mathml: str) -> tuple[str, ...]:
    """``mathml`` cut at every zero of its text (not inside a tag): one shape, cut once for all its formulas."""
    pieces = [""]
    for n, part in enumerate(_TEXT.split(mathml)):
        if n % 2:  # a tag
            pieces[-1] += part
            continue
        first, *rest = part.split("0")
        pieces[-1] += first
        pieces += rest
    return tuple(pieces)


def _convert(tex: str, display: bool) -> str:
    source = _ENV.sub(lambda m: f"\\{m.group(1)}{{{_ENV_ALIASES[m.group(2)]}}}", tex)
    try:
        raw = latex2mathml.converter.convert_to_element(source, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many types on malformed input
        detail = f": {exc}" if str(exc) else ""
        raise MathError(f"malformed TeX ({type(exc).__name__}{detail})") from None
    root = _clean(raw, None)
    root.set("xmlns", MATHML_NS)
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


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
    """Every formula in a Markdown text that falls back to TeX, with the reason.

    A sync asks this of every text of every added or changed card (~1,600 texts, ~1.5 s of Markdown
    parsing for the bundled deck); the answer depends on the text alone, so a process finds it once."""
    return list(_math_problems(markdown_text))


@lru_cache(maxsize=16384)
def _math_problems(markdown_text: str) -> tuple[tuple[str, str], ...]:
    from app.render.markdown import math_spans

    out = []
    for tex, display in math_spans(markdown_text):
        try:
            tex_to_mathml(tex, display)
        except MathError as exc:
            out.append((tex, str(exc)))
    return tuple(out)

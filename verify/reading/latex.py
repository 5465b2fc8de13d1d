"""sympy's LaTeX parser (ANTLR), ten times faster: the same result, SLL prediction first.

    python -c "from verify.reading.latex import parse_latex; print(parse_latex(r'\\Delta/\\sqrt{12}'))"

``sympy.parsing.latex.parse_latex`` runs ANTLR in its full LL prediction mode, which resolves every conflict of
sympy's (ambiguous) grammar with the whole parser stack and caches none of that work: 10-50 ms a formula, the
slowest step of reading a card. ANTLR's two-stage strategy parses in SLL mode first, which caches its decisions
and, on a syntactically correct input, returns the very tree LL returns, or else reports a syntax error
(``antlr4.atn.PredictionMode.SLL``). Here an SLL parse counts only when it raised nothing and read the whole
input (sympy's start rule has no EOF, so a parse may stop early: that one is left to LL); anything else (an
error, a parse of a prefix, a sympy whose internals moved) is parsed again by sympy's own ``parse_latex``, which
then decides, result or exception, exactly as before.
"""

from __future__ import annotations

from functools import cache
from typing import Any


def parse_latex(tex: str) -> Any:
    """What ``sympy.parsing.latex.parse_latex(tex)`` returns (or raises)."""
    try:
        return _sll(tex)
    except Exception:  # a syntax error SLL may report where LL succeeds, a prefix, sympy internals: sympy decides
        from sympy.parsing.latex import parse_latex as full_ll

        return full_ll(tex)


@cache
def _runtime_supported() -> bool:
    """The ANTLR runtime sympy's generated parser needs (sympy's own parse_latex checks the same)."""
    from importlib.metadata import version

    return version("antlr4-python3-runtime").startswith("4.11")


class _Prefix(Exception):
    """The SLL parse stopped before the end of the input."""


def _sll(tex: str) -> Any:
    """sympy's ``_parse_latex_antlr.parse_latex`` (strict=False) with SLL prediction and the whole input read."""
    import antlr4
    from antlr4.atn.PredictionMode import PredictionMode
    from sympy.parsing.latex import _parse_latex_antlr as antlr_latex
    from sympy.parsing.latex import check_matrix_delimiters

    if not _runtime_supported():
        raise ImportError("sympy's LaTeX parser needs antlr4-python3-runtime 4.11")
    check_matrix_delimiters(tex)
    text = tex.strip()
    errors = antlr_latex.MathErrorListener(text)
    lexer = antlr_latex.LaTeXLexer(antlr4.InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(errors)
    tokens = antlr4.CommonTokenStream(lexer)
    parser = antlr_latex.LaTeXParser(tokens)
    parser.removeErrorListeners()
    parser.addErrorListener(errors)
    parser._interp.predictionMode = PredictionMode.SLL
    relation = parser.math().relation()
    if tokens.LA(1) != antlr4.Token.EOF:
        raise _Prefix(text)
    return antlr_latex.convert_relation(relation)

"""The statement judges' shortcuts change no verdict: with them and without them, the same verdicts.

The judges skip ``sp.simplify`` when two formulas take different values at a fixed point
(``verify.judge.statements.fingerprint``) and parse TeX in ANTLR's SLL mode first (``verify.reading.latex``).
Both are exact by construction; these tests hold them to it: on bundled cards the verdicts with every shortcut
turned off are the verdicts with them, SLL parses give what sympy's own parser gives (result or error), and a
fingerprint never calls equal formulas different.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sympy as sp

from verify.judge.statements import arithmetic, consistency, fingerprint, parity
from verify.judge.statements.card import judge_text
from verify.reading import latex, statements, tex, textnums

CARDS = Path(__file__).resolve().parents[2] / "cards"
# the cards where the shortcuts decide most: formulas of zh and en told apart (zero-sharding, 26 times), arithmetic
# with symbols that is no identity (zero-offload-infinity), ratios that are no typo (ddp-ring-allreduce,
# tp-inference-communication), and TeX only sympy's parser reads (checkpoint-interval-young-daly, weight-quantization)
SAMPLE = ("zero-sharding", "zero-offload-infinity", "ddp-ring-allreduce", "tp-inference-communication",
          "checkpoint-interval-young-daly", "weight-quantization")


def _forget() -> None:
    for cached in (judge_text, statements.read, tex._piece_side, textnums.parse_tex, consistency._related,
                   consistency._normal, fingerprint.value):
        cached.cache_clear()


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    _forget()
    yield
    _forget()


def _verdicts(slug: str) -> list[tuple[str, str, str, str, str]]:
    judged = judge_text((CARDS / f"{slug}.md").read_text(encoding="utf-8"))
    return [(v.key, v.text, v.verdict, v.judge, v.detail) for v in judged.verdicts]


def _sll_fails(tex_: str) -> Any:
    raise RuntimeError("SLL off")


@pytest.mark.parametrize("slug", SAMPLE)
def test_the_shortcuts_change_no_verdict(slug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _verdicts(slug)
    _forget()
    monkeypatch.setattr(parity, "differ", lambda f, g: False)
    monkeypatch.setattr(consistency, "differ", lambda f, g: False)
    monkeypatch.setattr(consistency, "power_ratio", lambda f, g, symbols, exponents: True)
    monkeypatch.setattr(arithmetic, "ratio_varies", lambda f, g: False)
    monkeypatch.setattr(latex, "_sll", _sll_fails)  # every formula through sympy's own (LL) parser
    assert _verdicts(slug) == fast


def _outcome(parse: Any, tex_: str) -> tuple[str, str]:
    try:
        return "ok", sp.srepr(parse(tex_))
    except Exception as exc:  # sympy's parser raises its own errors: the same ones, with the same message
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("tex_", [
    r"\Delta/\sqrt{12}", r"\mu(\exp((\tau+\delta)/\mu) - 1)", r"1 - \frac{\tau}{\mu(\exp((\tau+\delta)/\mu) - 1)}",
    r"O(\log N)\alpha", r"(r-t) \bmod N", r"\partial L/\partial X", r"X \in \mathbb{R}^{bs\times h}",
    r"GeLU(a+b) \ne  GeLU(a)+ GeLU(b)", r"\Delta * round(w/\Delta)", r"\sum_r x_r", r"\sum_{i", r"\frac{1}{",
    r"2\Psi + 2\Psi = 4\Psi", r"a < b", r"\infty", r"x^{", "",
])
def test_sll_parses_what_sympy_parses(tex_: str) -> None:
    from sympy.parsing.latex import parse_latex

    assert _outcome(latex.parse_latex, tex_) == _outcome(parse_latex, tex_)


def test_the_fingerprint_never_tells_equal_formulas_apart() -> None:
    from verify.judge.statements.formulas import known

    for k in known():
        same = (sp.expand(k.expr), sp.factor(k.expr), sp.together(k.expr))
        assert not any(fingerprint.differ(k.expr, f) for f in same), k.label
        assert not fingerprint.ratio_varies(3 * k.expr, k.expr), k.label
        x = sorted(k.symbols, key=lambda s: s.name)[0]
        assert fingerprint.power_ratio(k.expr * x**2, k.expr, k.symbols, (2,)), k.label


def test_the_fingerprint_tells_a_typo_apart() -> None:
    from verify.known.vocabulary import SYMBOLS

    s, b, h, t, v = (SYMBOLS[n] for n in "sbhtV")
    assert fingerprint.differ(4 * s * b * v / t, 4 * s * b * v / t**2)
    assert fingerprint.differ(12 * h**2 + 13 * h, 12 * h**2 + 11 * h)
    assert fingerprint.ratio_varies(s * b * h, s * b)
    assert not fingerprint.power_ratio(s * b * h, s * b, {s, b, h}, (2, -2))


def test_an_unknown_function_gets_a_value_that_keeps_identities() -> None:
    """The bank writes ``O(N \\log N)`` (an unknown function to sympy): read as one fixed function, it is told
    apart from a formula without it, and never from the same call written another way."""
    n, psi = sp.symbols("N Psi", positive=True)
    big_o = sp.Function("O")
    assert fingerprint.value(big_o(n * sp.log(n))) is not None
    assert fingerprint.differ(big_o(n * sp.log(n)), 12 * psi / n)
    assert fingerprint.differ(big_o(n * sp.log(n)), big_o(n))
    assert not fingerprint.differ(big_o(n * sp.log(n)) + big_o(n), sp.expand(big_o(sp.log(n) * n) + big_o(n)))
    assert not fingerprint.differ(2 * big_o(n), big_o(n) + big_o(n))

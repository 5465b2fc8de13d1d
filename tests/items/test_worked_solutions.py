"""Every drill's worked solution shows its formula, then the same formula with the showing's numbers; both
are parsed back with sympy and must give the answer, so the shown working cannot drift from the formula."""

from __future__ import annotations

import re

import pytest
import sympy
from sympy.parsing.latex import parse_latex

from app.items import drills
from app.items.items import drill_faces
from verify.known import drills as formula_drills
from verify.known import ledger

KEYS = list(drills.DRILL_KEYS) + list(formula_drills.DRILLS)


def _expected(params: dict[str, object]) -> float:
    """What the formula must give: bytes for the ZeRO drills, the answer's unit for the others."""
    return drills.answer(params) * (drills.GB if params["key"] in drills.DRILL_KEYS else 1)


@pytest.mark.parametrize("key", KEYS)
def test_formula_and_substituted_numbers_give_the_answer(key: str) -> None:
    for seed in range(2):
        params = drills.new_params(key, seed=seed)
        w = drills.worked(params)
        substituted = float(parse_latex(w.substituted()).evalf())
        assert substituted == pytest.approx(_expected(params), rel=1e-9)
        # the symbolic line: its symbols, given the same values, give the same number
        symbolic = parse_latex(w.tex)
        names = {s.name: s for s in symbolic.free_symbols}
        values = {names[sym.lstrip("\\")]: v for sym, v in w.symbols.items() if sym.lstrip("\\") in names}
        assert set(values) == symbolic.free_symbols
        assert float(symbolic.subs(values).evalf()) == pytest.approx(substituted, rel=1e-9)


@pytest.mark.parametrize("key", ["memory-zero3", "comm-zero1", "bubble-fraction", "offload-pcie-seconds"])
def test_the_solution_shows_the_numbers_in_the_formula(key: str) -> None:
    params = drills.new_params(key, seed=7)
    w = drills.worked(params)
    sol = drills.solution(params)
    for lang in ("en", "zh"):
        assert f"$${w.lhs} = {w.tex}$$" in sol[lang] and f"$${w.lhs} = {w.substituted()} = " in sol[lang]
    _front, back = drill_faces(params)
    for html in (back.en, back.zh):
        assert html.count("<math") >= 2
        assert not re.search(r"<mi>\\\\", html)  # no TeX command left unrendered (latex2mathml's silent fallback)


def test_a_wrong_formula_is_caught() -> None:
    """The check above would fail for a display that says 2(N-1)/N where the ledger uses (N-1)/N."""
    params = {"key": "comm-zero3", "psi": 7.5e9, "n": 64}
    w = drills.worked(params)
    wrong = formula_drills.Worked(w.lhs, w.tex.replace(r"\left(1 + 1 + 1\right)", r"\left(1 + 1\right)"), w.symbols)
    assert float(parse_latex(wrong.substituted()).evalf()) != pytest.approx(
        ledger.ring_volume_bytes(stage="zero3", psi=7.5e9, n=64), rel=1e-3)
    assert sympy.Symbol("N") in parse_latex(w.tex).free_symbols

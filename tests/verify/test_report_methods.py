"""verify/README.md's table of confirmations by method is the shipped report's, and the formula/worked split
separates a claim about a formula from one worked instance of it."""

from __future__ import annotations

import json

from verify.report import methods


def test_readme_table_matches_the_shipped_report() -> None:
    report = json.loads(methods.REPORT.read_text(encoding="utf-8"))
    readme = methods.README.read_text(encoding="utf-8")
    assert methods.with_table(readme, methods.markdown(report, methods.stored_before())) == readme, \
        "run: python -m verify.report.methods --write"


def test_formula_claims_are_calls_at_general_symbols() -> None:
    assert methods.is_formula_claim("young_interval() == sqrt(2*delta*mu)")
    assert methods.is_formula_claim("global_batch(d=1) == k*b") is False
    assert methods.is_formula_claim("(global_batch(b=4, k=8, d=64) == 2048) & (ring_steps(all_reduce) == 2*(N-1))")
    assert not methods.is_formula_claim("approx(young_interval(delta=300, mu=36000), 4648)")


def test_counts_follow_the_claims() -> None:
    claims = [{"card": "c", "claim_id": "a", "verdict": "confirmed", "method": "calculated", "asserts": "f() == x"},
              {"card": "c", "claim_id": "b", "verdict": "confirmed", "method": "measured", "asserts": "g() == y"},
              {"card": "c", "claim_id": "d", "verdict": "refuted", "method": "calculated", "asserts": "h() == z"}]
    report = {"claims": claims}
    assert methods.confirmed_by_method(report) == {"calculated": 1, "measured": 1}
    assert methods.calculated_formula_claims(report) == [("c", "a", "f() == x")]
    claims[0]["method"] = "simulated"
    assert methods.calculated_formula_claims(report) == []

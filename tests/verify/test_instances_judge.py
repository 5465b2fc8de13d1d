"""A formula and the example after it ("…, i.e. …", "…，即 …"), judged by ``verify.judge.statements.instances``:
a factor of one of the section's values between them is a contradiction on the formula; the right formula, an
example that computes another quantity, and a symbol the section binds twice raise nothing; breaking the
evaluation loses the flag."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.utils.bilingual import card
from verify.judge.statements import instances
from verify.judge.statements.card import judge_text

DILOCO = card(
    ("DiLoCo 每 H 步同步一次外层梯度。", "DiLoCo syncs the outer gradient once every H steps."),
    derivation=("以 Ψ = 7×10^9、k = 8 为例，每次外层同步每组发送 2 × 7/8 × 28 GB = 49 GB；H = 500 步时，"
                "平均到每个内层步为 2(k−1)/k · 4Ψ/H²，即 49 GB/500 = 98 MB。",
                "With Ψ = 7×10^9 and k = 8, each outer sync sends 2 × 7/8 × 28 GB = 49 GB per group; at H = 500 "
                "steps, averaged per inner step it is 2(k−1)/k · 4Ψ/H², i.e. 49 GB/500 = 98 MB."))


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    judge_text.cache_clear()
    instances.instances.cache_clear()
    yield
    judge_text.cache_clear()


def test_a_formula_a_symbols_factor_away_from_its_example_is_a_contradiction() -> None:
    judged = judge_text(DILOCO)
    flags = judged.problems()
    assert sorted(v.lang for v in flags) == ["en", "zh"]
    for v in flags:
        assert (v.verdict, v.judge, v.section) == ("contradiction", "card", "derivation")
        assert "4Ψ/H²" in v.text and "H = 500 times smaller" in v.detail and "98 MB" in v.detail


def test_the_right_formula_and_its_neighbours_raise_nothing() -> None:
    judged = judge_text(DILOCO.replace("4Ψ/H²", "4Ψ/H"))
    assert judged.problems() == []
    # the worked numbers around it are still judged, and hold
    assert any(v.text.startswith("2 × 7/8 × 28 GB") and v.verdict == "confirmed" for v in judged.verdicts)


def test_an_example_of_another_quantity_or_an_ambiguous_symbol_is_left_alone() -> None:
    other = DILOCO.replace("49 GB/500 = 98 MB", "49 GB/7 = 7 GB")  # 7 is no value of the section's symbols
    assert judge_text(other).problems() == []
    twice = DILOCO.replace("H = 500 步时", "H = 500 步或 H = 100 步时").replace("at H = 500 steps",
                                                                          "at H = 500 or H = 100 steps")
    assert judge_text(twice).problems() == []


def test_mutation_an_example_read_as_the_formula_value_loses_the_contradiction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instances, "_apart", lambda ratio, values: None)
    assert judge_text(DILOCO).problems() == []

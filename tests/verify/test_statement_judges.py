"""Each annotation-free judge on cards written here: a planted mistake is flagged (both languages, units,
rounding), its correct neighbours are not; bad input is ``unchecked`` with a reason; and breaking a judge
(a mutation) loses the flag it alone raises.

The cards are small bilingual card files (``card``), judged by ``verify.judge.statements.card.judge_text``, the
function ``proofdeck sync``, ``proofdeck import`` and ``python -m verify`` share.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.utils.bilingual import card
from verify.judge.statements import arithmetic, consistency, facts, formulas, parity
from verify.judge.statements import card as card_judge
from verify.judge.statements.card import CardStatements, StatementVerdict, judge_text


def verdict_of(judged: CardStatements, text: str, lang: str) -> StatementVerdict:
    hits = [v for v in judged.verdicts if v.lang == lang and text in v.text]
    assert hits, f"no {lang} statement holds {text!r}: {[v.text for v in judged.verdicts if v.lang == lang]}"
    return hits[0]


def flagged(judged: CardStatements) -> set[tuple[str, str]]:
    return {(v.lang, v.text) for v in judged.problems()}


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    judge_text.cache_clear()
    yield
    judge_text.cache_clear()


# ------------------------------------------------------------------ the card's own arithmetic

ARITH = card(("7B 模型每卡 3000 token/s：6 × 7×10^9 × 3000 = 126 TFLOP/s，MFU = 126/312 ≈ 45%。",
              "A 7B model at 3000 tokens/s per GPU: 6 × 7×10^9 × 3000 = 126 TFLOP/s, MFU = 126/312 ≈ 45%."),
             ("KV：2000 × 131,072 = 262,144,000 字节 = 250 MB", "KV: 2000 × 131,072 = 262,144,000 bytes = 250 MB",
              "16 × 7×10^9 = 112 GB，约 104.3 GiB", "16 × 7×10^9 = 112 GB, about 104.3 GiB"))


def test_arithmetic_refutes_a_wrong_result_with_the_computed_value_and_keeps_its_neighbours() -> None:
    judged = judge_text(ARITH)
    for lang in ("zh", "en"):
        bad = verdict_of(judged, "126/312 ≈ 45%", lang)
        assert (bad.verdict, bad.judge) == ("refuted", "arithmetic") and "40.4" in bad.detail
        assert verdict_of(judged, "6 × 7×10^9 × 3000 = 126 TFLOP/s", lang).verdict == "confirmed"
        assert verdict_of(judged, "16 × 7×10^9 = 112 GB", lang).verdict == "confirmed"


def test_arithmetic_names_a_unit_slip() -> None:
    judged = judge_text(ARITH)
    for lang in ("zh", "en"):
        slip = verdict_of(judged, "= 250 MB", lang)
        assert slip.verdict == "refuted" and "MiB" in slip.detail, slip.detail


def test_rounding_as_written_is_allowed() -> None:
    judged = judge_text(card(("126/312 ≈ 40%，约 40.4%", "126/312 ≈ 40%, about 40.4%")))
    assert not flagged(judged)
    assert verdict_of(judged, "126/312 ≈ 40%", "en").verdict == "confirmed"


# ------------------------------------------------------------------ facts that code produces

FACTS = card(("E4M3（4 位指数、3 位尾数）最大 484，E5M2 最大 57344；fp16 的最大值为 65504。",
              "E4M3 (4 exponent bits, 3 mantissa bits) has max 484, E5M2 max 57344; fp16's max is 65504."),
             ("int8 的取值范围是 [−128, 128]", "int8 spans [−128, 128]",
              "bf16 的机器精度为 2^-10 ≈ 9.8×10^-4", "bf16's machine epsilon is 2^-10 ≈ 9.8×10^-4"))


def test_a_wrong_number_format_fact_is_refuted_by_what_torch_says() -> None:
    judged = judge_text(FACTS)
    for lang in ("zh", "en"):
        bad = verdict_of(judged, "484", lang)
        assert (bad.verdict, bad.judge) == ("refuted", "fact") and "448" in bad.detail
        assert verdict_of(judged, "57344", lang).verdict == "confirmed"
        assert verdict_of(judged, "65504", lang).verdict == "confirmed"
        bits = [v for v in judged.verdicts if v.lang == lang and v.text.startswith("4")]
        assert bits and bits[0].verdict == "confirmed" and "exponent bits" in bits[0].detail
        ints = [v for v in judged.verdicts if v.lang == lang and v.text == "128"]
        assert ints and ints[0].verdict == "refuted" and "127" in ints[0].detail
        eps = verdict_of(judged, "2^-10 ≈ 9.8×10^-4", lang)  # the arithmetic holds; it is no bf16 epsilon
        assert eps.verdict == "refuted" and eps.judge == "fact"


def test_a_number_no_word_names_is_no_fact() -> None:
    judged = judge_text(card(("bf16 训练，S = 8", "bf16 training with S = 8")))
    assert all(v.judge != "fact" for v in judged.verdicts)


# ------------------------------------------------------------------ known formulas

FORMULA = card(("一个 GPT 层有 12h² + 11h 个参数", "A GPT layer has 12h² + 11h parameters"),
               ("每层激活 sbh(34 + 5as/h) 字节", "Activations take sbh(34 + 5as/h) bytes per layer"))


def test_a_near_miss_of_a_known_formula_is_refuted_with_a_point_where_they_differ() -> None:
    judged = judge_text(FORMULA)
    for lang in ("zh", "en"):
        bad = verdict_of(judged, "12h² + 11h", lang)
        assert (bad.verdict, bad.judge) == ("refuted", "formula") and "13*h" in bad.detail and "at h = " in bad.detail
        good = verdict_of(judged, "sbh(34 + 5as/h)", lang)
        assert (good.verdict, good.judge) == ("confirmed", "formula")


def test_a_formula_is_no_near_miss_of_a_quantity_the_sentence_does_not_count() -> None:
    judged = judge_text(card(("前向 FLOPs 为 24bsh² + 4bs²h", "The forward FLOPs are 24bsh² + 4bs²h")))
    assert not flagged(judged)


# ------------------------------------------------------------------ parity

PARITY = card(("ZeRO++ 把跨节点通信从 3M 降到 0.75M，降低 4 倍；节省 75% 的显存。",
               "ZeRO++ cuts cross-node traffic from 3M to 0.75M, a 2× reduction, and saves 75% of the memory."),
              ("8 位 Adam 把状态从 56 GB 降到 14 GB", "8-bit Adam shrinks the states from 56 GB to 14 GB"))


def test_a_zh_en_disagreement_is_a_contradiction_showing_both_sides() -> None:
    judged = judge_text(PARITY)
    zh, en = verdict_of(judged, "4 倍", "zh"), verdict_of(judged, "2×", "en")
    assert (zh.verdict, zh.judge, en.verdict) == ("contradiction", "parity", "contradiction")
    assert zh.other == "2×" and en.other == "4 倍"
    assert [c["quantity"] for c in judged.contradictions] == ["4 倍 / 2×"]
    assert verdict_of(judged, "56 GB", "zh").verdict == "consistent"
    assert verdict_of(judged, "75%", "en").verdict == "consistent"


def test_the_same_value_written_otherwise_is_no_contradiction() -> None:
    judged = judge_text(card(("节省 75% 的显存，一半的时间", "a 4× smaller memory in half the time")))
    assert not flagged(judged)


def test_bank_follow_ups_written_one_language_each_are_paired() -> None:
    follow_ups = ("follow_ups:\n- id: fu-1\n  question:\n    zh: 多少？答：4096 块\n"
                  "- id: fu-2\n  question:\n    en: 'How many? Answer: 8192 blocks'\n")
    text = card(("x", "x")).replace("---\nslug: t\n---", f"---\nslug: t\n{follow_ups}---")
    judged = judge_text(text)
    assert verdict_of(judged, "4096", "zh").verdict == "contradiction"
    assert verdict_of(judged, "8192", "en").verdict == "contradiction"


# ------------------------------------------------------------------ the card against itself

WORKED = card(("交叉熵按 fp32 保存 logits：每卡 4sbV/t 字节", "Cross entropy keeps fp32 logits: 4sbV/t bytes per GPU"),
              derivation=("显存：每卡 4sbV/t² 字节，s = 4096、b = 4、V = 128000、t = 8 时为 4 × 4096 × 4 × 128000 / 8 "
                          "= 1,048,576,000 字节。",
                          "Memory: 4sbV/t² bytes per GPU; at s = 4096, b = 4, V = 128000, t = 8 that is "
                          "4 × 4096 × 4 × 128000 / 8 = 1,048,576,000 bytes."))


def test_a_formula_its_own_worked_example_computes_otherwise_is_a_contradiction() -> None:
    judged = judge_text(WORKED)
    for lang in ("zh", "en"):
        bad = verdict_of(judged, "4sbV/t²", lang)
        assert (bad.verdict, bad.judge) == ("contradiction", "card") and "4 × 4096 × 4 × 128000 / 8" in bad.detail
        right = [v for v in judged.verdicts if v.lang == lang and v.text == "4sbV/t"]
        assert right and right[0].verdict == "consistent"  # the summary's formula, which the example computes


def test_a_formula_and_its_matching_worked_example_raise_no_flag() -> None:
    judged = judge_text(WORKED.replace("4sbV/t²", "4sbV/t"))
    assert not flagged(judged)
    worked = [v for v in judged.verdicts if v.section == "derivation" and v.text == "4sbV/t"]
    assert {v.verdict for v in worked} == {"confirmed"} and {v.judge for v in worked} == {"card"}


def test_a_size_the_card_computes_in_the_sibling_unit_elsewhere_is_a_unit_slip() -> None:
    text = card(("8 卡一节点约 730 GiB", "about 730 GiB per 8-GPU node"),
                derivation=("8 × 80 × 1.14 GB ≈ 730 GB", "8 × 80 × 1.14 GB ≈ 730 GB"))
    judged = judge_text(text)
    for lang in ("zh", "en"):
        slip = verdict_of(judged, "730 GiB", lang)
        assert (slip.verdict, slip.judge) == ("contradiction", "card") and "unit slip" in slip.detail


# ------------------------------------------------------------------ bad input: unchecked with a reason, never a verdict

@pytest.mark.parametrize("zh,en", [
    ("公式 $\\frac{2\\Psi}{$ 写坏了", "the formula $\\frac{2\\Psi}{$ is broken"),  # unparsable TeX
    ("每步 5 parsec，约 3 furlong", "5 parsecs per step, about 3 furlongs"),  # units it does not know
    ("五ギガバイト、ざっと三倍", "五ギガバイト, ざっと三倍"),  # a language it cannot read
    ("$$\\sqrt{\\sqrt{$$ 与 ((((2", "$$\\sqrt{\\sqrt{$$ and ((((2"),
])
def test_bad_input_is_unchecked_with_a_reason_and_never_a_verdict(zh: str, en: str) -> None:
    judged = judge_text(card((zh, en)))
    assert not flagged(judged)
    assert all(v.detail for v in judged.verdicts if v.verdict == "unchecked")
    assert all(v.verdict in ("unchecked", "consistent") for v in judged.verdicts)


# ------------------------------------------------------------------ mutations: break a judge, its flag goes

def test_mutation_arithmetic_that_accepts_everything_loses_the_refutation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arithmetic, "_holds", lambda op, a, b, tol: True)
    judged = judge_text(ARITH)
    assert verdict_of(judged, "126/312 ≈ 45%", "en").verdict != "refuted"


def test_mutation_a_typed_in_fact_table_flips_the_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.known.facts import table

    real = table()
    wrong = {fmt: dict(props) for fmt, props in real.items()}
    wrong["fp8_e4m3"]["max"] = 484.0
    monkeypatch.setattr(facts, "table", lambda: wrong)
    judged = judge_text(FACTS)
    assert verdict_of(judged, "484", "en").verdict == "confirmed"


def test_mutation_a_wrong_ledger_formula_flips_the_formula_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    real = formulas.known()
    def bend(k: formulas.Known) -> formulas.Known:
        h = next(iter(k.symbols))
        wrong = 12 * h**2 + 11 * h
        return formulas.Known(k.label, wrong, k.symbols, formulas._fingerprint(wrong) or 0.0, k.unit)

    bent = tuple(bend(k) if str(k.expr) == "12*h**2 + 13*h" else k for k in real)
    assert bent != real, "the vocabulary has a 12h² + 13h quantity"
    monkeypatch.setattr(formulas, "known", lambda: bent)
    judged = judge_text(FORMULA)
    assert verdict_of(judged, "12h² + 11h", "en").verdict == "confirmed"


def test_mutation_parity_that_finds_everything_the_same_loses_the_contradiction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parity, "same", lambda a, b: True)
    assert not judge_text(PARITY).contradictions


def test_mutation_worked_examples_read_without_numbers_lose_the_contradiction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import Counter

    monkeypatch.setattr(consistency, "_numbers", lambda text: Counter())
    judged = judge_text(WORKED)
    assert verdict_of(judged, "4sbV/t²", "en").verdict != "contradiction"


def test_mutation_judges_run_in_another_order_still_let_a_refutation_win(monkeypatch: pytest.MonkeyPatch) -> None:
    """The precedence rule (a refutation beats another judge's confirmation) is what refutes fp32's epsilon."""
    monkeypatch.setattr(card_judge, "JUDGES", (facts.check, arithmetic.check, formulas.check))
    judged = judge_text(FACTS)
    assert verdict_of(judged, "2^-10 ≈ 9.8×10^-4", "en").verdict == "refuted"
    monkeypatch.setattr(card_judge, "_own", lambda st, claims, verdicts: (arithmetic.check(st), ""))
    judge_text.cache_clear()
    judged = judge_text(FACTS)
    assert verdict_of(judged, "2^-10 ≈ 9.8×10^-4", "en").verdict == "confirmed"


def test_a_worked_example_written_with_a_square_counts_its_base_twice() -> None:
    """``4096 × 4096²`` multiplies 4096 three times: the example of ``12·L·s·h²`` at s = h = 4096 (it once
    read as one factor fewer, a false contradiction)."""
    text = card(("注意力另计 12·L·s·h²。以 L = 32、h = 4096、s = 4096 为例，12 × 32 × 4096 × 4096² ≈ 2.64×10^13。",
                 "Attention adds 12·L·s·h². At L = 32, h = 4096, s = 4096: 12 × 32 × 4096 × 4096² ≈ 2.64×10^13."))
    judged = judge_text(text)
    assert not flagged(judged)
    for lang in ("zh", "en"):
        assert (verdict_of(judged, "12·L·s·h²", lang).verdict, verdict_of(judged, "12·L·s·h²", lang).judge) == (
            "confirmed", "card")
    assert verdict_of(judge_text(text.replace("4096 × 4096²", "4096²")), "12·L·s·h²", "en").verdict == \
        "contradiction"  # one 4096 short: the formula's h² against an example that squares only once

"""Readings a blind set of bank cards (tests/cards/data/bank/heldout3) showed wrong, each planted in a small card
with its correct neighbours: a product of symbols after "×" is no "34×" multiplier; a side that goes on after
words is no relation; 倍 glued to the next word is still a multiplier; int4 ranges come from bit patterns and
"无符号 int4" is uint4; a rate worked out is no number-format fact."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.utils.bilingual import card
from verify.judge.statements.card import CardStatements, judge_text
from verify.reading.statements import read


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    judge_text.cache_clear()
    yield
    judge_text.cache_clear()


def problems(judged: CardStatements) -> list[tuple[str, str]]:
    return sorted((v.lang, v.text) for v in judged.problems())


def test_a_product_of_symbols_after_times_is_no_multiplier_and_the_chain_after_it_is_judged() -> None:
    text = card(("TP = 8 时每层 34 × sbh / 8 = 544 MiB / 8 = 68 MiB。",
                 "With TP = 8 each layer takes 34 × sbh / 8 = 544 MiB / 8 = 68 MiB."))
    judged = judge_text(text)
    assert problems(judged) == []  # (34 × sbh / 8 was read as 34/8 = 4.25 and "refuted")
    inner = [v for v in judged.verdicts if v.text == "544 MiB / 8 = 68 MiB"]
    assert {v.verdict for v in inner} == {"confirmed"} and len(inner) == 2
    wrong = judge_text(text.replace("= 68 MiB", "= 86 MiB"))
    assert problems(wrong) == [("en", "544 MiB / 8 = 86 MiB"), ("zh", "544 MiB / 8 = 86 MiB")]


def test_a_side_that_goes_on_after_words_is_no_relation() -> None:
    sides = [[s.text for s in f.sides] for f in read("6N = 2N for the forward pass + 4N for the backward pass")]
    assert ["6N", "2N"] not in sides  # the right side is 2N + 4N, written around words
    assert [s.text for f in read("so 16Ψ = 112 GB at 7B, and") for s in f.sides][:2] == ["16Ψ", "112 GB"]


def test_bei_glued_to_the_next_word_is_a_multiplier_and_a_zh_en_disagreement_is_found() -> None:
    text = card(("TP = 8 时每卡收发约 1.75 倍消息大小", "with TP = 8 each GPU sends about 1.5× the message size"))
    judged = judge_text(text)
    assert problems(judged) == [("en", "1.5×"), ("zh", "1.75 倍")]
    assert problems(judge_text(text.replace("1.5×", "1.75×"))) == []


def test_int4_ranges_come_from_bit_patterns_and_unsigned_int4_is_uint4() -> None:
    text = card(("有符号 int4 ∈ [−16, 15]；无符号 int4 ∈ [0, 15]", "signed int4 ∈ [−16, 15]; unsigned int4 ∈ [0, 15]"))
    judged = judge_text(text)
    assert problems(judged) == [("en", "−16"), ("zh", "−16")]
    assert all("-8" in v.detail or "−8" in v.detail for v in judged.problems())
    right = judge_text(text.replace("−16", "−8"))
    assert problems(right) == []
    assert {v.verdict for v in right.verdicts if v.text in ("0", "15", "−8")} == {"confirmed"}


def test_a_rate_worked_out_near_a_format_name_is_no_fact() -> None:
    text = card(("int4 单卡每个 token 读 37.2 GB，上限约 3.35 TB/s / 37.2 GB ≈ 90 token/s",
                 "int4 reads 37.2 GB per token, so at most about 3.35 TB/s / 37.2 GB ≈ 90 tokens/s"))
    judged = judge_text(text)
    assert problems(judged) == []
    assert not any(v.judge == "fact" for v in judged.verdicts)


def test_a_number_times_one_symbol_is_a_product_and_a_near_miss_of_a_known_formula_is_refuted() -> None:
    text = card(("注意力分数项是 5 × a × s × b 字节", "the attention-score term is 5 × a × s × b bytes"))
    judged = judge_text(text)
    assert problems(judged) == [("en", "5 × a × s × b"), ("zh", "5 × a × s × b")]
    assert all(v.judge == "formula" and "5*a*b*s**2" in v.detail for v in judged.problems())
    assert problems(judge_text(text.replace("× s ×", "× s² ×"))) == []
    assert [s.text for f in read("costs 1.5× a lot more") for s in f.sides] == ["1.5×"]


def test_a_size_over_a_bandwidth_is_a_time_and_a_wrong_one_is_refuted() -> None:
    text = card(("M = 8 KB 时 8 KB ÷ 50 GB/s = 0.16 µs，50 GB/s × 20 ms = 1 GB",
                 "for M = 8 KB, 8 KB ÷ 50 GB/s = 0.16 µs, and 50 GB/s × 20 ms = 1 GB"))
    judged = judge_text(text)
    assert problems(judged) == []
    assert {v.verdict for v in judged.verdicts if "÷" in v.text or "20 ms" in v.text} == {"confirmed"}
    wrong = judge_text(text.replace("0.16 µs", "0.16 ms"))
    assert problems(wrong) == [("en", "8 KB ÷ 50 GB/s = 0.16 ms"), ("zh", "8 KB ÷ 50 GB/s = 0.16 ms")]


def test_a_letter_glued_to_a_number_is_no_count_of_it() -> None:
    """"4α/2.125": α is no word a number counts ("7B params"), and dropping it made 4/2.125 ≈ 9.41 "wrong"."""
    text = card(("令 7α + 7/8 · Mβ = 3α + 3Mβ，得 Mβ = 4α/2.125 ≈ 9.41 µs",
                 "setting 7α + 7/8 · Mβ = 3α + 3Mβ gives Mβ = 4α/2.125 ≈ 9.41 µs"))
    assert problems(judge_text(text)) == []


def test_a_difference_between_formats_is_no_property_and_plus_minus_is_a_formats_range() -> None:
    text = card(("E4M3 (±448) 比 E5M2 (±57344) 多 1 位尾数", "E4M3 (±448) has 1 more mantissa bit than E5M2 (±57344)"))
    judged = judge_text(text)
    assert problems(judged) == []
    assert {v.verdict for v in judged.verdicts if v.text in ("448", "57344")} == {"confirmed"}
    swapped = judge_text(text.replace("57344", "448"))  # E5M2 given E4M3's range
    assert problems(swapped) == [("en", "448"), ("zh", "448")]
    assert all("E5M2" in v.detail and "57344" in v.detail for v in swapped.problems())

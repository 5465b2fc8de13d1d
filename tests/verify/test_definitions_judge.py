"""The card against itself by name (``verify.judge.statements.definitions``): a quantity the card names and sets
equal to two different formulas over the same symbols is a contradiction where the card writes it less often
(on a tie: where it is not the display formula); correct neighbours, one-letter names, quantities over other
symbols and pitfalls stay unflagged; breaking the comparison loses the flag."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.utils.bilingual import card
from verify.judge.statements import definitions
from verify.judge.statements.card import CardStatements, judge_text

DISPLAY = ("$$\\text{algbw} = \\frac{S}{t},\\quad \\text{busbw}_{\\text{AR}} = \\text{algbw} \\cdot \\frac{2(n-1)}{n},"
           "\\quad \\text{busbw}_{\\text{AG}} = \\text{algbw} \\cdot \\frac{n-1}{n}$$")
BUSBW = card(
    ("nccl-tests 报告 algbw = S/t 与 busbw；8 卡 all-reduce 的 busbw 是 algbw 的 1.75 倍。",
     "nccl-tests reports algbw = S/t and busbw; on 8 GPUs an all-reduce's busbw is 1.75× its algbw."),
    ("all-reduce：busbw_AR = algbw × 2(n−1)/n，ring 中每卡发送 2(n−1)/n · S 字节",
     "All-reduce: busbw_AR = algbw × 2(n−1)/n, each GPU sending 2(n−1)/n · S bytes in a ring",
     "all-gather：busbw_AG = algbw × 2(n−1)/n；broadcast 的系数为 1",
     "All-gather: busbw_AG = algbw × 2(n−1)/n; broadcast has a factor of 1",
     "单卡带宽为 B 时 t = 2(n−1)/n · S/B；小消息时 t ≈ α + S/B",
     "With a link bandwidth B, t = 2(n−1)/n · S/B; small messages take t ≈ α + S/B"),
    (DISPLAY + "\n\n每卡 busbw_total = algbw × 2(n−1)",
     DISPLAY + "\n\nPer GPU busbw_total = algbw × 2(n−1)"),
    pitfalls=("误用 busbw_AG = algbw × n：那是接收的总量",
              "Writing busbw_AG = algbw × n: that counts all received bytes"))


def problems(judged: CardStatements) -> list[tuple[str, str, str]]:
    return [(v.lang, v.section, v.sentence) for v in judged.problems()]


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    judge_text.cache_clear()
    definitions.definitions.cache_clear()
    yield
    judge_text.cache_clear()


def test_a_name_set_to_another_formula_than_its_display_formula_is_a_contradiction() -> None:
    judged = judge_text(BUSBW)
    got = problems(judged)
    assert sorted((lang, section) for lang, section, _s in got) == [("en", "insights"), ("zh", "insights")]
    assert all("busbw_AG = algbw × 2(n−1)/n" in sentence for _l, _s, sentence in got)
    flag = next(v for v in judged.problems() if v.lang == "en")
    assert (flag.verdict, flag.judge) == ("contradiction", "card")
    assert "busbw_AG" in flag.detail and "(n-1)/(n)" in flag.detail.replace(" ", "")


def test_the_right_formula_raises_no_flag_and_neighbours_stay_unflagged() -> None:
    """busbw_AR written twice alike, algbw, the one-letter t (two quantities), busbw_total (other symbols) and the
    pitfall's deliberate mistake: nothing is flagged once the planted formula is put right."""
    fixed = BUSBW.replace("busbw_AG = algbw × 2(n−1)/n", "busbw_AG = algbw × (n−1)/n")
    assert problems(judge_text(fixed)) == []


def test_the_formula_written_less_often_is_flagged_when_neither_is_a_display() -> None:
    text = card(("压缩比 ratio = nm/(r(n + m))", "the ratio = nm/(r(n + m))"),
                ("按元素 ratio = nm/(r(n + m))", "in elements ratio = nm/(r(n + m))",
                 "因此 ratio = nm/(2r(n + m))", "hence ratio = nm/(2r(n + m))"))
    got = problems(judge_text(text))
    assert len(got) == 2 and all("2r(n + m)" in s for _l, _s, s in got)
    tie = card(("压缩比 ratio = nm/(r(n + m))", "the ratio = nm/(r(n + m))"),
               ("因此 ratio = nm/(2r(n + m))", "hence ratio = nm/(2r(n + m))"))
    assert problems(judge_text(tie)) == []  # one against one, no display formula: the card does not say which


@pytest.mark.parametrize("broken", ["busbw_AG = algbw × ((n−1", "busbw_AG = 我们 × 2", "busbw_AG = algbw ×"])
def test_a_formula_that_does_not_parse_is_no_verdict_and_no_crash(broken: str) -> None:
    text = BUSBW.replace("busbw_AG = algbw × 2(n−1)/n", broken)
    assert problems(judge_text(text)) == []


def test_mutation_a_comparison_that_finds_all_formulas_equal_loses_the_contradiction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(definitions, "_same", lambda a, b: True)
    assert problems(judge_text(BUSBW)) == []


"""Typed answers with units, graded as a person would: the right amount in any unit of the same kind is right,
GiB is not GB, a prefix slip or another kind of unit is wrong with feedback naming it, % and ×/倍 mean what they
say, Chinese numerals and units read, and a bare number takes the drill's unit."""

from __future__ import annotations

import math

import pytest

from app.items import drills, typed_quantity

TOL = drills.TOLERANCE


def _judge(typed: str, expected: float, drill_unit: str) -> tuple[bool, dict[str, str] | None]:
    read = typed_quantity.read(typed, drill_unit)
    ok = read.mismatch is None and math.isclose(read.value, expected, rel_tol=TOL)
    return ok, (None if ok else typed_quantity.mismatch_note(read, expected, drill_unit, TOL))


# (typed, expected answer, the drill's unit, graded right?)
TABLE = [
    # the amount in the drill's unit, bare or spelled
    ("28.06", 28.06, "GB", True), ("28.06 GB", 28.06, "GB", True), ("28.06GB", 28.06, "GB", True),
    ("28,06 GB", 28.06, "GB", True), ("约 28.1 GB", 28.06, "GB", True),
    # the same amount in another unit of data
    ("0.02806 TB", 28.06, "GB", True), ("28060 MB", 28.06, "GB", True), ("26.13 GiB", 28.06, "GB", True),
    ("28,060,000 kB", 28.06, "GB", True), ("28.06 吉字节", 28.06, "GB", True),
    ("二十八点零六 吉字节", 28.06, "GB", True),
    ("28060 兆字节", 28.06, "GB", True),
    # prefix and binary/decimal slips, other kinds, words that are no unit: wrong
    ("28.06 MB", 28.06, "GB", False), ("28.06 TB", 28.06, "GB", False), ("28.06 GiB", 28.06, "GB", False),
    ("28.06 倍", 28.06, "GB", False), ("28.06 ms", 28.06, "GB", False), ("28.06 GB/s", 28.06, "GB", False),
    ("28.06 %", 28.06, "GB", False), ("28.06 bananas", 28.06, "GB", False), ("30 GB", 28.06, "GB", False),
    # GiB drills: GB is not GiB
    ("16 GiB", 16, "GiB", True), ("17.18 GB", 16, "GiB", True), ("16 GB", 16, "GiB", False),
    ("16384 MiB", 16, "GiB", True),
    # times
    ("3 ms", 3, "ms", True), ("0.003 s", 3, "ms", True), ("3000 µs", 3, "ms", True), ("3000 us", 3, "ms", True),
    ("3 毫秒", 3, "ms", True), ("三毫秒", 3, "ms", True), ("3 s", 3, "ms", False), ("3 MB", 3, "ms", False),
    ("90 s", 1.5, "min", True), ("1.5 分钟", 1.5, "min", True), ("36 小时", 1.5, "days", True),
    ("1.5 天", 1.5, "days", True), ("1.5 hours", 1.5, "days", False),
    # ratios: % and × read as what they mean
    ("229%", 2.29, "×", True), ("2.29×", 2.29, "×", True), ("2.29 x", 2.29, "×", True), ("2.29倍", 2.29, "×", True),
    ("2.29", 2.29, "×", True), ("229", 2.29, "×", False), ("2.29 GB", 2.29, "×", False),
    ("75%", 75, "%", True), ("0.75×", 75, "%", True), ("75", 75, "%", True), ("0.75", 75, "%", False),
    # counts: scale words and Chinese numerals
    ("5.2 M", 5.2, "M", True), ("520万", 5.2, "M", True), ("5.2 million", 5.2, "M", True),
    ("5,200,000", 5.2, "M", False),
    ("12 层", 12, "layers", True), ("12 layers", 12, "layers", True), ("十二层", 12, "layers", True),
    ("12 GB", 12, "layers", False), ("1.5万 tokens", 15000, "tokens", True), ("8 条", 8, "sequences", True),
]


@pytest.mark.parametrize(("typed", "expected", "drill_unit", "right"), TABLE)
def test_graded_as_a_person_would(typed: str, expected: float, drill_unit: str, right: bool) -> None:
    ok, note = _judge(typed, expected, drill_unit)
    assert ok is right
    if not right and typed.strip() not in ("30 GB", "229", "0.75", "5,200,000"):
        assert note is not None  # a unit the answer does not take is named in the feedback


def test_the_table_is_big_enough() -> None:
    assert len(TABLE) >= 40 and sum(1 for row in TABLE if not row[3]) >= 15


def test_wrong_unit_feedback_names_the_unit_and_its_amount() -> None:
    _, note = _judge("28.06 TB", 28.06, "GB")
    assert note == {"en": "you wrote TB; 28.06 TB is 28,060 GB", "zh": "你写的单位是 TB；28.06 TB 等于 28,060 GB"}
    _, gib = _judge("28.06 GiB", 28.06, "GB")
    assert gib is not None and "28.06 GiB is 30.1292 GB" in gib["en"]
    _, other = _judge("28.06 ms", 28.06, "GB")
    assert other is not None and "a time" in other["en"] and "时间" in other["zh"]


def test_a_real_drill_in_another_unit() -> None:
    params = drills.new_params("memory-zero3", seed=7)
    expected, drill_unit = drills.answer(params), drills.unit(params)
    assert _judge(f"{expected:.6g} {drill_unit}", expected, drill_unit)[0]
    assert _judge(f"{expected / 1000:.6g} TB", expected, drill_unit)[0]
    ok, note = _judge(f"{expected:.6g} TB", expected, drill_unit)
    assert not ok and note is not None and "you wrote TB" in note["en"]


def test_the_drill_grader_reads_chinese_numerals_and_units() -> None:
    """``drills.grade`` (what POST /api/review calls): the answer written in Chinese numerals and a Chinese unit word
    is right, a Chinese numeral of another amount is wrong."""
    import cn2an

    params = drills.new_params("memory-zero3", seed=7)
    expected = drills.answer(params)
    assert drills.unit(params) == "GB"
    spoken = cn2an.an2cn(f"{expected:.2f}", "low")  # 28.06 -> 二十八点零六
    assert drills.grade(params, f"{spoken} 吉字节").correct
    assert drills.grade(params, f"约{spoken}GB").correct
    assert not drills.grade(params, f"{cn2an.an2cn(f'{expected * 2:.2f}', 'low')} 吉字节").correct

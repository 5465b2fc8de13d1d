"""The raw bank format parser on the seed card and its variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cards.cardfile import dump_card, load_card_text
from app.cards.latex_repair import math_spans as raw_math_spans
from app.cards.rawformat import parse_label, parse_raw_bytes, split_bilingual
from app.cards.schema import CardDoc, Label, LangText
from app.render.markdown import math_spans
from app.render.math import tex_to_mathml
from verify.reading.cardfile import CardFileError

SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"


@pytest.fixture(scope="module")
def seed_bytes() -> bytes:
    return SEED.read_bytes()


@pytest.fixture(scope="module")
def seed(seed_bytes: bytes) -> CardDoc:
    return parse_raw_bytes(seed_bytes, SEED.name).doc


def test_header(seed: CardDoc) -> None:
    assert seed.module == Label(code="M3", zh="深度学习基础", en="Deep Learning Foundations")
    assert seed.topic == Label(zh="分布式训练", en="Distributed Training Basics")
    assert seed.difficulty == "easy"
    assert seed.source == "000_df0768db638cc9c5.txt"


def test_repaired_formulas(seed: CardDoc) -> None:
    en = seed.sections["derivation"].en
    assert "$$\\text{ZeRO-1}: \\text{shard optimizer};\\quad \\text{ZeRO-2}: +\\text{grad};\\quad" in en
    assert "$2\\Psi + 2\\Psi + \\frac{12\\Psi}{N}$" in en
    assert "$P_{\\text{os+g}}$" in en
    assert "$\\frac{16\\Psi}{N}$" in en
    assert "$1.5\\times$" in en
    assert "reduces memory by $4\\times$" in seed.sections["insights"].en
    assert "For a model with $\\Psi$ parameters" in en


def test_every_formula_converts_without_fallback(seed_bytes: bytes, seed: CardDoc) -> None:
    formulas = [(tex, display) for text in seed.sections.values() for lang in (text.zh, text.en)
                for tex, display in math_spans(lang)]
    in_raw = len(list(raw_math_spans(seed_bytes.decode())))
    assert len(formulas) == in_raw + 1  # none lost; the display line is in both languages
    for tex, display in formulas:
        assert "<math" in tex_to_mathml(tex, display), tex


def test_sections_in_both_languages(seed: CardDoc) -> None:
    s = seed.sections
    assert list(s) == ["summary", "insights", "derivation", "tradeoffs", "pitfalls"]
    assert s["summary"].zh == ("ZeRO 分片优化器状态（阶段 1）、梯度（阶段 2）、参数（阶段 3），"
                               "显存逐级下降、通信逐级增加。")
    assert s["summary"].en.startswith("ZeRO eliminates memory redundancies in distributed training")
    assert "- 每设备显存：模型 16Ψ + 优化器 12Ψ（FP32）量级\n- ZeRO-1 省 4 倍优化器状态" in s["insights"].zh
    assert "- ZeRO-2: shards gradients; ranks reduce-scatter gradients" in s["insights"].en
    assert "English Insights" not in s["insights"].en + s["insights"].zh
    assert s["derivation"].zh.startswith("$$\\text{ZeRO-1}")  # the display line belongs to both languages
    assert s["derivation"].en.startswith("$$\\text{ZeRO-1}")
    assert "数学机理：以参数量 Ψ、混合精度" in s["derivation"].zh
    assert "查看英文" not in s["derivation"].zh + s["derivation"].en
    assert "- Gradients (FP16): $2 \\Psi$ bytes." in s["derivation"].en
    assert "③ ZeRO-3 ($P_{\\text{os+g+p}}$): Shards model parameters as well." in s["derivation"].en
    assert "深度剖析与工程权衡：① 与 FSDP 的关系" in s["tradeoffs"].zh
    assert s["tradeoffs"].en.startswith("System design trade-offs: ZeRO-1/2 provide substantial memory relief")
    assert s["pitfalls"].zh == "- 以为 ZeRO 免费（ZeRO-3 通信量显著增加）\n- 不知道优化器状态才是显存大头"
    assert s["pitfalls"].en.startswith("- Using ZeRO-3 on clusters with slow 10Gbps Ethernet")


def test_follow_ups_one_language_each(seed: CardDoc) -> None:
    fus = seed.follow_ups
    assert [f.id for f in fus] == ["fu-1", "fu-2", "fu-3", "fu-4"]
    assert fus[0].question == LangText(zh="为什么优化器状态占显存最多？")
    assert fus[1].question == LangText(
        en="Why does ZeRO-3 require 50% more communication volume than standard Data Parallelism (DDP)?")
    assert fus[2].question == LangText(zh="ZeRO 与 FSDP 的关系？")
    assert fus[3].question.en.startswith("How does ZeRO-Offload leverage host CPU RAM and NVMe SSDs")


def test_links_and_footer(seed: CardDoc) -> None:
    assert [link.title for link in seed.links] == [LangText(
        zh="分布式并行基础：DDP 数据并行、Ring All-Reduce 与 ZeRO 显存切分",
        en="Distributed Training: DDP, Ring All-Reduce & ZeRO Memory")]
    assert seed.links[0].slug == ""
    dumped = dump_card(seed)
    for advert in ("TalentMe", "🔬", "算法科学家", "知识图谱模块", "AI 基础设施工程导图"):
        assert advert not in dumped


def test_bullets_become_markdown_items(seed: CardDoc) -> None:
    text = dump_card(seed)
    for raw_bullet in ("📌", "⚠️", "– ", "🔗"):
        assert raw_bullet not in text


def test_round_trip_through_card_file(seed: CardDoc) -> None:
    assert load_card_text(dump_card(seed), "x.md") == seed


def test_title_and_slug(seed_bytes: bytes, seed: CardDoc) -> None:
    assert (seed.slug, seed.title) == ("zero", LangText(zh="ZeRO", en="ZeRO"))  # the summary's subject
    titled = parse_raw_bytes(seed_bytes, "s.txt", title=LangText(zh="零", en="ZeRO: Sharding, Fast!"))
    assert titled.doc.slug == "zero-sharding-fast"
    assert not titled.title_derived and not titled.notes


def test_crlf_and_bom_import_identically(seed_bytes: bytes, seed: CardDoc) -> None:
    variant = b"\xef\xbb\xbf" + seed_bytes.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    assert variant != seed_bytes
    assert parse_raw_bytes(variant, SEED.name).doc == seed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("分布式(Distributed)", ("分布式", "Distributed")),
        ("中文（English (v2)）", ("中文", "English (v2)")),
        ("只有中文", ("只有中文", "")),
        ("Only English", ("", "Only English")),
    ],
)
def test_split_bilingual(text: str, expected: tuple[str, str]) -> None:
    assert split_bilingual(text) == expected


def test_split_bilingual_unclosed() -> None:
    with pytest.raises(ValueError, match="not closed"):
        split_bilingual("分布式(Distributed Tra")


def test_parse_label_without_code() -> None:
    assert parse_label("优化器 (Optimizers)") == Label(zh="优化器", en="Optimizers")


def _drop_section(raw: str, numeral: str, next_numeral: str) -> str:
    start = raw.index(f"\n{numeral}、")
    end = raw.index(f"\n{next_numeral}、")
    return raw[:start] + raw[end:]


def test_missing_sections_are_named(seed_bytes: bytes) -> None:
    raw = seed_bytes.decode()
    broken = _drop_section(_drop_section(raw, "三", "四"), "五", "六")
    with pytest.raises(CardFileError) as info:
        parse_raw_bytes(broken.encode(), "bad.txt")
    message = str(info.value)
    assert message.startswith("bad.txt:")
    assert "三 (derivation)" in message and "五 (pitfalls)" in message
    assert "四 (" not in message


def test_missing_english_marker(seed_bytes: bytes) -> None:
    broken = seed_bytes.decode().replace("English Pitfalls:\n", "")
    with pytest.raises(CardFileError, match=r"section 五 \(pitfalls\): no 'English Pitfalls:' line") as info:
        parse_raw_bytes(broken.encode(), "bad.txt")
    line = broken.split("\n").index("五、常见面试避坑陷阱 (Common Pitfalls & Traps)") + 1
    assert info.value.line == line


def test_bad_header_and_truncated_link(seed_bytes: bytes) -> None:
    raw = seed_bytes.decode()
    with pytest.raises(CardFileError, match=r"bad\.txt:2: difficulty 'Expert' is not Easy, Medium or Hard"):
        parse_raw_bytes(raw.replace("难度等级：Easy", "难度等级：Expert").encode(), "bad.txt")
    with pytest.raises(CardFileError, match=r"bad\.txt:1: header does not match"):
        parse_raw_bytes(raw.replace("| 专题分类：", " 专题分类：").encode(), "bad.txt")
    cut = raw[: raw.index("(Distributed Training: DDP") + 20]
    with pytest.raises(CardFileError) as info:
        parse_raw_bytes(cut.encode(), "bad.txt")
    assert "section 七 (links): link title" in str(info.value) and "not closed" in str(info.value)
    assert info.value.line == cut.count("\n") + 1


def test_no_header_is_not_a_card() -> None:
    with pytest.raises(CardFileError, match=r"x\.txt:1: not a bank card"):
        parse_raw_bytes(b"# Some Markdown\n\ntext\n", "x.txt")

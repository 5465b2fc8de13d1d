"""Titles and slugs of imported bank cards: never cut inside brackets or TeX, ASCII kebab-case slugs without TeX
(ZeRO++ → zero-plus-plus), and the titles table: ``--write-titles`` lists what was derived for a whole folder,
``--titles`` applies the reviewed list."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from app.cards.cardfile import load_card_file
from app.cards.rawformat import derive_title, parse_raw_bytes, slugify
from app.cards.schema import LangText
from app.cli.main import cli

SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"
SEED_TEXT = SEED.read_text(encoding="utf-8")
BANK = Path(__file__).parent / "data" / "bank"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["import", *args, "--no-judge"])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def with_summary(zh: str, en: str) -> str:
    lines = SEED_TEXT.split("\n")
    assert lines[4].startswith("ZeRO eliminates") and lines[3].startswith("ZeRO 分片")
    lines[3], lines[4] = zh, en
    return "\n".join(lines)


def balanced(text: str) -> bool:
    return (text.count("$") % 2 == 0 and text.count("(") == text.count(")") and text.count("（") == text.count("）"))


def test_titles_never_cut_inside_brackets_or_tex() -> None:
    long_zh = "混合精度训练中每个参数的显存开销（阶段 1，阶段 2，阶段 3 分别切分优化器状态、梯度与参数本身）很大。"
    title = derive_title(LangText(zh=long_zh, en="Chinchilla (Hoffmann et al., 2022) sets tokens to 20x params."))
    assert balanced(title.zh) and balanced(title.en), title
    assert title.en.startswith("Chinchilla (Hoffmann et al., 2022)")
    tex = derive_title(LangText(zh="logits 占用 $s\\times b，V$ 字节，很大", en="The $s, b$ logits take memory, a lot"))
    assert tex.zh == "logits 占用 $s\\times b，V$ 字节" and tex.en == "The $s, b$ logits take memory"


def test_slugs_ascii_kebab_without_tex() -> None:
    assert slugify("ZeRO++ cuts ZeRO-3 cross-node traffic").startswith("zero-plus-plus")
    assert slugify("$s \\times b \\times V$ logits memory") == "logits-memory"
    raw = with_summary("ZeRO++ 把 ZeRO-3 的跨节点通信减到 $1/4$。", "ZeRO++ cuts ZeRO-3 cross-node traffic to $1/4$.")
    doc = parse_raw_bytes(raw.encode(), "zpp.txt").doc
    assert doc.slug.startswith("zero-plus-plus") and "times" not in doc.slug and KEBAB.fullmatch(doc.slug)


def test_bank_titles_whole_and_slugs_kebab() -> None:
    for path in [SEED, *sorted(BANK.rglob("*.txt"))]:
        try:
            doc = parse_raw_bytes(path.read_bytes(), str(path)).doc
        except ValueError:
            continue  # the bank's broken test cards are the importer tests' business
        assert KEBAB.fullmatch(doc.slug), (path.name, doc.slug)
        assert balanced(doc.title.zh) and balanced(doc.title.en), (path.name, doc.title)


def test_titles_table_round_trip(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.txt").write_text(SEED_TEXT, encoding="utf-8")
    (raw / "b.txt").write_text(with_summary("流水线气泡随微批次增多而缩小。", "The pipeline bubble shrinks with more "
                                            "micro-batches."), encoding="utf-8")
    table = tmp_path / "titles.tsv"
    code, stdout, stderr = run(str(raw), "--out", str(tmp_path / "first"), "--write-titles", str(table))
    assert code == 0, stderr
    rows = [line.split("\t") for line in table.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == ["file", "zh", "en", "slug", "from"]
    assert {r[0] for r in rows[1:]} == {"a.txt", "b.txt"}
    derived = {r[0]: r for r in rows[1:]}
    assert derived["b.txt"][1:] == ["流水线气泡", "Pipeline bubble", "pipeline-bubble", "summary subject"]
    assert derived["a.txt"][3] == load_card_file(tmp_path / "first" / f"{derived['a.txt'][3]}.md").slug
    edited = ("file\tzh\ten\tslug\na.txt\tZeRO 三个阶段\tZeRO stages\tzero-stages\n"
              "b.txt\t流水线气泡\tPipeline bubbles\t\n")
    table.write_text(edited, encoding="utf-8")
    out = tmp_path / "cards"
    code, stdout, stderr = run(str(raw), "--out", str(out), "--titles", str(table), "--json")
    assert code == 0, stderr
    by_source = {Path(i["source"]).name: i["slug"] for i in json.loads(stdout)["imported"]}
    assert by_source == {"a.txt": "zero-stages", "b.txt": "pipeline-bubbles"}
    assert load_card_file(out / "zero-stages.md").title == LangText(zh="ZeRO 三个阶段", en="ZeRO stages")
    table.write_text("file\tzh\ten\tslug\na.txt\tx\tX\tNot Kebab\n", encoding="utf-8")
    code, _, stderr = run(str(raw), "--out", str(tmp_path / "bad"), "--titles", str(table))
    assert code == 2 and "titles.tsv:2" in stderr and "kebab-case" in stderr

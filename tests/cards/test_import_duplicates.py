"""``proofdeck import`` of a bank with repeats: byte-identical files and same-title files are written once and
named; a changed re-export of a card already in the folder rewrites that card (same slug), no ``-2`` copy."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cards.cardfile import load_card_file
from app.cli.main import cli

SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"
SEED_TEXT = SEED.read_text(encoding="utf-8")
BANK = Path(__file__).parent / "data" / "bank" / "dev"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["import", *args, "--no-judge"])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def test_byte_identical_repeats_written_once(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    sources = sorted(BANK.glob("*.txt"))[:3]
    for i, src in enumerate(sources):
        (raw / f"{i:03}.txt").write_bytes(src.read_bytes())
    for i, src in enumerate(sources[:2]):  # the export's last files repeat its first ones
        (raw / f"9{i:02}.txt").write_bytes(src.read_bytes())
    out = tmp_path / "cards"
    code, stdout, stderr = run(str(raw), "--out", str(out), "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert len(report["imported"]) == 3 == len(list(out.glob("*.md")))
    pairs = {(Path(d["source"]).name, Path(d["repeats"]).name, d["why"]) for d in report["duplicates"]}
    assert pairs == {("900.txt", "000.txt", "byte-identical"), ("901.txt", "001.txt", "byte-identical")}
    assert not any(p.name.endswith("-2.md") for p in out.iterdir())
    code, stdout, _ = run(str(raw), "--out", str(tmp_path / "plain"))
    assert "3 imported, 0 failed, 2 duplicates skipped" in stdout
    assert "900.txt repeats 000.txt (byte-identical)" in stdout


def test_changed_reexport_updates_its_card(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.txt").write_text(SEED_TEXT, encoding="utf-8")
    out = tmp_path / "cards"
    assert run(str(raw), "--out", str(out))[0] == 0
    [first] = list(out.glob("*.md"))
    before = load_card_file(first)
    changed = SEED_TEXT.replace("显存逐级下降", "显存一级一级下降")
    assert changed != SEED_TEXT
    export2 = tmp_path / "export2"
    export2.mkdir()
    (export2 / "a-v2.txt").write_text(changed, encoding="utf-8")
    code, stdout, stderr = run(str(export2), "--out", str(out))
    assert (code, stderr) == (0, ""), stdout
    assert [p.name for p in out.glob("*.md")] == [first.name]
    after = load_card_file(first)
    assert after.slug == before.slug and after.title == before.title
    assert after != before and "显存一级一级下降" in first.read_text(encoding="utf-8")
    assert "(updated)" in stdout

"""``proofdeck import`` for real: good and bad files in one batch, folders, titles, no half-written files."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cards.cardfile import load_card_file
from app.cards.raw_files import write_atomically
from app.cards.rawformat import parse_raw_bytes
from app.cli.main import cli

SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"
SEED_TEXT = SEED.read_text(encoding="utf-8")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["import", *args])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def variant(summary_en: str) -> str:
    """The seed with another English summary (so another derived title and slug)."""
    old = SEED_TEXT.split("\n")[4]
    assert old.startswith("ZeRO eliminates")
    return SEED_TEXT.replace(old, summary_en)


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "good.txt").write_text(SEED_TEXT, encoding="utf-8")
    lines = SEED_TEXT.split("\n")
    without = "\n".join(line for line in lines if not line.startswith(("三、", "六、")))
    (raw / "missing.txt").write_text(without, encoding="utf-8")
    (raw / "cut.txt").write_text("\n".join(lines[:20]), encoding="utf-8")  # stops inside section 三
    data = SEED_TEXT.encode()
    cut_in_char = data.index("显存逐级下降".encode()) + 1
    (raw / "cut_bytes.txt").write_bytes(data[:cut_in_char])
    (raw / "latin1.txt").write_bytes(data.replace("核心考点要义".encode(), "Kernpunkte \xfcber".encode("latin-1")))
    (raw / "notes.txt").write_text("shopping list\n- milk\n- eggs\n", encoding="utf-8")
    (raw / "empty.txt").write_bytes(b"")
    (raw / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (raw / "readme.md").write_text("not a raw export, ignored in folders", encoding="utf-8")
    return raw


def test_batch_with_bad_files(batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "cards"
    code, stdout, stderr = run(str(batch), "--out", str(out))
    assert code == 1
    errors = [line for line in stderr.splitlines() if line.startswith("error ")]
    assert len(errors) == 7, stderr
    by_file = {Path(line.split()[1].split(":")[0]).name: line for line in errors}
    assert set(by_file) == {"missing.txt", "cut.txt", "cut_bytes.txt", "latin1.txt", "notes.txt", "empty.txt",
                            "image.txt"}
    assert "missing section(s) 三 (derivation), 六 (follow-ups)" in by_file["missing.txt"]
    assert "missing section(s) 四 (trade-offs), 五 (pitfalls), 六 (follow-ups), 七 (links)" in by_file["cut.txt"]
    assert "cut.txt:20: " in by_file["cut.txt"] and "the file ends at line 20 inside section 三" in by_file["cut.txt"]
    assert "三 expected before section 四 at line" in by_file["missing.txt"]
    assert "truncated" in by_file["cut_bytes.txt"] and "cut_bytes.txt:4:" in by_file["cut_bytes.txt"]
    assert "not valid UTF-8" in by_file["latin1.txt"] and "latin1.txt:6:" in by_file["latin1.txt"]
    assert "not a bank card" in by_file["notes.txt"] and "notes.txt:1:" in by_file["notes.txt"]
    assert "empty file" in by_file["empty.txt"]
    assert "binary file" in by_file["image.txt"]
    # the good card is written, nothing else (no temporary files either)
    written = files_in(out)
    assert written == ["zero.md"]  # the summary's subject: "ZeRO eliminates memory redundancies …"
    doc = load_card_file(out / written[0])
    assert doc == parse_raw_bytes(SEED.read_bytes(), str(batch / "good.txt")).doc
    assert "1 imported, 7 failed" in stdout
    assert "title derived from the summary" in stdout


def test_folder_of_good_cards(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    (raw / "sub").mkdir(parents=True)
    (raw / "a.txt").write_text(SEED_TEXT, encoding="utf-8")
    (raw / "sub" / "b.txt").write_text(variant("Pipeline bubbles shrink with more micro-batches."), encoding="utf-8")
    (raw / "sub" / "c.txt").write_text(SEED_TEXT.replace("\n", "\r\n"), encoding="utf-8")  # a's title: a repeat
    out = tmp_path / "cards"
    code, stdout, stderr = run(str(raw), "--out", str(out))
    assert (code, stderr) == (0, "")
    assert files_in(out) == ["pipeline-bubbles-shrink-more-micro-batches.md", "zero.md"]
    for path in out.iterdir():
        assert path.stat().st_mode & 0o644 == 0o644
        load_card_file(path)
    assert "2 imported, 0 failed, 1 duplicate skipped" in stdout
    assert "c.txt repeats a.txt (same title)" in stdout


def test_single_file_with_title_and_slug(tmp_path: Path) -> None:
    out = tmp_path / "cards"
    code, stdout, _ = run(str(SEED), "--out", str(out), "--title", "ZeRO 显存分片(ZeRO: Sharding)",
                          "--slug", "zero-sharding")
    assert code == 0
    doc = load_card_file(out / "zero-sharding.md")
    assert (doc.title.zh, doc.title.en) == ("ZeRO 显存分片", "ZeRO: Sharding")
    assert doc.source == SEED.name
    assert "derived" not in stdout
    # a second import refuses to overwrite the (maybe hand-edited) card, --force overwrites
    (out / "zero-sharding.md").write_text("edited", encoding="utf-8")
    code, _, stderr = run(str(SEED), "--out", str(out), "--slug", "zero-sharding")
    assert code == 1 and "already exists" in stderr
    assert (out / "zero-sharding.md").read_text(encoding="utf-8") == "edited"
    code, _, _ = run(str(SEED), "--out", str(out), "--slug", "zero-sharding", "--force")
    assert code == 0 and load_card_file(out / "zero-sharding.md").slug == "zero-sharding"


def test_title_needs_one_file(tmp_path: Path) -> None:
    code, _, stderr = run(str(SEED), str(SEED), "--out", str(tmp_path), "--title", "甲(A)")
    assert code == 2 and "--title and --slug name one card" in stderr
    code, _, stderr = run(str(SEED), "--out", str(tmp_path), "--title", "甲(A")
    assert code == 2 and "--title" in stderr
    assert files_in(tmp_path) == []


def test_missing_path(tmp_path: Path) -> None:
    code, _, stderr = run(str(tmp_path / "nope.txt"), "--out", str(tmp_path / "out"))
    assert code == 1 and "nope.txt: no such file or folder" in stderr


def test_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("app.cards.raw_files.os.replace", boom)
    with pytest.raises(OSError):
        write_atomically(tmp_path / "card.md", "text")
    assert files_in(tmp_path) == []
    code, _, stderr = run(str(SEED), "--out", str(tmp_path / "out"))
    assert code == 1 and "No space left on device" in stderr
    assert files_in(tmp_path / "out") == []

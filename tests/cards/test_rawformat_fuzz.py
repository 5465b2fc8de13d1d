"""Property tests for the raw bank importer: any input ends in a card or in one clear line naming the file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cards.bank_import import import_paths
from app.cards.rawformat import parse_raw_bytes
from verify.reading.cardfile import CardFileError

SEED = (Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt").read_bytes()
NAME = "bank/000.txt"
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _parse_or_clear_error(data: bytes) -> None:
    try:
        parse_raw_bytes(data, NAME)
    except CardFileError as exc:
        message = str(exc)
        assert message.startswith(NAME) and "\n" not in message and exc.message


@FUZZ
@given(st.integers(min_value=0, max_value=len(SEED)))
def test_truncated_anywhere(cut: int) -> None:
    _parse_or_clear_error(SEED[:cut])


@FUZZ
@given(st.binary(max_size=4000))
def test_random_bytes(data: bytes) -> None:
    _parse_or_clear_error(data)


@FUZZ
@given(st.integers(min_value=0, max_value=len(SEED)), st.binary(min_size=1, max_size=16))
def test_junk_spliced_in(at: int, junk: bytes) -> None:
    _parse_or_clear_error(SEED[:at] + junk + SEED[at:])


LINE_BITS = ["$", "$$", "\\frac{", "}", "- ", "  - ", "> ", "```", "# ", "## en", "---", "一、", "English Pitfalls:",
             "📖 查看英文", "text", "left", "times", "Psi", "中文", "<script>alert(1)</script>", "\t", "\r"]


@FUZZ
@given(st.integers(min_value=0, max_value=SEED.count(b"\n")),
       st.lists(st.sampled_from(LINE_BITS), min_size=1, max_size=40).map("".join))
def test_markdownish_line_inserted(line_no: int, line: str) -> None:
    lines = SEED.split(b"\n")
    lines.insert(line_no, line.encode())
    _parse_or_clear_error(b"\n".join(lines))


def test_huge_field_and_deep_nesting() -> None:
    text = SEED.decode("utf-8")
    deep = "\n".join("  " * d + "- 嵌套 $x_" + str(d) + "$" for d in range(300))
    huge = "很长的推导。" * 100_000
    mutated = text.replace("数学机理：", f"数学机理：{huge}\n{deep}\n", 1)
    card = parse_raw_bytes(mutated.encode(), NAME).doc
    assert huge in card.section("derivation").zh


def test_invalid_utf8_named_with_line(tmp_path: Path) -> None:
    bad = SEED.replace(b"ZeRO-2", b"ZeRO-\xff", 1)
    try:
        parse_raw_bytes(bad, NAME)
    except CardFileError as exc:
        assert exc.line is not None and "UTF-8" in exc.message
    else:
        raise AssertionError("invalid UTF-8 was accepted")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=len(SEED) - 1))
def test_batch_keeps_good_files_and_leaves_no_partial_file(tmp_path: Path, cut: int) -> None:
    folder = tmp_path / f"in-{cut}"
    out = tmp_path / f"out-{cut}"
    folder.mkdir()
    (folder / "a-good.txt").write_bytes(SEED)
    (folder / "b-cut.txt").write_bytes(SEED[:cut])
    report = import_paths([folder], out)
    assert [i.source.name for i in report.imported][:1] == ["a-good.txt"]
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == len(report.imported)  # nothing half-written, no temporary files left
    for err in report.failed:
        assert str(err).startswith(str(folder / "b-cut.txt"))

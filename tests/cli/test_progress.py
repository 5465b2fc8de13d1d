"""What long commands print while they work when their output is not a terminal: plain progress lines
(``rendering 2/3 cards (0 s)``) every ``PROOFDECK_PROGRESS_INTERVAL`` seconds (0 here: one per item),
then one summary line with the counts and the time; app/core/progress.py is the one helper."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cards.schema import FollowUp, LangText
from app.cli.main import cli
from app.core.config import settings
from app.core.progress import Progress, seconds
from tests.utils.cards import make_card, write_cards

SEED = Path(__file__).parents[1] / "cards" / "data" / "000_df0768db638cc9c5.txt"
SUMMARY = re.compile(r" in \d+\.\d s$|in \d+ min \d\d s$")


@pytest.fixture(autouse=True)
def _every_item(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "PROGRESS_INTERVAL", 0.0)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


@pytest.fixture
def deck(tmp_path: Path, database_url: str) -> Iterator[tuple[Path, str]]:
    """Three small cards with a follow-up each, synced into a fresh database."""
    docs = [make_card(f"card-{i}", follow_ups=[FollowUp(id=f"fu-{i}", question=LangText(en=f"Why {i}?"),
                                                        answer=LangText(en=f"Because {i}."))]) for i in range(3)]
    folder = write_cards(tmp_path / "cards", *docs)
    code, _, err = invoke("sync", "--cards", str(folder), "--database-url", database_url)
    assert code == 0, err
    yield folder, database_url


# the helper


def test_plain_lines_come_after_each_item_and_at_the_interval() -> None:
    seen: list[str] = []
    with Progress(emit=seen.append, interval=0) as progress:
        for item in progress.each("reading", ["a", "b"], unit="files"):
            seen.append(f"body {item}")
    assert [re.sub(r" \(\d+ s\)$", "", s) for s in seen] == ["body a", "reading 1/2 files", "body b",
                                                            "reading 2/2 files"]
    quiet: list[str] = []
    with Progress(emit=quiet.append, interval=3600) as progress:
        tick = progress.step("writing", total=1000, unit="notes")
        for _ in range(1000):
            tick()
        progress.step("packing")  # an untickable step says its name once, whatever the interval
    assert quiet == ["packing …"]
    assert progress.done == 0 and progress.label == "packing"


def test_the_summary_says_how_long_it_took() -> None:
    with Progress(emit=lambda _: None) as progress:
        pass
    assert SUMMARY.search(progress.summary("wrote 3 notes")) and progress.summary("x").startswith("x in ")
    assert (seconds(0.44), seconds(59.96), seconds(125)) == ("0.4 s", "60.0 s", "2 min 05 s")


def test_a_terminal_gets_a_bar_not_lines() -> None:
    seen: list[str] = []
    with Progress(emit=seen.append, interval=0, bar=True) as progress:
        for _ in progress.each("rendering", range(3), unit="cards"):
            pass
        assert progress._rich is not None
    assert seen == [] and progress._rich is None  # the bar is gone once the command ends


# every long command


def test_sync_reads_each_card_file_then_says_what_it_did(tmp_path: Path, database_url: str) -> None:
    folder = write_cards(tmp_path / "cards", *(make_card(f"c{i}") for i in range(3)))
    code, out, err = invoke("sync", "--cards", str(folder), "--database-url", database_url)
    assert code == 0, err
    assert "checking the database schema …" in err and "writing the cards …" in err
    assert [line.split(" (")[0] for line in err.splitlines() if line.startswith("reading")] == [
        "reading 1/3 card files", "reading 2/3 card files", "reading 3/3 card files"]
    assert re.fullmatch(rf"synced {re.escape(str(folder))}: 3 added, 0 updated, 0 unchanged, 0 retired in "
                        r"\d+\.\d s", last_line(out))


def test_no_line_per_item_at_the_default_interval(tmp_path: Path, database_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "PROGRESS_INTERVAL", 3600.0)
    folder = write_cards(tmp_path / "cards", *(make_card(f"c{i}") for i in range(3)))
    code, out, err = invoke("sync", "--cards", str(folder), "--database-url", database_url)
    assert code == 0 and "reading" not in err and SUMMARY.search(last_line(out))


@pytest.mark.parametrize(("command", "target", "lines"), [
    ("html", "book.html", ["rendering 3/3 cards", "assembling the page …", "writing …"]),
    ("anki", "deck.apkg", ["building notes 3/3 cards", "writing the package …"]),
    ("obsidian", "vault", ["rendering notes 3/3 cards", "writing 5/5 notes"]),
])
def test_exports(deck: tuple[Path, str], tmp_path: Path, command: str, target: str, lines: list[str]) -> None:
    _, database_url = deck
    code, out, err = invoke("export", command, str(tmp_path / target), "--database-url", database_url)
    assert code == 0, err
    shown = [line.split(" (")[0] if "/" in line else line for line in err.splitlines()]
    assert shown[0] == "loading the deck …" and all(line in shown for line in lines), err
    assert last_line(out).startswith("wrote ") and SUMMARY.search(last_line(out))


def test_import_of_raw_cards(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    text = SEED.read_text(encoding="utf-8")
    (raw / "a.txt").write_text(text, encoding="utf-8")
    (raw / "b.txt").write_text(text.replace("ZeRO eliminates", "ZeRO removes"), encoding="utf-8")
    code, out, err = invoke("import", str(raw), "--out", str(tmp_path / "cards"))
    assert code == 0, err
    assert [line.split(" (")[0] for line in err.splitlines()] == ["importing 1/2 raw cards", "importing 2/2 raw cards",
                                                                   "judging 1/2 cards", "judging 2/2 cards"]
    assert re.fullmatch(r"2 imported, 0 failed; [\d,]+ statements, [\d,]+ judged.* in \d+\.\d s", last_line(out))


def test_obsidian_review_import(deck: tuple[Path, str], tmp_path: Path) -> None:
    _, database_url = deck
    assert invoke("user", "add", "ann", "--database-url", database_url)[0] == 0
    assert invoke("export", "obsidian", str(tmp_path / "vault"), "--database-url", database_url)[0] == 0
    code, out, err = invoke("import", "obsidian-reviews", str(tmp_path / "vault"), "--user", "ann",
                            "--database-url", database_url)
    assert code == 0, err
    shown = [line.split(" (")[0] if "/" in line else line for line in err.splitlines()]
    for line in ("reading the vault 5/5 files", "parsing notes 5/5 notes", "reading schedules 3/3 notes",
                 "storing …"):
        assert line in shown, err
    assert last_line(out).startswith("ann: 0 review state(s) imported from 3 note(s)") and SUMMARY.search(
        last_line(out))


def test_claims_commands(tmp_path: Path) -> None:
    folder = write_cards(tmp_path / "cards", *(make_card(f"c{i}") for i in range(2)))
    code, out, err = invoke("claims", "coverage", "--cards", str(folder))
    assert code == 0, err
    assert [line.split(" (")[0] for line in err.splitlines()] == ["parsing 1/2 cards", "parsing 2/2 cards"]
    assert re.fullmatch(r"2 card\(s\): \d+ / \d+ statements judged in \d+\.\d s", last_line(out))
    code, out, err = invoke("claims", "suggest", str(folder / "c0.md"))
    assert code == 0, err
    assert err.splitlines()[0].split(" (")[0] == "proposing 1/1 cards"
    assert re.fullmatch(r"1 card\(s\): \d+ claim\(s\) proposed, \d+ dropped \(quote and asserts disagree\), "
                        r"\d+ already there, \d+ unchecked in \d+\.\d s", last_line(err))
    assert "claims:" in out  # stdout stays the YAML, nothing else


def test_server_start_up_sync_logs_its_progress(tmp_path: Path, database_url: str) -> None:
    from app.core.db import make_engine
    from app.core.logging import log
    from app.main import startup_sync

    folder = write_cards(tmp_path / "cards", *(make_card(f"c{i}") for i in range(2)))
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    log.addHandler(handler)
    engine = make_engine(database_url)
    try:
        startup_sync(engine, folder)
    finally:
        log.removeHandler(handler)
        engine.dispose()
    assert [r.split(" (")[0] for r in records if r.startswith("reading")] == ["reading 1/2 card files",
                                                                             "reading 2/2 card files"]
    assert re.fullmatch(r"cards synced: 2 added, 0 updated, 0 unchanged, 0 retired in \d+\.\d s", records[-1])

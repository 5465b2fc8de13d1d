"""``proofdeck claims suggest DIR --write`` on a folder of imported bank cards, in one process: the next sync
(into a fresh SQLite file) flags none of the proposed claims, a second run appends nothing, and a proposal
whose quote states a number its assertion does not is left out (app/cli/claims.py: ``agrees``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cards.claim_lint import lint_claims
from app.cli.main import cli
from app.core.db import make_engine
from app.deck.sync import SyncReport, load_deck, sync_cards
from app.models.migrate import init_db
from verify.reading.cardfile import read_card, read_text
from verify.reading.suggest import suggest_card

DATA = Path(__file__).resolve().parents[1] / "cards" / "data"
SEED = DATA / "000_df0768db638cc9c5.txt"
# a derivation whose one formula holds two values: "12Ψ → 12Ψ/N" cannot be quoted for one of them alone
TWO_IN_ONE = r"ZeRO-1 shards the optimizer states: $12\Psi \to 12\Psi/N$ bytes of optimizer memory per rank."
LINE = re.compile(r"^(?P<card>\S+\.md): (?P<new>\d+) proposed claim\(s\) appended, (?P<dropped>\d+) dropped .*, "
                  r"(?P<known>\d+) already there$", re.M)


def raw_card(derivation_en: str) -> str:
    """The seed's raw card with our own English derivation and summary (another title: not a repeat of the seed)."""
    lines = SEED.read_text(encoding="utf-8").split("\n")
    start = next(i for i, x in enumerate(lines) if x.startswith("Memory Breakdown"))
    end = next(i for i, x in enumerate(lines) if x.startswith("四、"))
    lines[3], lines[4] = "ZeRO-1 只切分优化器状态。", "ZeRO-1 shards only the optimizer states."
    return "\n".join(lines[:start] + [derivation_en] + lines[end:])


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dev bank cards, the seed and a card of our own, imported."""
    raw = tmp_path_factory.mktemp("raw")
    for path in [SEED, *sorted((DATA / "bank" / "dev").glob("*.txt"))]:
        shutil.copy(path, raw)
    (raw / "999_two_in_one.txt").write_text(raw_card(TWO_IN_ONE), encoding="utf-8")
    out = raw.parent / "cards"
    invoke("import", str(raw), "--out", str(out), "--no-judge")
    return out


def sync(folder: Path, db: Path) -> SyncReport:
    engine = make_engine(f"sqlite:///{db}")
    try:
        init_db(engine)
        return sync_cards(engine, folder)
    finally:
        engine.dispose()


def statement_notes(folder: Path) -> list[str]:
    notes: list[str] = []
    load_deck(folder, notes)
    return sorted(n for n in notes if n.startswith(("✗", "⇄")))


def test_folder_write_then_sync_flags_no_proposed_claim(cards: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cards"
    shutil.copytree(cards, folder)
    before = statement_notes(folder)
    output = invoke("claims", "suggest", str(folder), "--write")
    lines = {Path(m["card"]).name: m for m in LINE.finditer(output)}
    assert len(lines) == len(list(folder.glob("*.md"))) == 14, output
    appended = sum(int(m["new"]) for m in lines.values())
    assert appended >= 15, output  # the seed alone gets ~18
    two = next(name for name in lines if read_card(folder / name).meta.get("source") == "999_two_in_one.txt")
    assert int(lines[two]["dropped"]) >= 2, output  # optim_bytes(zero1) == 12*Psi and == 12*Psi/N
    assert "# not proposed (en) optim_bytes(zero1) == 12*Psi/N: the quote states 12\\Psi" in output

    proposed = [c for p in folder.glob("*.md") for c in read_card(p).meta.get("claims") or []
                if c["id"].startswith("proposed-")]
    assert len(proposed) == appended
    report = sync(folder, tmp_path / "fresh.sqlite")
    assert len(report.added) == 14
    flagged = [n for n in report.claim_notes if "claim proposed-" in n]
    assert not flagged, flagged
    assert statement_notes(folder) == before  # a proposed claim hides no refuted or contradictory statement

    again = invoke("claims", "suggest", str(folder), "--write")
    assert sum(int(m["new"]) for m in LINE.finditer(again)) == 0, again
    assert sum(int(m["known"]) for m in LINE.finditer(again)) == appended


def test_without_the_agreement_check_the_next_sync_would_flag_them(cards: Path, tmp_path: Path) -> None:
    # the mutation: the proposals written as read, unchecked -> sync's linter flags the two-valued quote
    card = next(p for p in sorted(cards.glob("*.md")) if read_card(p).meta.get("source") == "999_two_in_one.txt")
    target = tmp_path / card.name
    shutil.copy(card, target)
    written = suggest_card(target, None, write_back=True)
    assert written.written and not written.dropped
    _errors, notes = lint_claims(read_text(target), str(target))
    mismatched = [n for n in notes if n.startswith("mismatch") and "claim proposed-" in n]
    assert len(mismatched) >= 2, notes


def test_a_single_file_and_a_dry_run(cards: Path, tmp_path: Path) -> None:
    seed = next(p for p in sorted(cards.glob("*.md")) if read_card(p).meta.get("source") == SEED.name)
    text = seed.read_text(encoding="utf-8")
    output = invoke("claims", "suggest", str(seed))
    assert output.startswith("claims:\n- id: proposed-1\n") and "# unchecked " in output
    assert seed.read_text(encoding="utf-8") == text  # no --write, nothing written
    output = invoke("claims", "suggest", str(cards), "--no-unchecked")
    assert f"# {seed}\n" in output and "# unchecked" not in output
    result = CliRunner().invoke(cli, ["claims", "suggest", str(tmp_path / "nothing-here")])
    assert result.exit_code == 2 and "no such card file or folder" in result.output

"""``proofdeck claims coverage``: statements found in a card's prose and which of them a claim checks."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from verify.coverage import card_coverage

CARDS = Path(__file__).resolve().parents[2] / "cards"


def test_a_new_claim_moves_a_statement_from_unchecked_to_checked(tmp_path: Path) -> None:
    shutil.copytree(CARDS, tmp_path / "cards")
    card = tmp_path / "cards" / "pipeline-parallelism.md"
    before = card_coverage(card)
    assert "en: (m+p-1)t_f" in before.unchecked and before.found
    text = card.read_text(encoding="utf-8")
    claim = ("  - id: forward-phase\n    section: derivation\n    text:\n      en: 'the forward phase lasts "
             "$(m+p-1)t_f$'\n    asserts: 'pipeline_step_time(gpipe) == (m+p-1)*t_f + (m+p-1)*t_b'\n")
    card.write_text(text.replace("claims:\n", "claims:\n" + claim, 1), encoding="utf-8")
    after = card_coverage(card)
    assert "en: (m+p-1)t_f" in after.checked
    assert len(after.checked) == len(before.checked) + 1 and after.found == before.found


def test_cli_prints_checked_over_found_and_the_unchecked() -> None:
    result = CliRunner().invoke(cli, ["claims", "coverage", "zero-sharding", "--cards", str(CARDS)])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    cov = card_coverage(CARDS / "zero-sharding.md")
    assert first == f"zero-sharding: {len(cov.checked)} / {len(cov.found)} checked ({cov.ratio:.0%})"
    assert "unchecked zh: 14Ψ" not in result.output  # the zh "14Ψ" is a claim (refuted, but checked)
    assert any(line.startswith("  unchecked ") for line in result.output.splitlines())
    missing = CliRunner().invoke(cli, ["claims", "coverage", "no-such-card", "--cards", str(CARDS)])
    assert missing.exit_code == 1

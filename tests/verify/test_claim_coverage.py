"""``proofdeck claims coverage``: statements found in a card's prose and which of them a claim checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from verify.reading.coverage import card_coverage

CARDS = Path(__file__).resolve().parents[2] / "cards"


def test_a_new_claim_moves_a_statement_from_unchecked_to_checked(tmp_path: Path) -> None:
    shutil.copytree(CARDS, tmp_path / "cards")
    card = tmp_path / "cards" / "pipeline-parallelism.md"
    before = card_coverage(card)
    assert "en: \\frac{p-1}{m+p-1}" in before.unchecked and before.found
    text = card.read_text(encoding="utf-8")
    quote = r"$$T = (m+p-1)(t_f+t_b), \qquad \text{bubble} = \frac{T - m(t_f+t_b)}{T} = \frac{p-1}{m+p-1}$$"
    claim = (f"  - id: bubble-fraction-frac\n    section: derivation\n    text:\n      en: '{quote}'\n"
             "    asserts: 'bubble_fraction(gpipe) == (p-1)/(m+p-1)'\n")
    card.write_text(text.replace("claims:\n", "claims:\n" + claim, 1), encoding="utf-8")
    after = card_coverage(card)
    assert "en: \\frac{p-1}{m+p-1}" in after.checked and "en: \\frac{T - m(t_f+t_b)}{T}" in after.checked
    assert len(after.checked) == len(before.checked) + 2 and after.found == before.found


def test_cli_prints_checked_over_found_and_the_unchecked() -> None:
    result = CliRunner().invoke(cli, ["claims", "coverage", "zero-sharding", "--cards", str(CARDS)])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    cov = card_coverage(CARDS / "zero-sharding.md")
    assert first == f"zero-sharding: {len(cov.checked)} / {len(cov.found)} checked ({cov.ratio:.0%})"
    assert "unchecked zh: 14Ψ" not in result.stdout  # the zh "14Ψ" is a claim (refuted, but checked)
    pipe = CliRunner().invoke(cli, ["claims", "coverage", "pipeline-parallelism", "--cards", str(CARDS)])
    assert "  unchecked en: \\frac{p-1}{m+p-1}" in pipe.stdout.splitlines(), pipe.output
    missing = CliRunner().invoke(cli, ["claims", "coverage", "no-such-card", "--cards", str(CARDS)])
    assert missing.exit_code == 1


BUNDLED = sorted(p for p in CARDS.glob("*.md") if p.name.lower() != "readme.md")


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_card_checks_at_least_90_percent_of_its_statements(path: Path) -> None:
    cov = card_coverage(path)
    assert len(cov.found) >= 8, cov.found  # every bundled card states formulas and numbers (gradient accumulation: 8)
    assert cov.ratio >= 0.9, cov.unchecked


def test_notation_is_not_a_statement_and_numbers_with_units_are() -> None:
    text = ("---\nslug: n\ntitle: {zh: n, en: n}\n---\n\n# Summary\n\n## en\n\n"
            r"$X \in \mathbb{R}^{bs\times h}$, $Z = Y_1B_1 + Y_2B_2$, $W_O$, $M(k) \approx k + L/k$, "
            r"$[A_1, \dots, A_t]$, 1F1B, $S_0=2^{16}$; each rank stores $12h^2/t$, 64 MiB, $3.40\times10^{38}$, 4×."
            "\n")
    from verify.reading.coverage import text_coverage

    found = text_coverage(text).found
    assert found == ["en: k + L/k", "en: 12h^2/t", "en: 64 MiB", "en: 4×"], found


def test_page_summary_for_the_web_server_imports_no_torch() -> None:
    import json
    import subprocess
    import sys

    card = CARDS / "zero-sharding.md"
    code = ("import json, sys; from pathlib import Path; from verify.reading.coverage import page_summary; "
            f"s = page_summary(Path({str(card)!r}).read_text(encoding='utf-8')); "
            "print(json.dumps({'torch': 'torch' in sys.modules, **s}))")
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)
    cov = card_coverage(card)
    assert out == {"torch": False, "found": len(cov.found), "checked": len(cov.checked),
                   "unchecked": cov.unchecked}
    assert out["found"] >= 60

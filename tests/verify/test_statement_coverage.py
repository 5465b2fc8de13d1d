"""``proofdeck claims coverage``: every statement a card makes (bare numbers included), and how many are judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from verify.judge.statements.coverage import card_coverage, text_coverage

CARDS = Path(__file__).resolve().parents[2] / "cards"
BUNDLED = sorted(p for p in CARDS.glob("*.md") if p.name.lower() != "readme.md")


def _card(en: str, zh: str = "") -> str:
    zh_part = f"## zh\n\n{zh}\n\n" if zh else ""
    return f"---\nslug: n\ntitle: {{zh: n, en: n}}\n---\n\n# Summary\n\n{zh_part}## en\n\n{en}\n"


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_card_has_at_least_90_percent_of_its_statements_judged(path: Path) -> None:
    cov = card_coverage(path)
    assert len(cov.found) >= 30, cov.found  # bare numbers count: every bundled card states dozens
    assert cov.ratio >= 0.9, [(s, cov.why[s]) for s in cov.unchecked]


def test_bare_numbers_count_and_notation_does_not() -> None:
    found = text_coverage(_card(r"$X \in \mathbb{R}^{bs\times h}$, $W_O$, 1F1B, E4M3 max 448, each rank stores "
                                r"$12h^2/t$, 64 MiB, 4×, in 2020 (1) and ZeRO-3.")).found
    assert found == ["en: 448", "en: 12h^2/t", "en: 64 MiB", "en: 4×"], found


def test_a_number_only_one_language_states_is_unchecked_with_why_and_parity_judges_the_rest() -> None:
    cov = text_coverage(_card("It runs on 8 GPUs and saves 50% of 16 GB.", "它在 8 张卡上运行，节省 16 GB 的 50%。"))
    assert cov.ratio == 1.0 and len(cov.found) == 6
    alone = text_coverage(_card("It runs on 8 GPUs."))
    assert alone.unchecked == ["en: 8"] and "no counterpart in the other language" in alone.why["en: 8"]


def test_cli_prints_judged_over_found_and_the_unchecked_with_the_reason() -> None:
    result = CliRunner().invoke(cli, ["claims", "coverage", "pipeline-parallelism", "--cards", str(CARDS)])
    assert result.exit_code == 0, result.output
    cov = card_coverage(CARDS / "pipeline-parallelism.md")
    first = result.stdout.splitlines()[0]
    assert first == f"pipeline-parallelism: {len(cov.judged)} / {len(cov.found)} judged ({cov.ratio:.0%})"
    for line in cov.unchecked:
        assert f"  unchecked {line} ({cov.why[line]})" in result.stdout
    missing = CliRunner().invoke(cli, ["claims", "coverage", "no-such-card", "--cards", str(CARDS)])
    assert missing.exit_code == 1


def test_page_summary_for_the_web_server_imports_no_torch() -> None:
    import json
    import subprocess
    import sys

    card = CARDS / "fp8-formats.md"
    code = ("import json, sys; from pathlib import Path; from verify.judge.statements.coverage import page_summary; "
            f"s = page_summary(Path({str(card)!r}).read_text(encoding='utf-8')); "
            "print(json.dumps({'torch': 'torch' in sys.modules, **s}))")
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)
    cov = card_coverage(card)
    assert out == {"torch": False, "found": len(cov.found), "checked": len(cov.judged), "unchecked": cov.unchecked}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_no_bundled_card_gets_an_automatic_refutation_or_contradiction(path: Path) -> None:
    """The hand-written claims judge what they quote; the annotation-free judges add no ✗ or ⇄ of their own on the
    bundled deck (a zh/en pair whose both sides a claim quotes is the claims' to judge)."""
    from verify.judge.statements.card import judge_text

    judged = judge_text(path.read_text(encoding="utf-8"), str(path))
    assert [(v.section, v.lang, v.text, v.judge) for v in judged.problems() if v.judge != "claim"] == []
    assert judged.contradictions == []

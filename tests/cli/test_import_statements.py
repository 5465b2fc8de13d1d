"""``proofdeck import`` says per card what the annotation-free judges found: "110 statements, 94 judged: 1 ✗ (…),
2 zh/en contradictions (…)", and the same in ``--json`` (app/cards/bank_import.py: ``StatementSummary``)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from app.cards.bank_import import SHOWN, Problem, StatementSummary, summarize
from app.cli.main import cli
from verify.judge.statements.card import judge_text
from verify.reading.cardfile import read_text

DEV = Path(__file__).resolve().parents[1] / "cards" / "data" / "bank" / "dev"
# ZeRO++ (1 arithmetic, 2 parity mistakes) and MFU (arithmetic, parity, a formula its worked example contradicts)
CARDS = ("294_9503ac973cb7f2ca", "103_42c89a84c1a0cba0")


def squash(text: str) -> str:
    return re.sub(r"[\s$\\{}]", "", text)


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("raw")
    for name in CARDS:
        shutil.copy(DEV / f"{name}.txt", folder)
        shutil.copy(DEV / f"{name}.key.yaml", folder)  # not a raw card: the import reads *.txt only
    return folder


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["import", *args])
    assert result.exit_code == 0, result.output
    return result


def card_line(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(f"{name}.txt → ")]
    assert len(lines) == 1, output
    return lines[0]


def names(problem: Problem, wrong: str) -> bool:
    """The problem stands in the key's wrong text (its statement, or for a parity mistake either side)."""
    return any(x and squash(x) in squash(wrong) for x in (problem.text, problem.other))


def test_each_card_line_names_the_planted_mistakes_and_the_judged_count(raw: Path, tmp_path: Path) -> None:
    out = tmp_path / "cards"
    output = run(str(raw), "--out", str(out)).output
    total = {"found": 0, "judged": 0}
    for name in CARDS:
        line = card_line(output, name)
        written = out / line.split(" → ")[1].split(":")[0]
        found = judge_text(read_text(written), str(written))  # what the line reports: the written file judged
        summary = summarize(found)
        assert f": {len(found.verdicts)} statements, {found.judged} judged: " in line, line
        assert 0 < found.judged <= len(found.verdicts)
        total["found"] += len(found.verdicts)
        total["judged"] += found.judged
        key = yaml.safe_load((raw / f"{name}.key.yaml").read_text(encoding="utf-8"))
        for mistake in key["mistakes"]:
            hits = [p for p in summary.problems if names(p, mistake["wrong"])]
            assert hits, (mistake, summary.problems)
            assert any(p.brief() in line for p in hits), (mistake["wrong"], line)
        for right in key["correct"]:  # the correct neighbours are not named
            assert not any(squash(right) == squash(p.text) for p in summary.problems), (right, line)
    assert "420/25 = 18.6 s: 420/25 = 16.8 s" in card_line(output, CARDS[0])  # the written value, then the computed
    assert "summary: zh 4 倍 / en 2×" in card_line(output, CARDS[0])
    assert f"2 imported, 0 failed; {total['found']:,} statements, {total['judged']:,} judged: " in output


def test_json_holds_the_same_counts_and_problems(raw: Path, tmp_path: Path) -> None:
    out = tmp_path / "cards"
    report = json.loads(run(str(raw), "--out", str(out), "--json").stdout)
    assert not report["failed"] and len(report["imported"]) == len(CARDS)
    for item in report["imported"]:
        found = judge_text(read_text(Path(item["written"])), item["written"])
        st = item["statements"]
        assert (st["found"], st["judged"], st["counts"]) == (len(found.verdicts), found.judged,
                                                             dict(sorted(found.counts().items())))
        summary = summarize(found)
        assert st["refuted"] == [vars(p) for p in summary.refuted]
        assert st["contradictions"] == [vars(p) for p in summary.contradictions]
    assert report["statements"]["cards"] == len(CARDS)
    assert report["statements"]["refuted"] == sum(len(i["statements"]["refuted"]) for i in report["imported"])


def test_no_judge_writes_the_plain_line(raw: Path, tmp_path: Path) -> None:
    output = run(str(raw), "--out", str(tmp_path / "cards"), "--no-judge").output
    assert card_line(output, CARDS[0]).endswith(".md")
    assert "2 imported, 0 failed in " in output and "statements" not in output


def test_the_line_names_two_problems_of_a_kind_then_an_ellipsis() -> None:
    many = [Problem("refuted", "derivation", "zh+en", f"{n}/2 = {n}", detail=f"{n}/2 = {n / 2:g}, not {n}")
            for n in (4, 6, 8)]
    summary = StatementSummary(found=10, judged=7, refuted=many)
    line = summary.line()
    assert line == "10 statements, 7 judged: 3 ✗ (4/2 = 4: 4/2 = 2; 6/2 = 6: 6/2 = 3; …)"
    assert line.count("/2 =") == 2 * SHOWN
    assert StatementSummary(found=1, judged=0).line() == "1 statement, 0 judged, no problem found"
    assert StatementSummary(error="ValueError: x").line() == "statements not judged (ValueError: x)"

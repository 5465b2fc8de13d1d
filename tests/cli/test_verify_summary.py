"""``proofdeck verify`` ends with a summary that fits 80 columns: the counts, a line per card, each refuted
claim with its correction; ``--all`` / ``--card`` / ``--verdict`` list more; ``--from-json`` re-prints a
stored report without torch (verify/report/table.py: ``summary``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from harness.server import ROOT
from verify.report.table import cells, summary, wrap

REPORT = ROOT / "verify" / "results" / "latest.json"
BUNDLED: dict[str, Any] = json.loads(REPORT.read_text(encoding="utf-8"))


def run_cli(tmp_path: Path, *args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """``proofdeck ARGS`` in a fresh process where ``import torch`` fails, on a fresh database."""
    shim = tmp_path / "no-torch" / "torch"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "__init__.py").write_text("raise ImportError('torch is not installed here (test shim)')\n")
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(shim.parent),
           "PROOFDECK_DATABASE_URL": f"sqlite:///{tmp_path}/verify.db"}
    return subprocess.run([sys.executable, "-m", "app.cli.main", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def refuted(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["claims"] if c["verdict"] == "refuted"]


def test_bundled_report_at_80_columns(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "verify", "--from-json", str(REPORT))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) <= 80, f"{len(lines)} lines"
    assert max(cells(line) for line in lines) <= 80
    assert len(refuted(BUNDLED)) >= 5
    for c in refuted(BUNDLED):  # named whole, on the line of its card, with its correction under it
        head = next(i for i, line in enumerate(lines) if line.startswith(f"✗ {c['card']} · {c['claim_id']} "))
        entry = lines[head + 1:next((i for i in range(head + 1, len(lines)) if not lines[i].startswith(" ")),
                                    len(lines))]
        assert f"  → {c['counterexample'][:20]}" in "\n".join(entry), entry
    counts = {v: sum(c["verdict"] == v for c in BUNDLED["claims"]) for v in ("confirmed", "refuted")}
    assert f"{counts['confirmed']} ✓ confirmed" in proc.stdout and f"{counts['refuted']} ✗ refuted" in proc.stdout
    assert re.search(r"^zero-sharding +\d+ ✓ +\d+ ≈ +\d+ ✗ +\d+ \?$", proc.stdout, re.MULTILINE)
    for x in BUNDLED["contradictions"]:  # each zh/en contradiction, next to the refuted side
        assert x["zh"]["claim_id"] in proc.stdout and x["en"]["claim_id"] in proc.stdout
    assert lines[-1] == "stored run 1 (gloo on cpu, torch 2.13.0+cpu)"
    assert "…" not in proc.stdout


def test_filters_and_all(tmp_path: Path) -> None:
    only = run_cli(tmp_path, "verify", "--from-json", str(REPORT), "--no-store", "--verdict", "refuted")
    assert only.returncode == 0, only.stderr
    heads = [line for line in only.stdout.splitlines() if re.match(r"^\S \S+ · ", line)]
    assert sorted(h.split(" · ")[1] for h in heads) == sorted(c["claim_id"] for c in refuted(BUNDLED))
    assert not (tmp_path / "verify.db").exists() and only.stdout.splitlines()[-1] == "not stored (--no-store)"

    every = run_cli(tmp_path, "verify", "--from-json", str(REPORT), "--no-store", "--all", columns=72)
    assert every.returncode == 0, every.stderr
    lines = every.stdout.splitlines()
    assert max(cells(line) for line in lines) <= 72
    listed = [(m[1], m[2]) for m in re.finditer(r"^\S (\S+) · (\S+)(?: · \S+)?$", every.stdout, re.MULTILINE)]
    assert sorted(listed) == sorted((c["card"], c["claim_id"]) for c in BUNDLED["claims"])

    card = run_cli(tmp_path, "verify", "--from-json", str(REPORT), "--no-store", "--card", "pipeline-parallelism")
    heads = [line for line in card.stdout.splitlines() if re.match(r"^\S \S+ · ", line)]
    assert len(heads) == sum(c["card"] == "pipeline-parallelism" for c in BUNDLED["claims"])
    assert all(" pipeline-parallelism · " in h for h in heads)


def test_a_typo_in_a_filter_says_what_exists(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", "--from-json", str(REPORT), "--no-store", "--verdict", "refute"])
    assert result.exit_code == 2 and "--verdict refute: not a verdict; one of confirmed" in result.stderr
    result = CliRunner().invoke(cli, ["verify", "--from-json", str(REPORT), "--no-store", "--card", "zero-shard"])
    assert result.exit_code == 2 and "did you mean zero-sharding?" in result.stderr


def claim(card: str, claim_id: str, verdict: str, **fields: Any) -> dict[str, Any]:
    return {"card": card, "claim_id": claim_id, "verdict": verdict, "section": "summary", "text_zh": "",
            "text_en": "", "condition": "", "counterexample": "", "reason_en": "", **fields}


def test_ids_stay_whole_and_text_wraps_at_spaces() -> None:
    long_id = "zero1-identical-to-pytorch-zero-redundancy-optimizer-broadcast"
    twin = "zero1-identical-to-pytorch-zero-redundancy-optimizer-all-reduce"  # the same first 40 characters
    text = "ZeRO-1 has mathematically identical communication to PyTorch DDP " * 3
    zh = "单卡显存约为：参数 2Ψ（FP16）+ master 4Ψ（FP32）+ m 4Ψ + v 4Ψ = 14Ψ 字节（另有激活与临时缓冲）"
    report = {"claims": [claim("a-very-long-card-slug-about-3d-parallelism", long_id, "refuted", text_en=text,
                               counterexample="N = 2: 8*Psi, claimed 7*Psi"),
                         claim("a-very-long-card-slug-about-3d-parallelism", twin, "refuted", text_zh=zh,
                               counterexample="for every value: 16*Psi, claimed 14*Psi")]}
    for width in (80, 40):
        lines = summary(report, width=width)
        assert max(cells(line) for line in lines) <= width, (width, lines)
        words = set(" ".join(lines).split())
        assert all(w in words for w in text.split()), width  # no English word broken
        if width == 80:  # ids whole where they fit, the two twins told apart
            assert {long_id, twin, "a-very-long-card-slug-about-3d-parallelism"} <= words
        else:  # wider than the line: broken after a hyphen, never inside a word
            assert {"zero1-identical-to-pytorch-zero-", "redundancy-optimizer-broadcast",
                    "a-very-long-card-slug-about-3d-", "parallelism"} <= words
    assert wrap(zh, 30, indent="  ")[0].startswith("  单卡显存") and all(cells(x) <= 30 for x in wrap(zh, 30))


@pytest.mark.parametrize("verdict", ["mismatch", "stale", "error"])
def test_problems_are_listed_by_default_and_a_confirmed_claim_is_not(verdict: str) -> None:
    report = {"claims": [claim("c", "ok-claim", "confirmed", text_en="fine"),
                         claim("c", "bad-claim", verdict, text_en="broken", reason_en="the quote left the card")]}
    text = "\n".join(summary(report))
    assert "bad-claim" in text and "the quote left the card" in text and "ok-claim" not in text


def test_the_statements_no_claim_annotates_are_counted_and_each_problem_named() -> None:
    rows = [{"card": "zero-plus-plus", "section": "summary", "lang": lang, "text": text, "verdict": verdict,
             "judge": judge, "detail": detail} for lang, text, verdict, judge, detail in (
        ("zh", "4 倍", "contradiction", "parity", "the en text says 2×"),
        ("en", "2×", "contradiction", "parity", "the zh text says 4 倍"),
        ("en", "420/25 = 18.6 s", "refuted", "arithmetic", "420/25 = 16.8 s, not 18.6 s"),
        ("en", "3M", "consistent", "parity", "zh and en state the same value"),
        ("en", "7", "unchecked", "", "a number with no equation"))]
    report = {"claims": [], "statements": rows,
              "contradictions": [{"card": "zero-plus-plus", "section": "summary", "judge": "parity",
                                  "quantity": "4 倍 / 2×", "zh": {"statement": "4 倍"}, "en": {"statement": "2×"}}]}
    lines = summary(report)
    text = " ".join(line.strip() for line in lines)  # wrapped at 80 columns
    assert "5 found, 4 judged (80 %): 1 consistent, 1 refuted, 2 contradiction" in text
    assert "zero-plus-plus · summary en (refuted, arithmetic): 420/25 = 18.6 s — 420/25 = 16.8 s" in text
    assert "zero-plus-plus · summary zh (contradiction, parity): 4 倍" in text
    assert "3M" not in text and "zh and en say different things" not in text  # listed once, as statements
    assert max(cells(line) for line in lines) <= 80
    assert "3M" in " ".join(summary(report, every=True))


def test_the_bundled_report_lists_its_statements() -> None:
    rows = BUNDLED["statements"]
    assert len(rows) >= 29 * 30 and {"card", "lang", "text", "verdict", "judge", "detail"} <= rows[0].keys()
    assert not [r for r in rows if r["verdict"] in ("refuted", "contradiction") and r["judge"] != "claim"]
    assert {r["card"] for r in rows if r["verdict"] == "refuted"} >= {"zero-sharding"}  # the seed's, by its claims
    judged = sum(r["verdict"] != "unchecked" for r in rows)
    assert f"{len(rows):,} found, {judged:,} judged" in " ".join(summary(BUNDLED))

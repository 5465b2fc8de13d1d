"""The documentation a newcomer reads: a short README, links that resolve, generated tables that match
their source (the command table has its own test, tests/cli/test_reference.py)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from verify.report import deck_table

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "cards" / "README.md",
         ROOT / "verify" / "README.md", ROOT / "vendor" / "obsidian-sr" / "README.md"]
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")

pytestmark = pytest.mark.db_independent


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {anchor(m.group(1)) for m in re.finditer(r"(?m)^#{1,6} (.+)$", page.read_text(encoding="utf-8"))}


def broken_links(pages: list[Path]) -> list[str]:
    broken = []
    for page in pages:
        for m in LINK.finditer(page.read_text(encoding="utf-8")):
            target = m.group(2)
            if re.match(r"[a-z]+:", target):  # http:, mailto:
                continue
            path, _, name = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{os.path.relpath(page, ROOT)}: [{m.group(1)}]({target})"
            if not dest.exists():
                broken.append(f"{where}: no file {os.path.relpath(dest, ROOT)}")
            elif name and dest.suffix == ".md" and name not in anchors(dest):
                broken.append(f"{where}: no heading with anchor #{name}")
    return broken


def test_every_link_of_the_docs_resolves() -> None:
    assert broken_links(PAGES) == []


def test_a_broken_link_or_anchor_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n## A section\n[ok](#a-section) [gone](#nowhere) [file](missing.md) "
                    "[web](https://example.org)\n", encoding="utf-8")
    found = broken_links([page])
    assert len(found) == 2 and "#nowhere" in found[0] and "missing.md" in found[1]


def test_the_readme_is_read_in_minutes() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move a topic to its page under docs/"


def test_the_deck_table_is_the_shipped_reports() -> None:
    doc = deck_table.DOC.read_text(encoding="utf-8")
    shown = doc[doc.index(deck_table.BEGIN) + len(deck_table.BEGIN):doc.index(deck_table.END)].strip("\n")
    report = json.loads(deck_table.REPORT.read_text(encoding="utf-8"))
    assert shown == deck_table.table(report), "docs/deck.md is stale: run `python -m verify.report.deck_table --write`"


def test_the_deck_table_follows_a_changed_verdict() -> None:
    report = json.loads(deck_table.REPORT.read_text(encoding="utf-8"))
    before = deck_table.table(report)
    confirmed = next(c for c in report["claims"] if c["verdict"] == "confirmed")
    confirmed["verdict"] = "refuted"
    after = deck_table.table(report)
    row = next(line for line in after.splitlines() if line.startswith(f"| `{confirmed['card']}` |"))
    assert after != before and row not in before.splitlines()

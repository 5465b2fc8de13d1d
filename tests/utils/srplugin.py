"""The real Obsidian Spaced Repetition plugin parser (v1.15.4, bundled for Node and vendored in
``vendor/obsidian-sr/sr-parser.cjs``, rebuilt from the plugin's source by ``rebuild.sh`` there) run on our notes.

This replaced a hand-written model of the plugin that differed from it exactly where our exports
were wrong (backtick counting, fences not at column 0, clozes inside code, block ids). Every note
or vault is written to a folder and read by ``node sr-parser.cjs --detail``: the plugin's own path
from tags to cards. A missing ``node`` or parser fails the test with what to install; nothing is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
VENDORED = ROOT / "vendor" / "obsidian-sr" / "sr-parser.cjs"


def _parser_path() -> Path:
    """``$PROOFDECK_SR_PARSER`` (another build), else the one vendored in this repository."""
    return Path(os.environ["PROOFDECK_SR_PARSER"]) if os.environ.get("PROOFDECK_SR_PARSER") else VENDORED


PARSER = _parser_path()
KINDS = {"MultiLineBasic": "multiline", "MultiLineReversed": "multiline-reversed",
         "SingleLineBasic": "singleline", "SingleLineReversed": "singleline-reversed", "Cloze": "cloze"}


@dataclass(frozen=True)
class SRCard:
    """One card as the plugin sees it: its question's type, front, back, lines (1-based, first and last
    of the whole question block, scheduling comment included) and deck."""

    kind: str
    question: str
    answer: str
    lines: tuple[int, int]
    deck: str | None


@dataclass(frozen=True)
class SRNote:
    tags: list[str]  # flashcard tags, without '#'
    cards: list[SRCard]


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the Obsidian tests run the real Spaced Repetition parser "
                    "(apt-get install nodejs)", pytrace=False)
    if not PARSER.is_file():
        pytest.fail(f"the real Spaced Repetition parser is missing: expected {PARSER} (vendored in the "
                    "repository; vendor/obsidian-sr/rebuild.sh rebuilds it)", pytrace=False)
    return node


def parse_folder(folder: Path) -> dict[str, SRNote]:
    """Every note under ``folder`` (path relative to it, '/'-separated) as the plugin reads it."""
    done = subprocess.run([_node(), str(PARSER), "--detail", "--width=100000000", str(folder)],
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        pytest.fail(f"sr-parser.cjs failed ({done.returncode}): {done.stderr[-2000:]}", pytrace=False)
    out: dict[str, SRNote] = {}
    for path, detail in json.loads(done.stdout).items():
        cards = [SRCard(KINDS[q["type"]], c["front"], c["back"], (q["lines"][0], q["lines"][1]), q["deck"])
                 for q in detail["questions"] for c in q["cards"]]
        out[path.replace("\\", "/")] = SRNote([t.lstrip("#") for t in detail["flashcardTags"]], cards)
    return out


def parse_vault(files: Mapping[str, str]) -> dict[str, SRNote]:
    """Notes (path → text) written to a temporary folder, then :func:`parse_folder`."""
    with tempfile.TemporaryDirectory(prefix="srparser-") as tmp:
        root = Path(tmp)
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        return parse_folder(root)


def parse(note: str) -> list[SRCard]:
    """The cards of one note (empty if it has no flashcard tag)."""
    return parse_vault({"note.md": note})["note.md"].cards


def flashcard_tags(note: str) -> list[str]:
    return parse_vault({"note.md": note})["note.md"].tags


def split_properties(note: str) -> tuple[dict[str, object], str, int]:
    """The note's properties (YAML), its body and the number of lines before the body."""
    if not note.startswith("---\n"):
        return {}, note, 0
    end = note.index("\n---\n", 3)
    props = yaml.safe_load(note[4:end]) or {}
    return props, note[end + 5 :], note[: end + 5].count("\n")

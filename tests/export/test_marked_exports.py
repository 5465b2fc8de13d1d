"""The bundled deck with its bundled report in the exports: Anki backs that fit a screen (rendered in
Chromium), marks in Obsidian notes that the real Spaced Repetition parser does not turn into cards."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.config import settings
from app.deck.sync import sync_cards
from app.deck.verdicts import load_bundled
from app.export.anki import MODEL, write_package
from app.export.deck import Verdicts, load_docs, load_verdicts
from app.export.obsidian import vault_files
from tests.utils import srplugin

pytestmark = pytest.mark.backend_agnostic("the exports' markup in Chromium and the SR parser; "
                                          "the verdicts behind them are read on both backends in tests/verification")

ROOT = Path(__file__).resolve().parents[2]
MAX_BACK_PX = 2000  # at 800 px wide


@pytest.fixture
def bundled(engine: Engine) -> tuple[list[Any], Verdicts]:
    sync_cards(engine, ROOT / "cards", claim_notes=False)
    load_bundled(engine, settings.BUNDLED_REPORT)
    with Session(engine) as s:
        return load_docs(s), load_verdicts(s)


@pytest.mark.browser
def test_no_anki_back_is_taller_than_a_screen(bundled: tuple[list[Any], Verdicts], browser: Any,
                                              tmp_path: Path) -> None:
    """Each note's back as Anki renders it (the real backend fills the templates), laid out by Chromium at
    800 px with the note type's CSS. Math stays TeX source here (no MathJax): wider than typeset math, so
    the heights are upper bounds."""
    docs, verdicts = bundled
    path = tmp_path / "deck.apkg"
    count = write_package(docs, path, verdicts, timestamp=1_764_000_000.0)
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path), options=ImportAnkiPackageOptions()))
        backs = {col.get_note(nid)["Key"]: col.get_note(nid).cards()[0].answer() for nid in col.find_notes("")}
    finally:
        col.close()
    assert len(backs) == count
    seed = [k for k in backs if k.startswith("zero-sharding/misconception-")]
    report = json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))["claims"]
    # the seed's refuted claims and its conditional ones whose condition is a fact ("only as N → ∞"), one
    # note each; a claim conditional only on a reading of its wording makes none
    assert len(seed) == sum(c["card"] == "zero-sharding" and (c["verdict"] == "refuted" or (
        c["verdict"] == "conditional" and re.search(r"(^|; )only ", c["condition"]) is not None))
                            for c in report) > 10
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    heights = {}
    try:
        for key, back in backs.items():
            page.set_content(f"<style>{MODEL.css}</style><div class=card>{back}</div>")
            heights[key] = page.evaluate("document.documentElement.scrollHeight")
        # answer tables get borders and padding
        table_back = backs["zero-sharding/optimizer-states-dominate"]
        page.set_content(f"<style>{MODEL.css}</style><div class=card>{table_back}</div>")
        td = page.locator("td").first
        assert td.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
        assert float(td.evaluate("e => getComputedStyle(e).paddingLeft").removesuffix("px")) > 0
    finally:
        context.close()
    tallest = max(heights, key=lambda k: heights[k])
    print(f"tallest Anki back at 800 px: {heights[tallest]} px ({tallest}); "
          f"seed card note {heights['zero-sharding']} px")
    assert heights[tallest] <= MAX_BACK_PX, tallest
    # Extra holds only the verdicts on that note's text: the card note (key insights) has none of the
    # derivation's "14Ψ/N", and no verdict appears twice
    assert "14Ψ/N" not in re.sub(r"<[^>]+>", "", backs["zero-sharding"].split('class="extra"')[-1])


def test_obsidian_marks_are_markdown_the_sr_parser_leaves_alone(bundled: tuple[list[Any], Verdicts]) -> None:
    docs, verdicts = bundled
    files = vault_files(docs, verdicts)
    parsed = srplugin.parse_vault(files)
    seed_path = next(p for p, t in files.items() if "slug: zero-sharding" in t)
    seed = files[seed_path]
    assert "通信逐级增加 **✗** *两者相等（都是 2Ψ(N − 1)/N），并非更多*" in seed
    assert "**✓** *measured*" in seed and "**≈** *only as N → ∞; N = 4: 2.29×*" in seed
    # a short mark per statement: no raw assertion, no escaped relation, no per-run list; the note shrank
    # from 76 KB (a callout per verdict repeating the assertions) to a few tens of KB
    for raw in ("==", "\\=", "\\:", "(claimed", "实测 N", "measured N"):
        assert raw not in seed, raw
    assert len(seed.encode()) < 30_000, len(seed.encode())
    assert "> [!info]- 论断 · Claims (" in seed and "\n> - ✗ 单卡显存约为" in seed
    for doc in docs:
        path = next(p for p, t in files.items() if f"slug: {doc.slug}\n" in t)
        # exactly one multi-line card per follow-up, no cloze or inline card from a mark
        assert [c.kind for c in parsed[path].cards] == ["multiline"] * len(doc.follow_ups), doc.slug
        for card in parsed[path].cards:
            assert "==" not in card.question and "::" not in card.answer

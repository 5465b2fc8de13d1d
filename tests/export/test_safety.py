"""Every XSS payload in every card field, through every export: nothing becomes live markup."""

from __future__ import annotations

import re
import sqlite3
import zipfile
from pathlib import Path

import pytest

from app.cards.schema import CardDoc, Claim, FollowUp, Label, LangText, Link
from app.export.anki import card_notes, owner_of, write_package
from app.export.handbook import render_handbook
from app.export.obsidian import vault_files, write_vault
from harness.deck import XSS
from tests.export.test_handbook import live_markup
from tests.export.test_obsidian import body_without_code


def hostile_card(i: int, payload: str) -> CardDoc:
    t = LangText(zh=f"中文 {payload}", en=f"English {payload}")
    return CardDoc(
        slug=f"x-{i}", title=t, module=Label(code=payload[:8], zh=t.zh, en=t.en), topic=Label(zh=t.zh, en=t.en),
        tags=[payload], sections=dict.fromkeys(("summary", "insights", "derivation", "tradeoffs", "pitfalls"), t),
        follow_ups=[FollowUp(id="q", question=t, answer=t)], links=[Link(title=t), Link(slug=f"x-{i}")],
        claims=[Claim(id="c", text=t, unverifiable=payload)],
    )


@pytest.fixture(scope="module")
def docs() -> list[CardDoc]:
    return [hostile_card(i, p) for i, p in enumerate(XSS)]


def verdicts(docs: list[CardDoc]) -> dict[str, list[dict[str, object]]]:
    return {d.slug: [{"claim_id": XSS[0], "verdict": XSS[1], "text_zh": XSS[2], "text_en": XSS[3],
                      "predicted": XSS[4], "measured": XSS[5], "reason_zh": XSS[6], "reason_en": XSS[7],
                      "condition": XSS[8]}] for d in docs}


def test_handbook(docs: list[CardDoc]) -> None:
    found = live_markup(render_handbook(docs, verdicts(docs)))
    assert (found.scripts, found.data_blocks) == (1, 2) and found.problems == []  # search index, graph data


def test_anki_package(docs: list[CardDoc], tmp_path: Path) -> None:
    path = tmp_path / "x.apkg"
    write_package(docs, path, verdicts(docs), timestamp=1.0)
    with zipfile.ZipFile(path) as zf:
        (tmp_path / "c.anki2").write_bytes(zf.read("collection.anki2"))
    with sqlite3.connect(tmp_path / "c.anki2") as db:
        rows = db.execute("SELECT flds, tags FROM notes").fetchall()
    owner = owner_of(docs)
    assert len(rows) == sum(len(card_notes(d, verdicts(docs), owns_ledger=d.slug == owner)) for d in docs) \
        > 2 * len(docs)  # one per item
    for flds, tags in rows:
        for value in flds.split("\x1f"):
            found = live_markup(value)
            assert found.scripts == found.data_blocks == 0 and found.problems == [], value
        assert "<" not in tags and ">" not in tags


def test_obsidian_vault(docs: list[CardDoc], tmp_path: Path) -> None:
    files = vault_files(docs, verdicts(docs))
    for path, text in files.items():
        body = body_without_code(text)
        assert not re.search(r"<[A-Za-z/!?]", body), path
        assert "](javascript:" not in body.lower()
    written = write_vault(tmp_path / "v", files)
    assert all(p.resolve().is_relative_to((tmp_path / "v").resolve()) for p in written)

"""The seed card through every export: the bundled cards/zero-sharding.md served by the app, and the
raw bank export run through the real importer; verdicts come from the real verification store."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from anki.collection import Collection
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session
from typer.testing import CliRunner

from app.cards.bank_import import import_one
from app.cards.cardfile import load_card_file
from app.cards.schema import CardDoc, LangText
from app.cli.main import cli
from app.deck.sync import sync_cards
from app.deck.verdicts import store_verdicts
from app.export.anki import write_package
from app.export.deck import load_docs, load_verdicts
from app.export.handbook import render_handbook
from app.export.obsidian import vault_files
from tests.conftest import SEED_RAW
from tests.export.test_anki import import_package, note_by_key
from tests.export.test_handbook import MATHML, live_markup
from tests.utils import srplugin

SEED_TITLE = LangText(zh="ZeRO 显存分片：优化器状态、梯度与参数",
                      en="ZeRO: Sharding Optimizer States, Gradients and Parameters")


def seed_report() -> dict[str, Any]:
    return {"environment": {"torch": "2.13.0+cpu", "backend": "gloo", "device": "cpu", "world_sizes": [2, 4]},
            "claims": [{"card": "zero-sharding", "claim_id": "zero3-comm", "verdict": "confirmed",
                        "text_zh": "ZeRO-3 通信量是 DDP 的 $1.5\\times$", "text_en": "ZeRO-3 sends $1.5\\times$",
                        "predicted": {"ratio": 1.5}, "measured": {"ratio": 1.5}, "reason_en": "ring volume on 4 ranks"},
                       {"card": "zero-sharding", "claim_id": "zero1-free", "verdict": "refuted",
                        "text_en": "ZeRO-1 is free", "predicted": 1.0, "measured": 1.02}]}


def check_note(note: str, doc: CardDoc) -> None:
    props, _, _ = srplugin.split_properties(note)
    assert props["slug"] == doc.slug and props["aliases"] == [doc.title.zh, doc.title.en]
    cards = srplugin.parse(note)
    assert [c.kind for c in cards] == ["multiline"] * len(doc.follow_ups)
    for card, fu in zip(cards, doc.follow_ups, strict=True):
        assert card.question.split("\n")[0] == (fu.question.zh or fu.question.en)
    assert "> [!warning] 常见陷阱 · Pitfalls" in note and "<!--SR:" not in note


def test_bundled_seed_card_through_the_api(client: TestClient, tmp_path: Path) -> None:
    doc = load_card_file(Path(__file__).resolve().parents[2] / "cards" / "zero-sharding.md")
    r = client.get("/api/cards/zero-sharding.md")
    assert r.status_code == 200
    check_note(r.text, doc)
    assert "$$" in r.text or "$" in r.text
    with zipfile.ZipFile(io.BytesIO(client.get("/api/export/obsidian.zip").content)) as zf:
        assert r.text in [zf.read(n).decode() for n in zf.namelist()]
    html = client.get("/api/export/handbook.html").text
    found = live_markup(html)
    assert found.scripts == 1 and found.problems == [] and 'id="card-zero-sharding"' in html
    assert html.count("<math") > 20


def test_raw_seed_through_the_importer_and_every_export(engine: Engine, tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    imported = import_one(SEED_RAW, cards, title=SEED_TITLE, slug="zero-sharding")
    sync_cards(engine, cards)
    with Session(engine) as session:
        store_verdicts(session, seed_report())
        docs, verdicts = load_docs(session), load_verdicts(session)
    assert [d.slug for d in docs] == [imported.slug] == ["zero-sharding"]
    doc = docs[0]
    assert [v["verdict"] for v in verdicts["zero-sharding"]] == ["confirmed", "refuted"]

    files = vault_files(docs, verdicts)
    note = next(t for t in files.values() if "slug: zero-sharding" in t)
    check_note(note, doc)
    # one folded callout lists the claims, a short line each (no raw assertion, no per-run numbers)
    assert "\n> [!info]- 论断 · Claims (1 ✓ · 1 ✗)\n" in note
    assert "\n> - ✓ " in note and "\n> - ✗ " in note and "predicted" not in note and "==" not in note

    html = render_handbook(docs, verdicts)
    assert html.count('class="verdict v-') == 2 and live_markup(html).problems == []

    apkg = tmp_path / "seed.apkg"
    # one note per review item: the card, 4 follow-ups, 2 pitfalls, 1 misconception drill (the refuted claim)
    assert write_package(docs, apkg, verdicts, timestamp=1_764_000_000.0) == 1 + len(doc.follow_ups) + 2 + 1
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        import_package(col, apkg)
        assert col.note_count() == 1 + len(doc.follow_ups) + 2 + 1
        card = note_by_key(col, "zero-sharding")
        # Extra holds only verdicts on this note's text: "ZeRO-1 is free" is not in the key insights
        assert card["Question en"] == SEED_TITLE.en and "ZeRO-1 is free" not in card["Extra"]
        drill = note_by_key(col, "zero-sharding/misconception-zero1-free")
        assert "ZeRO-1 is free" in drill["Question en"] and drill["Answer en"].startswith("False")
        assert "\\(" in card["Answer en"] or "\\[" in card["Answer en"] or "\\(" in card["Answer zh"]
    finally:
        col.close()


@pytest.mark.browser
@pytest.mark.backend_agnostic("the handbook in Chromium; the API reads behind it run on both backends "
                              "in test_bundled_seed_card_through_the_api")
def test_bundled_seed_in_offline_chromium(client: TestClient, browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "seed.html"
    path.write_text(client.get("/api/export/handbook.html").text, encoding="utf-8")
    context = browser.new_context(offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    try:
        page.goto(path.as_uri())
        assert set(page.evaluate("Array.from(document.querySelectorAll('math'), m => m.namespaceURI)")) == {MATHML}
        page.locator("#card-zero-sharding details.fu").first.locator("summary").click()
        assert page.locator("#card-zero-sharding details.fu .answer table").first.is_visible()
        page.screenshot(path="/tmp/proofdeck-handbook-seed.png", full_page=False)
        assert requests == [path.as_uri()]
    finally:
        context.close()


def test_cli_exports_the_seed(client: TestClient, database_url: str, tmp_path: Path) -> None:
    out = tmp_path / "seed.apkg"
    result = CliRunner().invoke(cli, ["export", "anki", str(out), "--database-url", database_url])
    assert result.exit_code == 0, result.output
    cards = client.get("/api/cards", params={"limit": 200}).json()["data"]
    from sqlalchemy import create_engine
    from sqlmodel import Session, col, select

    from app.models.review import ReviewItem

    with Session(create_engine(database_url)) as s:  # one note per review item the server quizzes, drills too
        live = select(ReviewItem.id).where(col(ReviewItem.retired).is_(False))
        items = len(s.exec(live).all())
    assert f"({items} notes from {len(cards)} card{'s' if len(cards) > 1 else ''}, both)" in result.output

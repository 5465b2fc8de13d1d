"""Links between imported bank cards, with no bundled deck: the bank's 关联底层卡片 names a card by ``zh(en)``
title, and it resolves when either language's title is a card's title; a card not in the deck stays visible as a
pending link (``/api/graph`` ``dangling``, ``resolved_slug`` null on the card), never dropped.

Raw cards are the seed with its summary (the source of the derived title) and its link line rewritten; they are
imported into an empty folder, synced into a fresh SQLite file at start-up and read over the API."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.cards.bank_import import import_paths
from app.main import create_app

SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"
SEED_TEXT = SEED.read_text(encoding="utf-8")
SUMMARY_ZH, SUMMARY_EN = SEED_TEXT.splitlines()[3:5]
LINK = next(line for line in SEED_TEXT.splitlines() if line.endswith(" - 🗺️ 知识图谱模块："))


def _variant(zh: str, en: str, link: str) -> str:
    """The seed on another subject (its summary) whose one link names ``link`` (``zh(en)``)."""
    return SEED_TEXT.replace(SUMMARY_ZH, zh).replace(SUMMARY_EN, en).replace(LINK, f"{link} - 🗺️ 知识图谱模块：")


def test_bank_links_resolve_by_either_title_and_missing_ones_stay_pending(tmp_path: Path) -> None:
    probe = import_paths([SEED], tmp_path / "probe").imported[0].title  # the seed card's derived title
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "b.txt").write_text(SEED_TEXT, encoding="utf-8")
    (raw / "a.txt").write_text(_variant("梯度累积用时间换显存。", "Gradient accumulation trades time for memory.",
                                        f"{probe.zh}(An English name no card has)"), encoding="utf-8")
    (raw / "c.txt").write_text(_variant("激活重计算用算力换显存。", "Recomputation trades compute for memory.",
                                        f"一个没有卡片叫的中文名({probe.en.upper()})"), encoding="utf-8")
    (raw / "d.txt").write_text(_variant("流水线气泡随微批次减少。", "Pipeline bubbles shrink with more micro-batches.",
                                        "从未写过的卡片(A card never written)"), encoding="utf-8")
    report = import_paths([raw], tmp_path / "cards")
    assert report.ok and not report.duplicates and len(report.imported) == 4
    slug = {i.source.name: i.slug for i in report.imported}
    app = create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}", cards_dir=tmp_path / "cards",
                     sync_on_startup=True)
    with TestClient(app) as client:
        graph = client.get("/api/graph").json()
        card_d = client.get(f"/api/cards/{slug['d.txt']}").json()
    app.state.engine.dispose()
    assert {n["slug"] for n in graph["nodes"]} == set(slug.values())
    assert {(e["source"], e["target"]) for e in graph["edges"]} == {(slug["a.txt"], slug["b.txt"]),
                                                                    (slug["c.txt"], slug["b.txt"])}
    pending = {(d["source"], d["title"]["en"]) for d in graph["dangling"]}
    seed_link_en = LINK.split("(")[-1].split(")")[0]
    assert pending == {(slug["d.txt"], "A card never written"), (slug["b.txt"], seed_link_en)}
    assert [(lk["title"]["zh"], lk["resolved_slug"]) for lk in card_d["links"]] == [("从未写过的卡片", None)]

"""Misconception drills teach: on the bundled deck and its bundled report, a drill comes only from a refuted
number (with its correction) or a condition that is a fact of the system; a verdict conditional only on a
reading of the card's wording makes none, and no drill a learner can reach mentions a reading. Backs list
each condition once, in the learner's language. The Anki export follows the same rule."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.cards.cardfile import load_card_file
from app.core.config import settings
from app.core.db import make_engine
from app.deck.sync import sync_cards
from app.deck.verdicts import load_bundled
from app.export.anki import card_notes
from app.items.items import visible_text
from app.items.misconceptions import misconception_faces
from app.models.card import Card
from app.models.migrate import init_db
from app.models.review import ReviewItem
from app.verification.learnable import condition_segments
from app.verification.store import one_card_verdicts
from harness.db import fill_with_schema, fresh_database_url

ROOT = Path(__file__).resolve().parents[2]
READING_PHRASES = ("under the reading", "按此理解", "reading:")
REPORT: list[dict[str, Any]] = json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))["claims"]


def _reading_only(claim: dict[str, Any]) -> bool:
    """Conditional, and no part of its condition is an "only as …" / "only when …" fact."""
    return claim["verdict"] == "conditional" and not re.search(r"(^|; )only ", claim.get("condition") or "")


@pytest.fixture(scope="module")
def drills(_schema_template: str, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[dict[tuple[str, str], tuple[str, str, str, str]]]:
    """(card slug, claim id) → visible (front zh, front en, back zh, back en) of every live misconception item
    (one synced database for the module: the deck sync is the slow part)."""
    with fresh_database_url(tmp_path_factory.mktemp("drills")) as url:
        fill_with_schema(url, _schema_template)
        engine = make_engine(url)
        init_db(engine)
        try:
            yield _drills(engine)
        finally:
            engine.dispose()


def _drills(engine: Engine) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    sync_cards(engine, ROOT / "cards", claim_notes=False)
    assert "stored" in load_bundled(engine, settings.BUNDLED_REPORT)
    out = {}
    with Session(engine) as s:
        rows = s.exec(select(ReviewItem, Card).where(col(ReviewItem.card_id) == Card.id,
                                                     col(ReviewItem.retired).is_(False),
                                                     ReviewItem.kind == "misconception")).all()
        for item, card in rows:
            front, back = misconception_faces(one_card_verdicts(s, card.slug), item.key)
            fz, fe, bz, be = (visible_text(x) for x in (front.zh, front.en, back.zh, back.en))
            out[(card.slug, item.key)] = (fz, fe, bz, be)
    return out


def test_drills_come_from_corrections_and_facts_never_from_a_reading(drills: dict[Any, Any]) -> None:
    reading = {(c["card"], c["claim_id"]) for c in REPORT if _reading_only(c)}
    taught = {(c["card"], c["claim_id"]) for c in REPORT
              if c["verdict"] == "refuted" or (c["verdict"] == "conditional" and not _reading_only(c))}
    assert len(reading) > 50 and len(taught) > 10  # the bundled report has both kinds
    assert set(drills) == taught, (sorted(set(drills) - taught)[:5], sorted(taught - set(drills))[:5])
    print(f"misconception drills: {len(drills)} ({len(reading)} reading-only conditional verdicts make none)")
    for key, texts in drills.items():
        for text in texts:
            assert not any(p in text for p in READING_PHRASES), (key, text)


def test_a_refuted_claim_keeps_its_drill_with_the_correction(drills: dict[Any, Any]) -> None:
    front_zh, _front_en, back_zh, _back_en = drills[("zero-sharding", "zh-total-14psi")]
    assert "对还是错" in front_zh and "14" in front_zh
    assert back_zh.startswith("错：") and "应为 16Ψ，不是 14Ψ" in back_zh
    refuted = [(c["card"], c["claim_id"]) for c in REPORT if c["verdict"] == "refuted"]
    assert refuted and all(drills[k][2].startswith("错：") or drills[k][3].startswith("False: ") for k in refuted)


def test_backs_list_each_condition_once_in_the_learners_language(drills: dict[Any, Any]) -> None:
    # the sweep reports "only as L → ∞" once per relation; the drill says it once
    _fz, _fe, back_zh, back_en = drills[("activation-checkpointing", "checkpoint-follow-up-optimum")]
    assert back_en.count("only as L → ∞") == 1 and back_zh.count("仅当 L → ∞") == 1, (back_zh, back_en)
    # a verdict with a fact and a reading: the drill keeps the fact only
    assert drills[("zero-sharding", "zero2-memory-2x")][3].startswith("only as N → ∞")
    by_lang: dict[str, list[str]] = defaultdict(list)
    for key, (_fz, _fe, back_zh, back_en) in drills.items():
        for lang, back, sep, foreign in (("zh", back_zh, "；", "only "), ("en", back_en, "; ", "仅当")):
            parts = [p.strip() for p in back.split(sep) if p.strip()]
            assert len(parts) == len(set(parts)), (key, lang, back)
            assert foreign not in back, (key, lang, back)
            by_lang[lang].append(back)
    assert any("仅当" in b for b in by_lang["zh"]) and any("only as" in b for b in by_lang["en"])


def test_condition_segments_keep_a_reading_whole_and_each_fact_once() -> None:
    assert condition_segments("only as L → ∞; only as L → ∞; only as k → ∞") == ["only as L → ∞", "only as k → ∞"]
    assert condition_segments("only as N → ∞; under the reading: a; b") == ["only as N → ∞", "under the reading: a; b"]


def test_anki_export_makes_the_same_drills() -> None:
    by_card: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in REPORT:
        by_card[c["card"]].append(c)
    slugs = ("3d-parallelism", "activation-checkpointing", "zero-sharding")
    keys = {n.fields[0]: n.fields for slug in slugs for n in card_notes(load_card_file(ROOT / "cards" / f"{slug}.md"),
                                                                         by_card)}
    drilled = {k for k in keys if "/misconception-" in k}
    want = {f"{c['card']}/misconception-{c['claim_id']}" for slug in slugs for c in by_card[slug]
            if c["verdict"] == "refuted" or (c["verdict"] == "conditional" and not _reading_only(c))}
    assert drilled == want and "zero-sharding/misconception-zh-total-14psi" in drilled
    assert "3d-parallelism/misconception-global-batch" not in drilled  # conditional only under a reading
    assert all(p not in " ".join(keys[k]) for k in drilled for p in READING_PHRASES)

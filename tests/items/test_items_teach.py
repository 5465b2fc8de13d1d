"""Review items that teach, on the bundled deck and its bundled report: atomic backs, pitfalls that ask
without answering, misconception drills whose numbers follow the stored verdict."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.cards.pitfalls import mark_consequences, split_pitfall
from app.cards.schema import LangText
from app.core.config import settings
from app.deck.sync import sync_cards
from app.deck.verdicts import load_bundled, store_verdicts
from app.items.items import BACK_LIMIT, faces, pitfall_pairs, visible_length, visible_text
from app.items.misconceptions import misconception_faces
from app.models.card import Card
from app.models.review import ReviewItem
from app.verification.store import one_card_verdicts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bundled(engine: Engine) -> Engine:
    sync_cards(engine, ROOT / "cards", claim_notes=False)
    assert "stored" in load_bundled(engine, settings.BUNDLED_REPORT)
    return engine


def _items(engine: Engine) -> list[tuple[ReviewItem, Card]]:
    with Session(engine) as s:
        return list(s.exec(select(ReviewItem, Card).where(col(ReviewItem.card_id) == Card.id,
                                                          col(ReviewItem.retired).is_(False))))


def test_every_back_is_short_and_every_pitfall_asks_without_answering(bundled: Engine) -> None:
    longest = (0, "")
    kinds: dict[str, int] = {}
    with Session(bundled) as s:
        verdicts = {slug: one_card_verdicts(s, slug) for slug in {c.slug for _, c in _items(bundled)}}
    for item, card in _items(bundled):
        kinds[item.kind] = kinds.get(item.kind, 0) + 1
        if item.kind == "drill":
            continue
        if item.kind == "misconception":
            front, back = misconception_faces(verdicts[card.slug], item.key)
        else:
            front, back = faces(card.source_text, card.slug, item.kind, item.key)
        for lang in ("zh", "en"):
            size = visible_length(getattr(back, lang))
            longest = max(longest, (size, f"{card.slug} {item.kind} {item.key} {lang}"))
            assert size <= BACK_LIMIT, (card.slug, item.kind, item.key, lang, size)
            if item.kind == "pitfall" and getattr(back, lang):
                # the consequence (the answer) is not on the front: compared as the reader sees both (a
                # consequence that starts with a formula shares its <math ...> markup with any front)
                answer_text = " ".join(visible_text(getattr(back, lang).split("</p>")[0]).split())[:25]
                assert answer_text not in " ".join(visible_text(getattr(front, lang)).split()), \
                    (card.slug, item.key, lang)
    print(f"longest item back: {longest[0]} characters ({longest[1]})")
    # one item per pitfall: the seed has 2 zh + 2 en bullets → 2 items; a drill per refuted claim and per
    # conditional one whose condition is a fact ("only as N → ∞"), none for a reading of the wording alone
    seed = [i for i, c in _items(bundled) if c.slug == "zero-sharding"]
    assert sum(i.kind == "pitfall" for i in seed) == 2 and all(i.lang == "" for i in seed if i.kind == "pitfall")
    report = json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))["claims"]
    assert kinds["misconception"] == sum(c["verdict"] == "refuted" or (
        c["verdict"] == "conditional" and re.search(r"(^|; )only ", c["condition"]) is not None) for c in report) > 10


def test_card_item_back_is_the_key_insights_only(bundled: Engine) -> None:
    with Session(bundled) as s:
        card = s.exec(select(Card).where(Card.slug == "zero-sharding")).one()
    _front, back = faces(card.source_text, card.slug, "card", "card")
    assert "ZeRO-1 省 4 倍优化器状态" in back.zh and "显存逐级下降" not in back.zh  # not the summary


def test_misconception_drill_numbers_follow_the_latest_run(bundled: Engine) -> None:
    with Session(bundled) as s:
        before = misconception_faces(one_card_verdicts(s, "zero-sharding"), "zero1-memory-4x")
    assert "only as N → ∞" in before[1].en and "N = 4: 2.29×" in before[1].en
    assert before[0].zh == ""  # the claim quotes only the en text: no zh side
    with Session(bundled) as s:
        zh = misconception_faces(one_card_verdicts(s, "zero-sharding"), "zh-total-14psi")
    assert "对还是错" in zh[0].zh and "错：应为 16Ψ，不是 14Ψ" in zh[1].zh
    data = json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))
    newer = copy.deepcopy(data)
    newer["environment"]["world_sizes"] = [2, 8]
    for c in newer["claims"]:
        if c["claim_id"] == "zero1-memory-4x":
            c["measured"] = "N=2: 1.6 (claimed == 4); N=8: 2.909 (claimed == 4)"
            n4 = next(row for row in c["evaluated"] if row["config"] == "N=4")  # what the page reads
            n4["config"], n4["relations"][0]["value"] = "N=8", "2.909"
    with Session(bundled) as s:
        store_verdicts(s, newer, host="elsewhere")
        after = misconception_faces(one_card_verdicts(s, "zero-sharding"), "zero1-memory-4x")
    assert "N = 8: 2.91×" in after[1].en and "N = 4" not in after[1].en
    # a claim the new run confirms is no longer a misconception drill (retired, history kept)
    for c in newer["claims"]:
        if c["claim_id"] == "zero1-memory-4x":
            c["verdict"], c["condition"] = "confirmed", ""
    with Session(bundled) as s:
        store_verdicts(s, newer, host="elsewhere")
        row = s.exec(select(ReviewItem).where(ReviewItem.kind == "misconception",
                                              ReviewItem.key == "zero1-memory-4x")).one()
        assert row.retired


def test_pitfall_format_and_importer() -> None:
    assert split_pitfall("⚠️ 以为 1F1B 减小了气泡 ⟹ 它减的是显存") == ("以为 1F1B 减小了气泡", "它减的是显存")
    # the bank's "mistake：consequence"; a colon inside math or parentheses is not the split
    assert split_pitfall("以为 $a:b$ 免费（注：x）：通信增加") == ("以为 $a:b$ 免费（注：x）", "通信增加")
    assert split_pitfall("Using ZeRO-3 on slow links") == ("Using ZeRO-3 on slow links", "")
    bank = LangText(zh="- ⚠️ 混淆口径：差 $N$ 倍\n- 只有错误", en="- Forgetting `no_sync()`: N times")
    converted = mark_consequences(bank)
    assert converted.zh == "- ⚠️ 混淆口径 ⟹ 差 $N$ 倍\n- 只有错误"
    assert converted.en == "- Forgetting `no_sync()` ⟹ N times"


def test_bundled_pitfalls_pair_up() -> None:
    from app.cards.cardfile import load_card_file

    for path in sorted((ROOT / "cards").glob("*.md")):
        if path.name == "README.md":
            continue
        doc = load_card_file(path)
        for zh, en in pitfall_pairs(doc):
            for text in (zh, en):
                if text and "⟹" in text:
                    assert all(split_pitfall(text)), (path.name, text)

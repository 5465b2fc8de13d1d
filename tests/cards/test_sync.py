"""``sync_cards`` on a real database: idempotent, ids kept, removals retired, bad files change nothing."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.cards.cardfile import dump_card, load_card_file, load_card_text
from app.deck.sync import SyncError, sync_cards
from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection

ROOT = Path(__file__).resolve().parents[2]
SEED_CARD = ROOT / "cards" / "zero-sharding.md"


def write_card(folder: Path, slug: str, summary_en: str = "Summary.") -> Path:
    doc = load_card_file(SEED_CARD)
    sections = dict(doc.sections)
    sections["summary"] = sections["summary"].model_copy(update={"en": summary_en})
    doc = doc.model_copy(update={"slug": slug, "sections": sections})
    path = folder / f"{slug}.md"
    path.write_text(dump_card(doc), encoding="utf-8")
    return path


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    folder = tmp_path / "deck"
    folder.mkdir()
    shutil.copy(SEED_CARD, folder / SEED_CARD.name)
    write_card(folder, "second-card")
    (folder / "README.md").write_text("# not a card", encoding="utf-8")
    return folder


def snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every card table, for comparing database states."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with Session(engine) as s:
        for table in (Card, CardSection, CardFollowUp, CardLink, CardClaim):
            rows = s.exec(select(table).order_by(col(table.id))).all()
            out[table.__name__] = [tuple(r.model_dump().values()) for r in rows]
    return out


def ids(engine: Engine) -> dict[str, tuple[int | None, bool]]:
    with Session(engine) as s:
        return {c.slug: (c.id, c.retired) for c in s.exec(select(Card))}


def test_first_sync_stores_the_seed_card(engine: Engine, deck: Path) -> None:
    report = sync_cards(engine, deck)
    assert sorted(report.added) == ["second-card", "zero-sharding"]
    assert report.math_fallbacks == []
    with Session(engine) as s:
        card = s.exec(select(Card).where(Card.slug == "zero-sharding")).one()
        assert load_card_text(card.source_text, card.slug) == load_card_file(SEED_CARD)
        assert card.source_path == "zero-sharding.md"
        assert "zero-3" in card.search_text and "优化器状态" in card.search_text
        keys = s.exec(select(CardFollowUp.key).where(CardFollowUp.card_id == card.id)
                      .order_by(col(CardFollowUp.position))).all()
        assert keys == [f.id for f in load_card_file(SEED_CARD).follow_ups]
        link = s.exec(select(CardLink).where(CardLink.card_id == card.id)).one()
        assert link.target_slug == "ddp-ring-allreduce" and link.target_title_en.startswith("Distributed")
        sections = s.exec(select(CardSection.key).where(CardSection.card_id == card.id)
                          .order_by(col(CardSection.position))).all()
        assert sections == ["summary", "insights", "derivation", "tradeoffs", "pitfalls"]


def test_second_sync_changes_nothing(engine: Engine, deck: Path) -> None:
    sync_cards(engine, deck)
    before = snapshot(engine)
    report = sync_cards(engine, deck)
    assert not report.changed
    assert sorted(report.unchanged) == ["second-card", "zero-sharding"]
    assert snapshot(engine) == before


def test_edited_card_keeps_its_id(engine: Engine, deck: Path) -> None:
    sync_cards(engine, deck)
    before = ids(engine)
    write_card(deck, "second-card", summary_en="An edited summary.")
    report = sync_cards(engine, deck)
    assert report.updated == ["second-card"] and report.unchanged == ["zero-sharding"]
    assert ids(engine) == before
    with Session(engine) as s:
        card_id = before["second-card"][0]
        summary = s.exec(select(CardSection).where(CardSection.card_id == card_id,
                                                   CardSection.key == "summary")).one()
        assert summary.en == "An edited summary."
        assert len(s.exec(select(CardFollowUp).where(CardFollowUp.card_id == card_id)).all()) == 4


def test_removed_card_is_retired_then_restored(engine: Engine, deck: Path) -> None:
    sync_cards(engine, deck)
    card_id = ids(engine)["second-card"][0]
    moved = deck.parent / "second-card.md"
    (deck / "second-card.md").rename(moved)
    report = sync_cards(engine, deck)
    assert report.retired == ["second-card"]
    assert ids(engine)["second-card"] == (card_id, True)
    assert not sync_cards(engine, deck).changed  # retiring twice is not a change
    moved.rename(deck / "second-card.md")
    report = sync_cards(engine, deck)
    assert report.updated == ["second-card"]
    assert ids(engine)["second-card"] == (card_id, False)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("broken-yaml.md", b"---\nslug: x\ntitle: {en: [unclosed\n---\n"),
        ("latin1.md", b"---\nslug: x\ntitle: {en: caf\xe9}\n---\n"),
        ("dup.md", None),  # the seed card's slug a second time
    ],
)
def test_bad_file_leaves_database_unchanged(engine: Engine, deck: Path, name: str, content: bytes | None) -> None:
    sync_cards(engine, deck)
    before = snapshot(engine)
    write_card(deck, "second-card", summary_en="An edit that must not land.")
    (deck / "zero-sharding.md").unlink()  # a removal that must not land either
    shutil.copy(SEED_CARD, deck / "new-copy.md")
    if content is None:
        shutil.copy(SEED_CARD, deck / name)
    else:
        (deck / name).write_bytes(content)
    with pytest.raises(SyncError) as info:
        sync_cards(engine, deck)
    assert snapshot(engine) == before
    assert any(name in str(e) for e in info.value.errors)
    assert name in str(info.value)


def test_missing_folder(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(SyncError, match="cards folder does not exist"):
        sync_cards(engine, tmp_path / "nope")


def test_renamed_file_updates_source_path(engine: Engine, deck: Path) -> None:
    sync_cards(engine, deck)
    (deck / "second-card.md").rename(deck / "2-second-card.md")
    sync_cards(engine, deck)
    with Session(engine) as s:
        card = s.exec(select(Card).where(Card.slug == "second-card")).one()
        assert card.source_path == "2-second-card.md"


def test_reformatted_file_updates_source_text(engine: Engine, deck: Path) -> None:
    sync_cards(engine, deck)
    path = deck / "second-card.md"
    text = path.read_text(encoding="utf-8").replace("\n# Summary\n", "\n\n\n# Summary\n")
    path.write_text(text, encoding="utf-8")
    before = ids(engine)
    sync_cards(engine, deck)
    assert ids(engine) == before
    with Session(engine) as s:
        card = s.exec(select(Card).where(Card.slug == "second-card")).one()
        assert card.source_text == text


def test_the_start_up_sync_lints_only_the_cards_it_would_write(engine: Engine, deck: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import app.deck.sync as sync_module

    linted: list[str] = []
    from app.cards.claim_lint import lint_claims as real

    def counting(text: str, path: str, *, with_notes: bool = True) -> Any:
        linted.append(Path(path).stem)
        return real(text, path, with_notes=with_notes)

    monkeypatch.setattr(sync_module, "lint_claims", counting)
    sync_cards(engine, deck, claim_notes=False)
    assert sorted(linted) == ["second-card", "zero-sharding"]  # nothing stored yet: both
    linted.clear()
    sync_cards(engine, deck, claim_notes=False)
    assert linted == []  # both stored as they are
    # an edit is linted, and an edit that breaks an asserts still stops the start-up sync
    text = (deck / "second-card.md").read_text(encoding="utf-8")
    broken = text.replace("asserts: ", "asserts: no_such_quantity() == 1 & ", 1)
    assert broken != text
    (deck / "second-card.md").write_text(broken, encoding="utf-8")
    before = snapshot(engine)
    with pytest.raises(SyncError, match="no_such_quantity"):
        sync_cards(engine, deck, claim_notes=False)
    assert linted == ["second-card"] and snapshot(engine) == before
    # `proofdeck sync` (claim notes) lints every card, stored or not
    (deck / "second-card.md").write_text(text, encoding="utf-8")
    linted.clear()
    sync_cards(engine, deck)
    assert sorted(linted) == ["second-card", "zero-sharding"]


def test_a_lint_remembered_from_an_earlier_sync_is_the_same_and_not_shared(tmp_path: Path) -> None:
    from app.cards.claim_lint import lint_claims

    text = SEED_CARD.read_text(encoding="utf-8").replace("asserts: ", "asserts: no_such_quantity() == 1 & ", 1)
    first = lint_claims(text, "a.md", with_notes=True)
    first[0].clear()
    first[1].append("changed by the caller")
    again = lint_claims(text, "a.md", with_notes=True)
    assert [str(e) for e in again[0]] and "no_such_quantity" in str(again[0][0])
    assert "changed by the caller" not in again[1]
    assert [str(e) for e in lint_claims(text, "b.md", with_notes=True)[0]][0].startswith("b.md")

"""Obsidian both ways, end to end through the CLI: export, reviews in Obsidian (scheduling comments
written in the plugin's format), a card edited, re-export (the comments stay with their follow-ups,
read back by the real parser), ``proofdeck import obsidian-reviews`` into one user's FSRS states."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from app.auth.users import create_user
from app.cards.cardfile import dump_card, load_card_file
from app.cli.main import cli
from app.deck.sync import sync_cards
from app.export.obsidian_state import block_id, read_vault
from app.models import clock
from app.models.card import Card
from app.models.review import ItemState, ReviewItem
from app.review.grading import Answer, grade_batch
from harness.deck import make_deck
from tests.export.conftest import write_cards
from tests.utils import srplugin

runner = CliRunner()
T = datetime(2026, 12, 4, tzinfo=UTC)


def sr_review(text: str, fu_id: str, schedule: str, *, same_line: bool = False) -> str:
    """The note after the plugin reviewed follow-up ``fu_id`` (its ``formatForNote``): the comment on the
    line after the block id, or before it with "scheduling comment on the same line"."""
    lines = text.split("\n")
    tail = f" ^{block_id(fu_id)}"
    i = next(n for n, line in enumerate(lines) if line.endswith(tail))
    if i + 1 < len(lines) and lines[i + 1].startswith("<!--SR:"):
        del lines[i + 1]  # reviewed again: the plugin rewrites its comment
    if same_line:
        lines[i] = f"{lines[i][: -len(tail)]} <!--SR:{schedule}-->{tail}"
    else:
        lines.insert(i + 1, f"<!--SR:{schedule}-->")
    return "\n".join(lines)


def note_path(vault: Path, slug: str) -> Path:
    return next(p for p in vault.rglob("*.md") if f"\nslug: {slug}\n" in p.read_text(encoding="utf-8"))


def edit(vault: Path, slug: str, fu_id: str, schedule: str, **kw: Any) -> None:
    path = note_path(vault, slug)
    path.write_text(sr_review(path.read_text(encoding="utf-8"), fu_id, schedule, **kw), encoding="utf-8")


def export(database_url: str, vault: Path) -> str:
    result = runner.invoke(cli, ["export", "obsidian", str(vault), "--database-url", database_url])
    assert result.exit_code == 0, result.output
    return result.output


def import_reviews(database_url: str, vault: Path, user: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(cli, ["import", "obsidian-reviews", str(vault), "--user", user, "--json",
                                 "--database-url", database_url])
    return result.exit_code, json.loads(result.stdout)


def user_id(engine: Engine, username: str) -> int:
    from app.models.user import User

    with Session(engine) as s:
        uid = s.exec(select(User.id).where(User.username == username)).one()
    assert uid is not None
    return uid


def states(engine: Engine, username: str) -> dict[str, tuple[Any, ...]]:
    """``slug/key`` → (state, stability, difficulty, due, last_review, reps) of the user's follow-ups."""
    with Session(engine) as s:
        rows = s.exec(select(Card.slug, ReviewItem.key, ItemState)
                      .join(ReviewItem, col(ReviewItem.id) == ItemState.item_id)
                      .join(Card, col(Card.id) == ReviewItem.card_id)
                      .where(ItemState.user_id == user_id(engine, username))).all()
    return {f"{slug}/{key}": (st.state, st.stability, st.difficulty, st.due.replace(tzinfo=UTC),
                              st.last_review.replace(tzinfo=UTC) if st.last_review else None, st.reps)
            for slug, key, st in rows}


def user_rev(engine: Engine, username: str) -> int:
    scope = clock.user_scope(user_id(engine, username))
    with Session(engine) as s:
        return clock.read(s.connection(), scope)[scope]


@pytest.fixture
def setup(engine: Engine, database_url: str, tmp_path: Path) -> tuple[Engine, str, Path, Path]:
    cards = write_cards(tmp_path / "cards", make_deck(6))
    sync_cards(engine, cards)
    with Session(engine) as s:
        create_user(s, "alice")
        create_user(s, "bob")
        s.commit()
    return engine, database_url, cards, tmp_path / "vault"


def test_round_trip(setup: tuple[Engine, str, Path, Path]) -> None:
    engine, url, cards, vault = setup
    export(url, vault)
    # reviews in Obsidian: two follow-ups of card 1, one never-reviewed card, one FSRS-format comment
    edit(vault, "card-0001", "why-optimizer", "!2026-12-04,3,250")
    edit(vault, "card-0001", "zero3-comm", "!2026-12-20,16,270", same_line=True)
    edit(vault, "card-0002", "no-answer", "!2000-01-01,1,250")
    path2 = note_path(vault, "card-0002")  # the whole note reviewed too: the plugin adds properties
    reviewed = "\nslug: card-0002\nsr-due: 2026-12-10\nsr-interval: 3\nsr-ease: 250\n"
    path2.write_text(path2.read_text(encoding="utf-8").replace("\nslug: card-0002\n", reviewed), encoding="utf-8")
    edit(vault, "card-0003", "zero3-comm",
         "!fsrs,2026-12-09T08:00:00.000Z,5,5.2,6.1,2,4,1,0,2026-12-04T08:00:00.000Z")
    parsed = srplugin.parse_folder(vault)
    first = parsed[note_path(vault, "card-0001").relative_to(vault).as_posix()]
    note = note_path(vault, "card-0001").read_text(encoding="utf-8").split("\n")
    comment_line = next(n for n, line in enumerate(note, 1) if line == "<!--SR:!2026-12-04,3,250-->")
    assert first.cards[0].lines[0] < comment_line == first.cards[0].lines[1]  # the plugin reads it as this card's
    assert "<!--SR" not in first.cards[0].answer and len(first.cards) == 3

    # the card is edited (title → new file name, question and answer text) and loses a follow-up
    path = cards / "card-0001.md"
    doc = load_card_file(path)
    fus = [fu.model_copy(update={"question": fu.question.model_copy(update={"en": "Edited question?"}),
                                 "answer": fu.answer.model_copy(update={"en": "An edited answer."})})
           if fu.id == "why-optimizer" else fu for fu in doc.follow_ups if fu.id != "zero3-comm"]
    path.write_text(dump_card(doc.model_copy(update={"title": doc.title.model_copy(update={"en": "Renamed card"}),
                                                     "follow_ups": fus})), encoding="utf-8")
    sync_cards(engine, cards)
    assert "kept 3 scheduling comments (1 dropped: their follow-ups left the deck)" in export(url, vault)

    after = read_vault(vault)
    assert after.problems == []
    assert after.notes["card-0001"].path.endswith("/Renamed card.md")
    assert after.notes["card-0001"].schedules == {"why-optimizer": "!2026-12-04,3,250"}  # zero3-comm: gone
    assert after.notes["card-0002"].schedules == {"no-answer": "!2000-01-01,1,250"}
    assert after.notes["card-0002"].properties == {"sr-due": "2026-12-10", "sr-interval": 3, "sr-ease": 250}
    text = (vault / after.notes["card-0001"].path).read_text(encoding="utf-8")
    assert "Edited question?" in text and "An edited answer." in text
    reread = srplugin.parse_folder(vault)[after.notes["card-0001"].path]
    assert [c.kind for c in reread.cards] == ["multiline"] * 2
    edited = next(c for c in reread.cards if "Edited question?" in c.question)
    comment_line = text.split("\n").index("<!--SR:!2026-12-04,3,250-->") + 1
    assert edited.lines[1] == comment_line and edited.answer.endswith("An edited answer.")
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    export(url, vault)
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before  # byte-identical re-export

    # the reviews come back: SM-2 mapped, FSRS taken as is, the never-reviewed card skipped; bob untouched
    rev = user_rev(engine, "alice")
    code, report = import_reviews(url, vault, "alice")
    assert code == 0 and report["problems"] == []
    assert (report["applied"], report["kept_server"], report["not_reviewed"]) == (2, 0, 1)
    alice = states(engine, "alice")
    assert alice == {
        "card-0001/why-optimizer": (2, 3.0, 5.5, T, datetime(2026, 12, 1, tzinfo=UTC), 1),
        "card-0003/zero3-comm": (2, 5.2, 6.1, datetime(2026, 12, 9, 8, tzinfo=UTC),
                                 datetime(2026, 12, 4, 8, tzinfo=UTC), 4)}
    assert states(engine, "bob") == {}
    assert user_rev(engine, "alice") == rev + 1  # running servers see it: the user's clock moved

    code, report = import_reviews(url, vault, "alice")  # twice changes nothing
    assert code == 0 and (report["applied"], report["kept_server"]) == (0, 2)
    assert states(engine, "alice") == alice and user_rev(engine, "alice") == rev + 1


def test_the_newer_state_wins(setup: tuple[Engine, str, Path, Path]) -> None:
    engine, url, _cards, vault = setup
    export(url, vault)
    uid = user_id(engine, "alice")
    with Session(engine) as s:
        item = {key: iid for key, iid in s.exec(
            select(ReviewItem.key, ReviewItem.id).join(Card, col(Card.id) == ReviewItem.card_id)
            .where(Card.slug == "card-0004", ReviewItem.kind == "followup")) if iid is not None}
    # answered on the server on Dec 10 (newer than the Obsidian review) and on Nov 1 (older)
    for key, when in (("why-optimizer", datetime(2026, 12, 10, 9, tzinfo=UTC)),
                      ("zero3-comm", datetime(2026, 11, 1, 9, tzinfo=UTC))):
        outcomes = grade_batch(engine, [Answer(uid, item[key], when, rating=3, fuzz=False)])
        assert outcomes is not None and isinstance(outcomes[0], dict)
    server = states(engine, "alice")
    edit(vault, "card-0004", "why-optimizer", "!2026-12-08,5,250")  # reviewed Dec 3 in Obsidian
    edit(vault, "card-0004", "zero3-comm", "!2026-12-08,5,290")
    code, report = import_reviews(url, vault, "alice")
    assert code == 0 and report["kept_server_items"] == ["card-0004/why-optimizer"]
    assert report["applied_items"] == ["card-0004/zero3-comm"]
    now = states(engine, "alice")
    assert now["card-0004/why-optimizer"] == server["card-0004/why-optimizer"]
    assert now["card-0004/zero3-comm"] == (2, 5.0, 4.0, datetime(2026, 12, 8, tzinfo=UTC),
                                           datetime(2026, 12, 3, tzinfo=UTC), 2)  # reps: 1 on the server + 1


def test_bad_and_foreign_comments_are_reported_and_skipped(setup: tuple[Engine, str, Path, Path]) -> None:
    engine, url, _cards, vault = setup
    export(url, vault)
    edit(vault, "card-0001", "why-optimizer", "!2026-12-04,3,250")
    edit(vault, "card-0002", "why-optimizer", "!2026-13-45,3,250")  # not a date
    edit(vault, "card-0003", "why-optimizer", "!2026-12-04,3,250!2026-12-05,4,250")  # two cards' schedules
    edit(vault, "card-0004", "why-optimizer", "<b>x</b>")  # not the plugin's
    path = note_path(vault, "card-0005")
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines.index("## 追问 · Follow-ups")
    lines[at + 1:at + 1] = ["", "My own card", "?", "my answer", "<!--SR:!2026-12-04,3,250-->"]  # no block id
    path.write_text("\n".join(lines), encoding="utf-8")
    code, report = import_reviews(url, vault, "alice")
    assert code == 1 and report["applied_items"] == ["card-0001/why-optimizer"]
    where = {(Path(p["path"]).name, p["line"]): p["message"] for p in report["problems"]}
    assert len(where) == 4, where
    messages = " | ".join(where.values())
    assert "'2026-13-45' is not a date" in messages and "2 schedules in one comment" in messages
    assert "characters the plugin never writes" in messages and "no ^pd-<follow-up> block id" in messages
    assert all(line > 0 for _name, line in where)
    assert set(states(engine, "alice")) == {"card-0001/why-optimizer"}
    result = runner.invoke(cli, ["import", "obsidian-reviews", str(vault), "--user", "carol",
                                 "--database-url", url])
    assert result.exit_code == 1 and "no user 'carol'" in result.output


def test_nothing_half_written(setup: tuple[Engine, str, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure after the states are written (here: bumping the clock) leaves no state behind."""
    engine, url, _cards, vault = setup
    export(url, vault)
    for slug in ("card-0001", "card-0002"):
        edit(vault, slug, "why-optimizer", "!2026-12-04,3,250")

    def boom(*_a: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr("app.review.obsidian_import.user_changed", boom)
    with pytest.raises(RuntimeError):
        from app.review.obsidian_import import find_user
        from app.review.obsidian_import import import_reviews as run

        with Session(engine) as s:
            uid = find_user(s, "alice").id
        assert uid is not None
        run(engine, uid, read_vault(vault))
    assert states(engine, "alice") == {}

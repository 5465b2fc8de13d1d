"""Handbook reviews into the review log (app/review/handbook_import.py): exactly once, in time order, the
state FSRS gives for all of an item's answers; changed and retired items skipped and listed; files of
another deck or user refused whole. Files are made as study.js makes them (tests/utils/handbook.py); the
browser's own file is imported in tests/export/test_handbook_study_browser.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select
from typer.testing import CliRunner

from app.auth.users import create_user
from app.cli.main import cli
from app.deck.sync import sync_cards
from app.items import drills
from app.items.handbook_reviews import ReviewsFileError, read_reviews_file
from app.items.item_ids import showing_fingerprint
from app.models.card import Card
from app.models.review import ItemState, ReviewItem, ReviewLog
from app.models.user import User
from app.review.engine import ReviewEngine
from app.review.handbook_import import ForeignFile, import_handbook_reviews
from app.srs.state import StateRow
from tests.utils.handbook import entry, replay, reviews_file, study_data
from tests.utils.review import engine_answer
from tests.utils.srs_cards import make_card, write_deck

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def deck(engine: Engine, tmp_path: Path) -> Path:
    folder = write_deck(tmp_path / "cards", [make_card("zero-sharding", follow_ups=2, drills=True),
                                             make_card("ring-allreduce")])
    sync_cards(engine, folder)
    return folder


def _user(engine: Engine, name: str) -> User:
    with Session(engine) as s, s.begin():
        user, _token = create_user(s, name)
    with Session(engine) as s:
        found = s.exec(select(User).where(User.username == name)).one()
        s.expunge(found)
        return found


def _item_id(engine: Engine, name: str) -> int:
    slug, kind, key = name.split("/")
    with Session(engine) as s:
        return int(s.exec(select(ReviewItem.id).join(Card, col(Card.id) == ReviewItem.card_id).where(  # type: ignore[arg-type]
            Card.slug == slug, ReviewItem.kind == kind, ReviewItem.key == key)).one())


def _state(engine: Engine, user_id: int, name: str) -> StateRow | None:
    with Session(engine) as s:
        row = s.exec(select(ItemState).where(ItemState.user_id == user_id,
                                             ItemState.item_id == _item_id(engine, name))).first()
        return StateRow.of(row) if row is not None else None


def _logs(engine: Engine, user_id: int) -> list[ReviewLog]:
    with Session(engine) as s:
        return list(s.exec(select(ReviewLog).where(ReviewLog.user_id == user_id)
                           .order_by(col(ReviewLog.reviewed_at), col(ReviewLog.id))).all())


def _import(engine: Engine, user: User, text: str):  # type: ignore[no-untyped-def]
    return import_handbook_reviews(ReviewEngine(engine), user, read_reviews_file(text))


def assert_same_state(got: StateRow | None, want: StateRow | None) -> None:
    assert got is not None and want is not None
    assert got == want


def test_each_review_once_in_time_order_with_the_servers_fsrs(engine: Engine, deck: Path) -> None:
    ada = _user(engine, "ada")
    assert ada.id is not None
    card = "zero-sharding/card/card"
    engine_answer(engine, ada.id, item_id=_item_id(engine, card), rating=3, now=T0, fuzz=False)
    exported = _state(engine, ada.id, card)
    data = study_data(engine, "ada", now=T0 + timedelta(hours=1))
    assert data["user"] == {"id": ada.id, "name": "ada"}
    assert data["states"], "the user's state travels in the handbook"
    fu, drill = "zero-sharding/followup/q1", "zero-sharding/drill/memory-zero3"
    expected = data["drills"]["memory-zero3"]
    reviews = [
        entry(data, fu, T0 + DAY, 1), entry(data, fu, T0 + DAY + timedelta(minutes=2), 3),
        entry(data, card, T0 + 3 * DAY, 2),
        entry(data, drill, T0 + DAY + timedelta(minutes=5), 3, showing=0),  # typed right (the expected value)
        entry(data, drill, T0 + 2 * DAY, 1, typed="0.001", showing=1),  # typed wrong
    ]
    text = reviews_file(data, reviews)

    report = _import(engine, ada, text)
    assert (len(report.imported), report.already, report.skipped, report.replayed) == (5, 0, [], 0)
    logs = _logs(engine, ada.id)
    assert [log.idempotency_key for log in logs if log.idempotency_key.startswith("handbook:")] == \
        ["handbook:" + r["id"] for r in sorted(reviews, key=lambda r: r["at"])]
    # the state is the server's FSRS over the answers in time order, from the state the handbook carried
    assert_same_state(_state(engine, ada.id, fu), replay(None, [(1, T0 + DAY), (3, T0 + DAY + timedelta(minutes=2))]))
    assert_same_state(_state(engine, ada.id, card), replay(exported, [(2, T0 + 3 * DAY)]))
    assert_same_state(_state(engine, ada.id, drill),
                      replay(None, [(3, T0 + DAY + timedelta(minutes=5)), (1, T0 + 2 * DAY)]))
    drill_logs = [log for log in logs if log.typed_answer is not None]
    assert [(log.typed_answer, log.correct, log.rating) for log in drill_logs] == \
        [(f"{expected[0][2]:.6g}", True, 3), ("0.001", False, 1)]
    # the drills were graded on numbers the server made from the seeds, stored as showings
    assert all(log.showing_id is not None for log in drill_logs)

    again = _import(engine, ada, text)
    assert (len(again.imported), again.already, again.skipped) == (0, 5, [])
    assert len(_logs(engine, ada.id)) == len(logs)


def test_later_server_answers_are_replayed_after_earlier_handbook_ones(engine: Engine, deck: Path) -> None:
    ada = _user(engine, "ada")
    assert ada.id is not None
    name = "ring-allreduce/card/card"
    data = study_data(engine, "ada", now=T0)
    server = engine_answer(engine, ada.id, item_id=_item_id(engine, name), rating=3, now=T0 + DAY + 12 * HOUR,
                           fuzz=False, idempotency_key="web-answer-1")
    assert server["state"]["reps"] == 1
    report = _import(engine, ada, reviews_file(data, [entry(data, name, T0 + DAY, 1),
                                                      entry(data, name, T0 + DAY + timedelta(minutes=1), 4)]))
    assert (len(report.imported), report.replayed) == (2, 1)
    logs = _logs(engine, ada.id)
    assert [(log.rating, log.reviewed_at.replace(tzinfo=UTC)) for log in logs] == \
        [(1, T0 + DAY), (4, T0 + DAY + timedelta(minutes=1)), (3, T0 + DAY + 12 * HOUR)]
    assert logs[-1].idempotency_key == "web-answer-1"  # the server's answer keeps its key (a retry replays it)
    assert logs[-1].was_new is False and logs[0].was_new is True
    # Easy scheduled it a day ahead: the server's answer comes before that due time and still counts
    want = replay(None, [(1, T0 + DAY), (4, T0 + DAY + timedelta(minutes=1)), (3, T0 + DAY + 12 * HOUR)])
    assert want is not None and want.reps == 3
    assert_same_state(_state(engine, ada.id, name), want)
    assert logs[-1].state_after == want.log_json()


def test_changed_and_retired_items_are_listed_and_skipped(engine: Engine, deck: Path, tmp_path: Path) -> None:
    ada = _user(engine, "ada")
    assert ada.id is not None
    data = study_data(engine, "ada", now=T0)
    edited = make_card("zero-sharding", follow_ups=1, drills=True)
    doc = edited.model_copy(update={"follow_ups": [edited.follow_ups[0].model_copy(update={
        "answer": edited.follow_ups[0].answer.model_copy(update={"en": "A corrected answer"})})]})
    write_deck(deck, [doc])  # q1's answer edited, q2 gone (retired), the rest unchanged
    sync_cards(engine, deck)
    reviews = [entry(data, "zero-sharding/followup/q1", T0 + DAY), entry(data, "zero-sharding/followup/q2", T0 + DAY),
               entry(data, "zero-sharding/card/card", T0 + DAY)]
    report = _import(engine, ada, reviews_file(data, reviews))
    assert report.imported == [reviews[2]["id"]]
    assert {(s.item, s.reason.split(" (")[0]) for s in report.skipped} == {
        ("zero-sharding/followup/q1", "the item's text changed since the export"),
        ("zero-sharding/followup/q2", "the item was retired from the deck since the export")}
    assert len(_logs(engine, ada.id)) == 1


def test_drill_numbers_come_from_the_seed_never_the_file(engine: Engine, deck: Path) -> None:
    ada = _user(engine, "ada")
    data = study_data(engine, "ada", now=T0)
    r = entry(data, "zero-sharding/drill/comm-zero2", T0 + DAY)
    # another seed whose numbers differ (a neighbouring seed can draw the same numbers: the drill has few)
    other = next(s for s in range(r["seed"] + 1, r["seed"] + 1000)
                 if showing_fingerprint(drills.new_params("comm-zero2", s)) != r["showing"])
    report = _import(engine, ada, reviews_file(data, [{**r, "seed": other}]))
    assert [s.reason for s in report.skipped] == ["the drill's numbers or answer changed since the export"]
    assert report.imported == []


def test_files_of_another_deck_or_user_are_refused_whole(engine: Engine, deck: Path) -> None:
    ada, bob = _user(engine, "ada"), _user(engine, "bob")
    data = study_data(engine, "bob", now=T0)
    text = reviews_file(data, [entry(data, "ring-allreduce/card/card", T0 + DAY)])
    with pytest.raises(ForeignFile, match=r"holds the reviews of 'bob' \(user \d+\), not of 'ada'"):
        _import(engine, ada, text)
    with pytest.raises(ForeignFile, match="from the handbook of another deck"):
        _import(engine, bob, text.replace(data["deck"], "0" * 32))
    assert _logs(engine, ada.id) == [] and _logs(engine, bob.id) == []  # type: ignore[arg-type]
    # a handbook exported without --user is anyone's
    anonymous = study_data(engine, None, now=T0)
    assert anonymous["user"] is None and anonymous["states"] == {}
    report = _import(engine, ada, reviews_file(anonymous, [entry(anonymous, "ring-allreduce/card/card", T0 + DAY)]))
    assert len(report.imported) == 1


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(rating=5), r"review 2 \(id [0-9a-f-]+\): rating must be 1 \(Again\)"),
    (lambda r: r.update(at="2026-03-01 08:00"), r"review 2 .*: at must be an ISO 8601 time with its zone.*no zone"),
    (lambda r: r.update(item="ring-allreduce/card"), r"item 'ring-allreduce/card' is not '<card slug>/<kind>/<key>'"),
    (lambda r: r.pop("typed"), r"a drill's review needs typed"),
])
def test_a_malformed_file_is_refused_whole(engine: Engine, deck: Path, change, message) -> None:  # type: ignore[no-untyped-def]
    data = study_data(engine, None, now=T0)
    reviews = [entry(data, "ring-allreduce/card/card", T0 + DAY), entry(data, "zero-sharding/drill/memory-ddp", T0)]
    change(reviews[1])
    with pytest.raises(ReviewsFileError, match=message):
        read_reviews_file(reviews_file(data, reviews))
    with pytest.raises(ReviewsFileError, match=r"review 2 repeats the id"):
        read_reviews_file(reviews_file(data, [reviews[0], reviews[0]]))
    with pytest.raises(ReviewsFileError, match=r"not JSON"):
        read_reviews_file(reviews_file(data, reviews[:1])[:-3])


def test_cli_imports_once_and_says_why_it_refuses(engine: Engine, deck: Path, database_url: str,
                                                  tmp_path: Path) -> None:
    ada = _user(engine, "ada")
    _user(engine, "bob")
    data = study_data(engine, "ada", now=T0)
    file = tmp_path / "proofdeck-reviews-ada.json"
    file.write_text(reviews_file(data, [entry(data, "ring-allreduce/card/card", T0 + DAY),
                                        entry(data, "zero-sharding/followup/q1", T0 + DAY)]), encoding="utf-8")
    runner = CliRunner()
    args = ["import", "handbook-reviews", str(file), "--database-url", database_url]
    first = runner.invoke(cli, [*args, "--user", "ada"])
    assert first.exit_code == 0, first.output
    assert "ada: 2 review(s) imported from proofdeck-reviews-ada.json, 0 already imported, 0 skipped" in first.output
    again = runner.invoke(cli, [*args, "--user", "ada", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["already_imported"] == 2
    other = runner.invoke(cli, [*args, "--user", "bob"])
    assert other.exit_code == 2 and "holds the reviews of 'ada'" in other.output and "nothing imported" in other.output
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    bad = runner.invoke(cli, ["import", "handbook-reviews", str(broken), "--user", "ada",
                              "--database-url", database_url])
    assert bad.exit_code == 2 and "not JSON" in bad.output
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(ReviewLog)).one() == 2
    assert ada.id is not None

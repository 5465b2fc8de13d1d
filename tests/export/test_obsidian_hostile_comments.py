"""Hostile scheduling comments (issue 36): every number and date a comment carries is bounded, and a bad one is
a listed, skipped line of the import's report, never an OverflowError (a 500 on the API, a traceback on the CLI)
nor a BIGINT overflow at the write."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from app.review.obsidian_import import NotASchedule, parse_schedule
from tests.export.test_obsidian_roundtrip import edit, export, import_reviews, note_path, states

FSRS = "!fsrs,{due},5,5.2,6.1,{state},{reps},{lapses},{step},{last}"
GOOD_DUE, GOOD_LAST = "2026-12-09T08:00:00.000Z", "2026-12-04T08:00:00.000Z"


def fsrs(**kw: object) -> str:
    fields: dict[str, object] = {"due": GOOD_DUE, "state": 2, "reps": 4, "lapses": 1, "step": 0,
                                 "last": GOOD_LAST}
    return FSRS.format(**{**fields, **kw})


# (comment body, what the report's message says) — the six shapes first, then their neighbours
HOSTILE = [
    ("!0001-01-01,1,250", "outside the years"),  # last review = due − 1 day: before year 1
    ("!2026-12-04,999999,250", "interval 999999 days"),
    (fsrs(reps="99999999999999999999999"), "out of range"),
    (fsrs(state=1, step="99999999999999999999"), "out of range"),
    (fsrs(due="0001-01-01T00:00:00+01:00"), "not an ISO timestamp"),
    (fsrs(last="9999-12-31T23:59:59-14:00"), "not an ISO timestamp"),
    ("!9999-12-31,1,250", "outside the years"),
    ("!31-12-9999,3,250", "outside the years"),
    (fsrs(lapses="99999999999999999999"), "out of range"),
    (fsrs(reps=-1), "out of range"),
    (fsrs(due="9999-12-31T23:59:59+00:00"), "outside the years"),
    (fsrs(last="0001-01-01T00:00:00Z"), "outside the years"),
]


@pytest.mark.parametrize(("body", "says"), HOSTILE)
def test_a_hostile_comment_is_refused_saying_why(body: str, says: str) -> None:
    with pytest.raises(NotASchedule, match=says):
        parse_schedule(body)


def test_the_cli_lists_every_hostile_comment_and_applies_the_good_one(
        engine: Engine, database_url: str, tmp_path: Path) -> None:
    from sqlmodel import Session

    from app.auth.users import create_user
    from app.deck.sync import sync_cards
    from harness.deck import make_deck
    from tests.export.conftest import write_cards

    sync_cards(engine, write_cards(tmp_path / "cards", make_deck(len(HOSTILE) + 1)))
    with Session(engine) as s:
        create_user(s, "alice")
        s.commit()
    vault = tmp_path / "vault"
    export(database_url, vault)
    slugs = [f"card-{n:04d}" for n in range(len(HOSTILE) + 1)]
    edit(vault, slugs[0], "why-optimizer", "!2026-12-04,3,250")
    for slug, (body, _says) in zip(slugs[1:], HOSTILE, strict=True):
        edit(vault, slug, "why-optimizer", body)
    code, report = import_reviews(database_url, vault, "alice")  # a traceback would not be JSON
    assert code == 1 and report["applied_items"] == [f"{slugs[0]}/why-optimizer"]
    by_note = {Path(p["path"]).name: p["message"] for p in report["problems"]}
    for slug, (_body, says) in zip(slugs[1:], HOSTILE, strict=True):
        message = by_note[note_path(vault, slug).name]
        assert says in message and "skipped" in message, message
    assert set(states(engine, "alice")) == {f"{slugs[0]}/why-optimizer"}

"""What the handbook embeds for study mode (app/export/study.py): every live review item, compactly and
without card text; the same deck gives the same bytes; with a user, their states, holds, settings and
today's counts. The page itself is driven in test_handbook_study_browser.py."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.auth.users import create_user
from app.export.deck import load_docs, load_verdicts
from app.export.handbook import render_handbook
from app.items import drills
from app.models.card import Card
from app.models.review import ReviewItem
from app.models.user import User
from app.review.engine import ReviewEngine
from app.review.study_snapshot import handbook_study
from tests.export.test_handbook import live_markup
from tests.utils.handbook import items
from tests.utils.review import engine_answer
from tests.utils.srs_cards import make_card, write_deck
from tests.utils.xss import hostile_card

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


@pytest.fixture
def synced(engine: Engine, tmp_path: Path) -> Engine:
    """A few cards with every kind of item (drills, pitfalls in one language, a follow-up without answer)."""
    from app.deck.sync import sync_cards

    no_answer = make_card("b-no-answer", follow_ups=1)
    no_answer = no_answer.model_copy(update={"follow_ups": [no_answer.follow_ups[0].model_copy(
        update={"answer": no_answer.follow_ups[0].answer.model_copy(update={"zh": "", "en": ""})})]})
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card("a-zero", drills=True), no_answer,
                                                       make_card("c-pitfalls", pitfalls=(2, 1)), hostile_card("d-x")]))
    return engine


def _study_json(html: str) -> dict:  # type: ignore[type-arg]
    m = re.search(r'<script type="application/json" id="study-data">(.*?)</script>', html, re.DOTALL)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def test_every_live_item_compactly_and_no_card_text_in_the_data(synced: Engine) -> None:
    with Session(synced) as s:
        docs, verdicts = load_docs(s), load_verdicts(s)
        live = s.exec(select(ReviewItem.kind, ReviewItem.key, Card.slug).join(Card, col(Card.id) == ReviewItem.card_id)
                      .where(col(ReviewItem.retired).is_(False))).all()
    html = render_handbook(docs, verdicts, study=handbook_study(ReviewEngine(synced), docs))
    found = live_markup(html)
    assert (found.scripts, found.data_blocks, found.problems, found.sources) == (1, 3, [], [])  # index, graph, study
    data = _study_json(html)
    assert sorted("/".join(i[:3]) for i in items(data)) == sorted(f"{slug}/{kind}/{key}" for kind, key, slug in live)
    text = json.dumps(data, ensure_ascii=False)
    assert "<" not in text and all(d.title.en not in text and d.title.zh not in text for d in docs)
    assert {i[1] for i in items(data)} == {"card", "followup", "pitfall", "drill"}
    (no_answer,) = [i[5] for i in items(data) if i[0] == "b-no-answer" and i[1] == "followup"]
    assert no_answer[0] == "summary" and len(no_answer) == 2  # the sections the server answers it with
    assert all(f'class="sec sec-{key}"' in html for key in no_answer)
    # faces the articles do not show come as inert templates, one per pitfall / misconception, two per drill
    templates = re.findall(r'<template id="(s[td]-[a-z0-9-]+)">', html)
    want = [f"st-{i}" for i, it in enumerate(items(data)) if it[1] in ("pitfall", "misconception")]
    want += [f"sd-{key}-{k}" for key, showings in data["drills"].items() for k in range(len(showings))]
    assert set(data["drills"]) == {it[2] for it in items(data) if it[1] == "drill"}
    for key, showings in data["drills"].items():  # the numbers are the seed's: what the import recomputes
        assert all(params == drills.new_params(key, seed) and expected == drills.answer(params)
                   for seed, _fp, expected, _unit, params in showings)
    assert sorted(templates) == sorted(want) and templates
    # and what the articles show is where the page looks for it
    for slug, kind, key, *_rest in items(data):
        assert f'id="card-{slug}"' in html
        if kind == "followup":
            assert f'id="card-{slug}--{key}"' in html
    assert data["user"] is None and data["states"] == {}
    assert render_handbook(docs, verdicts, study=handbook_study(ReviewEngine(synced), docs)) == html  # same bytes


def test_a_users_state_settings_holds_and_counts_travel(synced: Engine) -> None:
    with Session(synced) as s, s.begin():
        user, _token = create_user(s, "ada")
        uid = user.id
    assert uid is not None
    review = ReviewEngine(synced)
    review.update_settings(uid, new_per_day=7, reviews_per_day=50, language="en", desired_retention=0.85)
    with Session(synced) as s:
        docs = load_docs(s)
        found = s.get(User, uid)
    assert found is not None
    user = found
    listed = items(handbook_study(review, docs).data)
    first = engine_answer(synced, uid, item_id=_id(synced, listed[0]), rating=3, now=T0, fuzz=False)
    review.hold(uid, _id(synced, listed[1]), "suspend", now=T0)
    data = handbook_study(review, docs, user, now=T0 + timedelta(minutes=1)).data
    assert data["user"] == {"id": uid, "name": "ada"}
    assert data["prefs"] == {"language": "en", "new_per_day": 7, "reviews_per_day": 50}
    assert data["scheduler"]["desired_retention"] == 0.85 and len(data["scheduler"]["parameters"]) == 21
    assert data["today"] == {"day": "2026-03-01", "new": 1, "reviews": 0}
    state = data["states"]["0"]
    assert state[0] == 1 and state[4] == round(datetime.fromisoformat(first["state"]["due"]).timestamp() * 1000)
    assert data["held"] == {"1": 0}  # suspended: no end
    assert data["export"] != handbook_study(review, docs).data["export"]


def _id(db: Engine, item: list) -> int:  # type: ignore[type-arg]
    with Session(db) as s:
        found = s.exec(select(ReviewItem.id).join(Card, col(Card.id) == ReviewItem.card_id).where(
            Card.slug == item[0], ReviewItem.kind == item[1], ReviewItem.key == item[2])).one()
        assert found is not None
        return found


def test_the_http_handbook_embeds_your_state_only_when_asked_and_signed_in(export_client: TestClient) -> None:
    engine = export_client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s, s.begin():
        _user, token = create_user(s, "ada")
    assert _study_json(export_client.get("/api/export/handbook.html").text)["user"] is None
    r = export_client.get("/api/export/handbook.html", params={"mine": "true"})
    assert r.status_code == 401 and "sign in first" in r.json()["detail"]
    mine = export_client.get("/api/export/handbook.html", params={"mine": "true"},
                             headers={"Authorization": f"Bearer {token}"})
    assert mine.status_code == 200 and _study_json(mine.text)["user"]["name"] == "ada"

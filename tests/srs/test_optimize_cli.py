"""``proofdeck user add`` and ``proofdeck srs optimize`` (the optimiser runs fsrs's Optimizer on torch)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating
from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from app.auth.users import user_for_token
from app.cli.main import cli
from app.deck.sync import sync_cards
from app.models import ReviewItem, ReviewLog, User, UserSettings
from app.srs.optimize import MIN_REVIEWS, NotEnoughReviews, optimize_user, store_parameters
from app.srs.scheduler import make_scheduler
from tests.utils.srs_cards import make_card, write_deck


def test_user_add_prints_a_token_once_and_stores_its_hash(engine: Engine, database_url: str) -> None:
    result = CliRunner().invoke(cli, ["user", "add", "dana", "--admin", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    token = result.output.split("\napi token: ")[1].split()[0]  # its own labelled line
    with Session(engine) as s:
        user = user_for_token(s, token)
        assert user is not None and user.username == "dana" and user.is_admin
        assert token not in str(s.exec(select(User)).all())
    again = CliRunner().invoke(cli, ["user", "add", "dana", "--database-url", database_url])
    assert again.exit_code == 1 and "user 'dana' already exists" in again.output


def _seed(engine: Engine, tmp_path: Path, n_cards: int, reviews_per_item: int) -> int:
    deck = [make_card(f"c{i}", follow_ups=9, pitfalls=(0, 0)) for i in range(n_cards)]
    sync_cards(engine, write_deck(tmp_path / "cards", deck))
    CliRunner().invoke(cli, ["user", "add", "olga", "--database-url", str(engine.url)])
    with Session(engine) as s:
        uid = s.exec(select(User).where(User.username == "olga")).one().id
        items = [i.id for i in s.exec(select(ReviewItem))]
    rows: list[Any] = []
    rng, sched = random.Random(0), make_scheduler(fuzz=False)
    for n, item in enumerate(items):
        card, t = Card(card_id=item or 0), datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=n % 30)
        for k in range(reviews_per_item):
            rating = Rating(rng.choice((1, 3, 3, 3, 4)))
            card, _ = sched.review_card(card, rating, t)
            rows.append({"user_id": uid, "item_id": item, "rating": int(rating), "reviewed_at": t,
                         "idempotency_key": f"{item}-{k}", "state_after": {}, "response": {}})
            t = card.due + timedelta(hours=rng.randint(0, 48))
    with engine.begin() as conn:
        conn.execute(insert(ReviewLog), rows)
    return len(rows)


def test_too_few_reviews_is_a_clear_error(engine: Engine, tmp_path: Path) -> None:
    n = _seed(engine, tmp_path, 1, 2)
    with pytest.raises(NotEnoughReviews,
                       match=f"user 'olga' has {n} reviews; the optimiser needs at least {MIN_REVIEWS}"):
        optimize_user(engine, "olga")
    result = CliRunner().invoke(cli, ["srs", "optimize", "nobody", "--database-url", str(engine.url)])
    assert result.exit_code == 1 and "no user named 'nobody'" in result.output


def test_a_fit_is_stored_exactly_and_replaces_the_last(engine: Engine) -> None:
    # what the fit below does with the database, on both backends without torch: 21 floats that are not short
    # decimals survive the JSON column bit for bit, and a second fit replaces the first
    CliRunner().invoke(cli, ["user", "add", "olga", "--database-url", str(engine.url)])
    with Session(engine) as s:
        uid = s.exec(select(User).where(User.username == "olga")).one().id
    assert uid is not None
    defaults = list(make_scheduler().parameters)
    for n, fitted in ((600, [p + 1 / 3 * 1e-3 for p in defaults]), (900, [p * (1 + 2 ** -40) for p in defaults])):
        store_parameters(engine, uid, fitted, n)
        with Session(engine) as s:
            st = s.exec(select(UserSettings).where(UserSettings.user_id == uid)).one()
        assert st.parameters == fitted and st.optimized_reviews == n and st.optimized_at is not None
        assert list(make_scheduler(parameters=list(st.parameters)).parameters) == fitted


@pytest.mark.slow
@pytest.mark.backend_agnostic("fsrs's Optimizer fitting on torch; its review-log query and its write run on both "
                              "backends in test_too_few_reviews_is_a_clear_error and the test above")
def test_optimize_fits_and_stores_parameters(engine: Engine, tmp_path: Path) -> None:
    # 840 reviews, 651 of them on a later day than the one before (fsrs fits only on those, and returns its
    # defaults below 512): enough for a fit, and less than half the torch time of a bigger log
    n = _seed(engine, tmp_path, 7, 12)
    result = CliRunner().invoke(cli, ["srs", "optimize", "olga", "--database-url", str(engine.url)])
    assert result.exit_code == 0, result.output
    assert f"fitted 21 FSRS parameters on {n} reviews of 'olga'" in result.output
    with Session(engine) as s:
        st = s.exec(select(UserSettings).join(User).where(User.username == "olga")).one()
    assert st.parameters is not None and len(st.parameters) == 21 and st.optimized_reviews == n
    assert st.parameters != list(make_scheduler().parameters)  # fitted, not the defaults

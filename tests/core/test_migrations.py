"""Schema migrations: from scratch they equal the models; an old database upgrades and keeps its reviews."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, select

import app.models.migrate as migrate
from app.auth.users import create_user
from app.core.db import make_engine
from app.main import create_app
from app.models import ReviewLog
from app.models.migrate import init_db


def test_migrations_from_scratch_equal_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        migrate.upgrade(engine)  # every revision, in order, on an empty database
        assert migrate.current_revision(engine) == migrate.head_revision()
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                    SQLModel.metadata)
        assert diff == [], f"models and migrations disagree (write a migration: proofdeck db revision): {diff}"
    finally:
        engine.dispose()


def _downgrade(engine: Engine, revision: str) -> None:
    cfg = migrate.alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_upgrade_from_the_first_release_keeps_reviews(database_url: str, cards_dir: Path) -> None:
    engine = make_engine(database_url)
    # reviews made through the real API, then the database taken back to the first release's schema
    with TestClient(create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)) as client:
        with Session(engine) as s, s.begin():
            _user, token = create_user(s, "ada")
        auth = {"Authorization": f"Bearer {token}"}
        for n in range(3):
            item = client.get("/api/review/next", headers=auth).json()["item"]
            r = client.post("/api/review", json={"item_id": item["id"], "rating": 3},
                            headers={**auth, "Idempotency-Key": f"k{n}"})
            assert r.status_code == 200, r.text
    _downgrade(engine, "0001")
    assert migrate.current_revision(engine) == "0001"
    assert "method" not in {c["name"] for c in inspect(engine).get_columns("claimverdict")}
    assert "changeclock" not in inspect(engine).get_table_names()
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO verificationrun (created_at, status, error, host, backend, device, "
                          "torch_version, proofdeck_version, world_sizes, environment, report) VALUES "
                          "(CURRENT_TIMESTAMP, 'done', '', 'h', 'gloo', 'cpu', '2.13.0', '0.1.0', '[2]', '{}', '{}')"))
        conn.execute(text("INSERT INTO claimverdict (run_id, card_slug, claim_key, \"check\", verdict, judged, "
                          "text_zh, text_en, condition, reason_zh, reason_en) SELECT id, 'zero-sharding', "
                          "'example-256gb-16b', 'c', 'confirmed', 'arithmetic', '', '', '', '', '' "
                          "FROM verificationrun"))
    with Session(engine) as s:
        before = [(r.id, r.item_id, r.rating, r.idempotency_key) for r in s.exec(select(ReviewLog))]
    assert len(before) == 3

    init_db(engine)  # what `proofdeck db upgrade` and every start do
    assert migrate.current_revision(engine) == migrate.head_revision()
    with Session(engine) as s:
        after = [(r.id, r.item_id, r.rating, r.idempotency_key) for r in s.exec(select(ReviewLog))]
    assert after == before
    with engine.connect() as conn:
        assert conn.execute(text("SELECT method FROM claimverdict")).scalar_one() == "calculated"
    with TestClient(create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)) as client:
        log = client.get("/api/review/log", headers=auth)
        assert log.status_code == 200 and len(log.json()["data"]) == 3
        assert client.get("/cards/zero-sharding").status_code == 200
        item = client.get("/api/review/next", headers=auth).json()["item"]  # and reviewing goes on
        r = client.post("/api/review", json={"item_id": item["id"], "rating": 3},
                        headers={**auth, "Idempotency-Key": "k3"})
        assert r.status_code == 200 and not r.json()["replayed"], r.text
    engine.dispose()


def test_foreign_database_is_refused(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE something_else (id INTEGER PRIMARY KEY)"))
        with pytest.raises(RuntimeError, match="no migration history"):
            init_db(engine)
    finally:
        engine.dispose()

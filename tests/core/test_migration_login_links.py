"""Migration 0010 on a database of 0009 with a user: the tokens printed before it (``user add``'s, and the
links ``user link`` printed, which were API tokens) keep working as API tokens, no longer sign a browser in,
and the user gets one-time login links."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from sqlmodel import Session, select

import app.models.migrate as migrate
from app.auth.links import issue_link
from app.auth.users import issue_token
from app.core.db import make_engine
from app.main import create_app
from app.models.user import User
from tests.utils.fetch_site import TYPED_URL


def test_upgrade_from_0009_keeps_tokens_as_api_tokens(database_url: str, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    migrate.upgrade(engine, "0009_deck_identity")
    assert "loginlink" not in inspect(engine).get_table_names()
    with Session(engine) as s, s.begin():  # what 0009's `user add ada` and `user link ada` stored
        user = User(username="ada")  # (its settings row as 0009 had it: today's model has later columns)
        s.add(user)
        s.flush()
        s.execute(text("INSERT INTO usersettings (user_id, desired_retention, new_per_day, reviews_per_day, language, "
                       "optimized_reviews) VALUES (:id, 0.9, 20, 200, 'both', 0)"), {"id": user.id})
        added = issue_token(s, user, kind="api", label="created with the account")
        old_link = issue_token(s, user, kind="api", label="login link (proofdeck user link)")

    migrate.init_db(engine)  # what `proofdeck db upgrade` and every start do
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert "loginlink" in inspect(engine).get_table_names()
    app = create_app(database_url=database_url, cards_dir=tmp_path, sync_on_startup=False)
    with TestClient(app) as client:
        for token in (added, old_link):
            me = client.get("/api/users/me", headers={"Authorization": f"Bearer {token}"})
            assert me.status_code == 200 and me.json()["username"] == "ada"
            r = client.get(f"/login?token={token}", headers=TYPED_URL, follow_redirects=False)
            assert r.status_code == 401 and "This is an API token" in r.text  # an old link says what it is now
        with Session(engine) as s, s.begin():
            link = issue_link(s, s.exec(select(User).where(User.username == "ada")).one())
        r = client.get(f"/login?token={link}", headers=TYPED_URL, follow_redirects=False)
        assert r.status_code == 303 and client.get("/api/users/me").json()["username"] == "ada"
    app.state.engine.dispose()
    engine.dispose()

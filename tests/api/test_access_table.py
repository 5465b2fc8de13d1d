"""The access table of docs/security.md is the truth: it lists exactly the app's routes, and every cell is what
that caller really gets (anonymous, a learner, another learner, an admin), request by request."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.auth.users import create_user
from app.models.user import User
from app.verification.store import start_run

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("anonymous", "learner", "other", "admin")
NOT_ROUTES = {"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}  # FastAPI's own docs
ROW = re.compile(r"^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|((?: [^|]+ \|){4})\s*$")
PASSWORD = "learner password"


@dataclass(frozen=True)
class Row:
    method: str
    path: str
    access: str
    expected: dict[str, int]


def readme_rows() -> list[Row]:
    rows = []
    for line in (ROOT / "docs" / "security.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            codes = [int(cell.strip()[:3]) for cell in m.group(4).strip(" |").split("|")]
            rows.append(Row(m.group(1), m.group(2), m.group(3).strip(), dict(zip(ROLES, codes, strict=True))))
    return rows


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for route in iter_route_contexts(app.router.routes):
        methods = getattr(route, "methods", None)  # a Mount (/static) has none
        if methods and route.path not in NOT_ROUTES:
            out.update((str(m), str(route.path)) for m in methods if m != "HEAD")
    return out


def test_table_lists_exactly_the_apps_routes() -> None:
    from app.main import create_app

    rows = readme_rows()
    listed = [(r.method, r.path) for r in rows]
    assert len(listed) == len(set(listed)), "a route is listed twice"
    routes = app_routes(create_app(database_url="sqlite://", sync_on_startup=False))
    assert len(routes) >= 30
    assert set(listed) - routes == set(), "listed in docs/security.md but not a route"
    assert routes - set(listed) == set(), "routes missing from the access table of docs/security.md"


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:  # the bundled deck (tests/api's conftest swaps in a fixture deck)
    shutil.copytree(ROOT / "cards", tmp_path / "cards")
    return tmp_path / "cards"


class World:
    """Users, their tokens and one row of each kind the table's paths point at."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        engine = client.app.state.engine  # type: ignore[attr-defined]
        with Session(engine) as s, s.begin():
            learner, t_learner = create_user(s, "learner", password=PASSWORD)
            _other, t_other = create_user(s, "other", password="other password")
            _admin, t_admin = create_user(s, "boss", is_admin=True)
            self.learner_id = learner.id
        with Session(engine) as s:
            self.run_id = start_run(s).id
        self.headers: dict[str, dict[str, str]] = {
            "anonymous": {}, "learner": {"Authorization": f"Bearer {t_learner}"},
            "other": {"Authorization": f"Bearer {t_other}"}, "admin": {"Authorization": f"Bearer {t_admin}"}}
        self.item_id = self._next_item()
        r = client.post("/api/review", json={"item_id": self.item_id, "rating": 3}, headers=self.headers["learner"])
        assert r.status_code == 200, r.text
        self.log_id = client.get("/api/review/log", headers=self.headers["learner"]).json()["data"][0]["id"]
        self.new_item_id = self._next_item()  # still new for everyone: POST /api/review grades it
        self.victims = 0

    def _next_item(self) -> int:
        r = self.client.get("/api/review/next", headers=self.headers["learner"])
        return int(r.json()["item"]["id"])

    def handbook_file(self) -> str:
        """An (empty) reviews file of the learner's handbook."""
        from app.models.deck import deck_id

        deck = deck_id(self.client.app.state.engine)  # type: ignore[attr-defined]
        return json.dumps({"format": "proofdeck-handbook-reviews", "version": 1, "deck": deck, "export": "x",
                           "user": {"id": self.learner_id, "name": "learner"}, "reviews": []})

    def victim(self) -> int:
        """A throwaway account for DELETE /api/users/{user_id} (one per request)."""
        self.victims += 1
        with Session(self.client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
            user, _token = create_user(s, f"victim{self.victims}")
            assert isinstance(user, User) and user.id is not None
            return user.id

    def request(self, row: Row, role: str) -> int:
        values: dict[str, Any] = {"slug": "zero-sharding", "run_id": self.run_id, "item_id": self.item_id,
                                  "log_id": self.log_id, "user_id": self.learner_id, "name": "quiz.css"}
        if row.method == "DELETE":
            values["user_id"] = self.victim()
        kwargs: dict[str, Any] = {}
        if (row.method, row.path) == ("POST", "/api/review"):
            kwargs["json"] = {"item_id": self.new_item_id, "rating": 3}
        elif (row.method, row.path) == ("PUT", "/api/review/settings"):
            kwargs["json"] = {"new_per_day": 25}
        elif (row.method, row.path) in (("POST", "/api/export/obsidian.zip"), ("POST", "/api/review/import/obsidian")):
            kwargs["json"] = {"notes": {}}
        elif (row.method, row.path) == ("POST", "/api/review/import/handbook"):
            kwargs["content"] = self.handbook_file()  # the learner's file: others are refused it
        elif (row.method, row.path) == ("GET", "/api/match"):
            kwargs["params"] = {"q": "why does zero3 send more than ddp"}
        elif (row.method, row.path) in (("GET", "/api/match/study"), ("GET", "/quiz/study")):
            kwargs["params"] = {"cards": "zero-sharding"}
        elif (row.method, row.path) == ("POST", "/api/users"):
            kwargs["json"] = {"username": f"made-by-{role}"}
        elif (row.method, row.path) == ("POST", "/login"):
            kwargs["data"] = {"username": "learner", "password": PASSWORD}
        elif (row.method, row.path) == ("POST", "/login/link"):
            kwargs["data"] = {"token": "not-a-login-link"}
        elif (row.method, row.path) == ("POST", "/api/review/regrade"):
            kwargs["json"] = {"log_id": self.log_id, "rating": 3}
        elif (row.method, row.path) == ("POST", "/quiz/held/resume"):
            kwargs["data"] = {"item_id": str(self.item_id)}
        elif (row.method, row.path) == ("POST", "/quiz/settings"):
            kwargs["data"] = {"desired_retention": "0.9", "new_per_day": "20", "language": "both",
                              "reviews_per_day": "200"}
        url = re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), row.path)
        self.client.cookies.clear()  # only the role's Bearer token speaks (POST /login sets a cookie)
        r = self.client.request(row.method, url, headers=self.headers[role], follow_redirects=False, **kwargs)
        return int(r.status_code)


def test_every_cell_of_the_table(client: TestClient) -> None:
    world = World(client)
    rows = readme_rows()
    got = {(row.method, row.path): {role: world.request(row, role) for role in ROLES} for row in rows}
    wrong = [f"{method} {path}: docs/security.md says {row.expected}, the app answers {got[(method, path)]}"
             for row in rows for method, path in [(row.method, row.path)] if got[(method, path)] != row.expected]
    assert not wrong, "\n".join(wrong)
    owner_rows = [row for row in rows if row.access == "owner"]
    assert owner_rows and all(row.expected["other"] in (403, 404) for row in owner_rows)
    assert all(row.expected["anonymous"] == 401 for row in rows if row.access in ("learner", "owner", "admin"))
    assert all(row.expected["learner"] == 403 for row in rows if row.access == "admin")

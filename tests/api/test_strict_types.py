"""Request bodies are strictly typed: a boolean is no number, a number no boolean, a string neither."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.auth.users import create_user


@pytest.fixture
def tokens(client: TestClient) -> dict[str, dict[str, str]]:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _l, learner = create_user(s, "learner")
        _a, admin = create_user(s, "boss", is_admin=True)
    return {"learner": {"Authorization": f"Bearer {learner}"}, "admin": {"Authorization": f"Bearer {admin}"}}


@pytest.mark.parametrize("body", [{"new_per_day": False}, {"new_per_day": True}, {"new_per_day": "20"},
                                  {"new_per_day": 20.5}, {"desired_retention": True}, {"desired_retention": "0.9"},
                                  {"language": 1}])
def test_settings_refuse_lenient_types(client: TestClient, tokens: dict[str, Any], body: dict[str, Any]) -> None:
    before = client.get("/api/review/settings", headers=tokens["learner"]).json()
    r = client.put("/api/review/settings", json=body, headers=tokens["learner"])
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", next(iter(body))]
    assert client.get("/api/review/settings", headers=tokens["learner"]).json() == before


def test_settings_take_proper_types(client: TestClient, tokens: dict[str, Any]) -> None:
    r = client.put("/api/review/settings", json={"new_per_day": 0, "desired_retention": 0.95, "language": "en"},
                   headers=tokens["learner"])
    assert r.status_code == 200
    assert (r.json()["new_per_day"], r.json()["desired_retention"]) == (0, 0.95)


@pytest.mark.parametrize("is_admin", [0, 1, "true", "yes", None])
def test_user_create_refuses_a_non_boolean_is_admin(client: TestClient, tokens: dict[str, Any], is_admin: Any) -> None:
    r = client.post("/api/users", json={"username": "mallory", "is_admin": is_admin}, headers=tokens["admin"])
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "is_admin"]
    assert "mallory" not in {u["username"] for u in client.get("/api/users", headers=tokens["admin"]).json()["data"]}


@pytest.mark.parametrize("body", [{"item_id": "1", "rating": 3}, {"item_id": True, "rating": 3},
                                  {"item_id": 1, "rating": True}, {"item_id": 1, "rating": 3.0},
                                  {"item_id": 1, "rating": 3, "duration_ms": "5"}])
def test_review_refuses_lenient_types(client: TestClient, tokens: dict[str, Any], body: dict[str, Any]) -> None:
    r = client.post("/api/review", json=body, headers=tokens["learner"])
    assert r.status_code == 422, r.text
    assert client.get("/api/review/log", headers=tokens["learner"]).json()["count"] == 0


def test_integral_floats_are_integers_as_in_json_schema(client: TestClient, tokens: dict[str, Any]) -> None:
    """JSON Schema calls 244.0 an integer (schemathesis sent it as valid data): strict, but JSON's rules."""
    r = client.put("/api/review/settings", json={"new_per_day": 244.0}, headers=tokens["learner"])
    assert r.status_code == 200, r.text
    assert r.json()["new_per_day"] == 244
    item = client.get("/api/review/next", headers=tokens["learner"]).json()["item"]["id"]
    r = client.post("/api/review", json={"item_id": float(item), "rating": 3, "duration_ms": 1200.0},
                    headers=tokens["learner"])
    assert r.status_code == 200, r.text

"""Input the fuzzer found (or that PostgreSQL refuses) answers 4xx with a clear detail, never 500,
and the same on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.api.guards import DETAIL
from app.auth.users import create_user


@pytest.fixture
def learner(client: TestClient) -> dict[str, str]:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _u, token = create_user(s, "learner")
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("url", ["/api/cards/a%00b", "/api/cards?q=a%00b", "/api/cards?module=%00",
                                 "/api/cards/x%00.md", "/api/cards/x%00/verification", "/cards/a%00b", "/?q=%00",
                                 "/login?token=%00", "/quiz/assets/%00"])
def test_nul_in_the_url_is_422(read_client: TestClient, url: str) -> None:
    r = read_client.get(url)
    assert (r.status_code, r.json()) == (422, {"detail": DETAIL})


@pytest.mark.parametrize("body", [{"item_id": 1, "rating": 3, "idempotency_key": "k\x00"},
                                  {"item_id": 1, "typed_answer": "4\x00"}])
def test_nul_in_review_text_fields_is_422(client: TestClient, learner: dict[str, str], body: dict[str, object]) -> None:
    r = client.post("/api/review", json=body, headers=learner)
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "string_pattern_mismatch"


def test_nul_in_login_username_is_422(read_client: TestClient) -> None:
    r = read_client.post("/login", data={"username": "a\x00b", "password": "whatever"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "username"]


@pytest.mark.parametrize("url", ["/api/review/log/2147483648", "/api/review/items/99999999999999999999",
                                 "/api/review/chain/0", "/api/review/log?offset=-1",
                                 "/api/review/log?offset=9223372036854775808", "/api/verification/runs/2147483648"])
def test_ids_and_offsets_out_of_range_are_422(client: TestClient, learner: dict[str, str], url: str) -> None:
    r = client.get(url, headers=learner)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"][0] in ("path", "query")


def test_largest_id_is_simply_not_found(client: TestClient, learner: dict[str, str]) -> None:
    r = client.get("/api/review/log/2147483647", headers=learner)
    assert (r.status_code, r.json()) == (404, {"detail": "review log 2147483647 not found"})
    r = client.post("/api/review", json={"item_id": 2147483647, "rating": 3}, headers=learner)
    assert r.status_code == 404


def test_username_with_a_trailing_newline_is_refused(client: TestClient) -> None:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _u, token = create_user(s, "boss", is_admin=True)
    r = client.post("/api/users", json={"username": "alice\n"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("username 'alice\\n' is invalid")


@pytest.mark.parametrize("url", ["/api/review/log?offset=8y&offset=0.0", "/api/cards?limit=5&q=zero&limit=500",
                                 "/?q=a&q=b"])
def test_a_query_parameter_given_twice_is_422(client: TestClient, learner: dict[str, str], url: str) -> None:
    """FastAPI keeps the last of repeated values: ``offset=8y&offset=0.0`` answered 200 (schemathesis)."""
    r = client.get(url, headers=learner)
    assert r.status_code == 422
    assert "given more than once" in r.json()["detail"]


def test_distinct_query_parameters_still_work(client: TestClient, learner: dict[str, str]) -> None:
    assert client.get("/api/review/log?offset=0&limit=5", headers=learner).status_code == 200

"""Long or pathological searches are bounded (422 with a detail, never SQLite's "Expression tree is too
large"), and an unexpected exception answers 500 ``{"detail"}`` (a page: the HTML error page)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.cards.catalog import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from app.search.match import MAX_QUERY_CHARS as MATCH_MAX_CHARS

MANY_WORDS = " ".join(["ab"] * 997)  # one LIKE per word used to make a 1,000-deep expression on SQLite


def test_api_search_with_997_words_is_422_with_a_detail(read_client: TestClient) -> None:
    r = read_client.get("/api/cards", params={"q": MANY_WORDS})
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/json"
    assert r.json()["detail"][0]["loc"] == ["query", "q"]


def test_page_search_with_997_words_is_422_with_the_message(read_client: TestClient) -> None:
    """The page ranks with /api/match (a pasted question may be long): its bound, said in the page."""
    assert len(MANY_WORDS) > MATCH_MAX_CHARS
    r = read_client.get("/", params={"q": MANY_WORDS}, headers={"Accept": "text/html"})
    assert r.status_code == 422
    assert f"the limit is {MATCH_MAX_CHARS}" in r.text
    assert "Expression tree" not in r.text


def test_the_longest_allowed_search_works_on_every_database(read_client: TestClient) -> None:
    distinct = " ".join(f"w{i}" for i in range(MAX_QUERY_CHARS // 4))  # 64 distinct words within the bound
    assert len(distinct) <= MAX_QUERY_CHARS
    assert read_client.get("/api/cards", params={"q": distinct}).json()["count"] == 0
    most = " ".join(["x"] * MAX_QUERY_WORDS)[:MAX_QUERY_CHARS]
    assert read_client.get("/api/cards", params={"q": most}).status_code == 200
    assert read_client.get("/", params={"q": most}).status_code == 200
    r = read_client.get("/api/cards", params={"q": "x" * (MAX_QUERY_CHARS + 1)})
    assert r.status_code == 422


def test_repeated_words_count_once(read_client: TestClient) -> None:
    one = read_client.get("/api/cards", params={"q": "zero"}).json()
    again = read_client.get("/api/cards", params={"q": " ".join(["zero"] * 50)}).json()
    assert one["count"] > 0 and again["count"] == one["count"]


@pytest.fixture
def broken(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    """Card search raising what no route expects (a bug, a lost database)."""
    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr("app.api.routes.cards.find_cards", boom)
    monkeypatch.setattr("app.pages.routes.find_cards", boom)
    return TestClient(client.app, raise_server_exceptions=False)


def test_an_unexpected_exception_is_a_json_500(broken: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    r = broken.get("/api/cards")
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert detail.startswith("internal error (reference ") and "secret internals" not in detail


def test_an_unexpected_exception_on_a_page_is_the_html_error_page(broken: TestClient) -> None:
    r = broken.get("/", headers={"Accept": "text/html"})
    assert r.status_code == 500
    assert r.headers["content-type"].startswith("text/html")
    assert "internal error (reference " in r.text and "secret internals" not in r.text

"""Five places where the OpenAPI schema once said less than the server did (issue 36), each asked directly
as anonymous, a learner and an admin: the schemathesis run (test_schemathesis.py) finds them only among
thousands of requests, these say which one broke.

1. ``POST /quiz/settings`` out of range (a language not in the enum, ``reviews_per_day=-1``) is refused
   with 422 for everyone; signed out it was redirected (303) as if it were valid.
2. A body the server cannot read answers a status its operation documents, never a 5xx: form-encoded
   ``\\xff`` sent to a JSON route was a 500, a multipart form without boundary an undocumented 400.
3. A 405 lists in ``Allow`` every method the schema gives its path (it listed the first route's).
4. ``DELETE /api/users/me`` (a path the schema gives only GET) answers 405; it reached ``DELETE
   /api/users/{user_id}`` and answered 401, 403 or 422 depending on who asked.
5. ``{"rating": null, "typed_answer": ""}`` is no answer: the schema refuses it, as the server does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

ROLES = ("anonymous", "learner", "admin")
SAME_SITE = {"Origin": "http://testserver"}


@pytest.fixture(scope="module")
def site(module_database_url: str, module_cards_dir: Any) -> Iterator[tuple[TestClient, dict[str, dict[str, str]]]]:
    from app.auth.users import create_user
    from app.main import create_app
    from app.models.migrate import init_db

    app = create_app(database_url=module_database_url, cards_dir=module_cards_dir, sync_on_startup=True)
    init_db(app.state.engine)
    with Session(app.state.engine) as s, s.begin():
        _u, learner = create_user(s, "learner")
        _a, admin = create_user(s, "root", is_admin=True)
    headers = {"anonymous": {}, "learner": {"Authorization": f"Bearer {learner}"},
               "admin": {"Authorization": f"Bearer {admin}"}}
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, headers
    app.state.engine.dispose()


def _schema(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("field,value", [("language", "xx"), ("reviews_per_day", "-1"), ("desired_retention", "2")])
def test_quiz_settings_out_of_range_is_refused_for_everyone(site: Any, role: str, field: str, value: str) -> None:
    client, headers = site
    body = {"desired_retention": "0.9", "new_per_day": "20", "language": "en", "reviews_per_day": "200"}
    form = _schema(client)["components"]["schemas"]["Body_save_settings_quiz_settings_post"]["properties"]
    assert form["language"]["enum"] == ["zh", "en", "both"] and form["reviews_per_day"]["minimum"] == 0
    r = client.post("/quiz/settings", data={**body, field: value}, headers={**headers[role], **SAME_SITE},
                    follow_redirects=False)
    assert r.status_code == 422, (r.status_code, r.text)
    assert field in r.json()["detail"]


BAD_BODIES = [("application/x-www-form-urlencoded", b"\xff=\xff"), ("application/json", b"\xff"),
              ("application/json", b'{"a":'), ("multipart/form-data", b"no boundary")]


@pytest.mark.parametrize("role", ROLES)
def test_an_unreadable_body_gets_a_documented_answer(site: Any, role: str) -> None:
    client, headers = site
    checked = 0
    for path, operations in _schema(client)["paths"].items():
        for method, operation in operations.items():
            if "requestBody" not in operation or path == "/api/admin/verification":  # that one starts a sweep
                continue
            url = path.replace("{user_id}", "999").replace("{item_id}", "999")
            for content_type, raw in BAD_BODIES:
                r = client.request(method.upper(), url, content=raw, follow_redirects=False,
                                   headers={**headers[role], **SAME_SITE, "Content-Type": content_type})
                assert r.status_code < 500 and str(r.status_code) in operation["responses"], (
                    method, path, content_type, raw, r.status_code, r.text[:200])
                checked += 1
    assert checked >= 10 * len(BAD_BODIES)


@pytest.mark.parametrize("role", ROLES)
def test_every_405_lists_every_method_of_its_path(site: Any, role: str) -> None:
    client, headers = site
    paths = _schema(client)["paths"]
    for path, operations in paths.items():
        documented = {m.upper() for m in operations}
        url = path.replace("{user_id}", "999").replace("{item_id}", "999").replace("{slug}", "x") \
            .replace("{log_id}", "999").replace("{run_id}", "999")
        for method in ("OPTIONS", "PATCH", "PUT", "DELETE"):
            if method in documented:
                continue
            r = client.request(method, url, headers={**headers[role], **SAME_SITE})
            assert r.status_code == 405, (method, path, r.status_code, r.text[:200])
            assert set(r.headers["allow"].replace(" ", "").split(",")) == documented, (method, path, r.headers)


@pytest.mark.parametrize("role", ROLES)
def test_delete_on_the_own_account_path_is_not_allowed(site: Any, role: str) -> None:
    client, headers = site
    assert set(_schema(client)["paths"]["/api/users/me"]) == {"get"}
    r = client.delete("/api/users/me", headers={**headers[role], **SAME_SITE})
    assert (r.status_code, r.headers.get("allow")) == (405, "GET"), r.text
    if role == "admin":  # the other route still deletes by id: a missing one is 404, not 405
        assert client.delete("/api/users/999", headers={**headers[role], **SAME_SITE}).status_code == 404


def test_an_answer_with_neither_rating_nor_typed_answer_is_refused_by_the_schema_too(site: Any) -> None:
    client, headers = site
    schema = _schema(client)
    body = schema["paths"]["/api/review"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.validator_for({**body, "components": schema["components"]})
    assert not validator.is_valid({"item_id": 1, "rating": None, "typed_answer": ""})
    assert not validator.is_valid({"item_id": 1, "rating": 5})
    assert validator.is_valid({"item_id": 1, "rating": 3})
    assert validator.is_valid({"item_id": 1, "typed_answer": "16", "showing_id": 4})
    r = client.post("/api/review", json={"item_id": 1, "rating": None, "typed_answer": ""},
                    headers=headers["learner"])
    assert r.status_code == 422, r.text

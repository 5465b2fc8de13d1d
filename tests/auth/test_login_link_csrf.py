"""Login CSRF through the link (issue 36): ``/login?token=`` signs in at once only when the browser says the
URL was typed, pasted or clicked on our own pages (``Sec-Fetch-Site: none`` / ``same-origin``). Opened from
another site, or by a client that sends no ``Sec-Fetch-Site``, it shows "Sign in as NAME" and signs in nobody
until its button (a same-origin POST) is pressed. And the session cookie takes only session tokens."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth.links import issue_link
from app.auth.users import SESSION_COOKIE, create_user
from app.models.user import User

OURS = "http://testserver"


@pytest.fixture
def api_token(client: TestClient) -> str:
    """alice's API token."""
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _user, token = create_user(s, "alice")
    return token


def _link(client: TestClient) -> str:
    """A fresh one-time login link for alice."""
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        return issue_link(s, s.exec(select(User).where(User.username == "alice")).one())


@pytest.fixture
def token(client: TestClient, api_token: str) -> str:
    """A login link's token for alice."""
    return _link(client)


def _me(client: TestClient) -> int:
    return int(client.get("/api/users/me").status_code)


def test_a_link_from_elsewhere_only_asks(client: TestClient, token: str) -> None:
    for fetch_site in ("cross-site", "same-site", None):  # None: an old browser or curl
        headers = {"Sec-Fetch-Site": fetch_site} if fetch_site else {}
        r = client.get(f"/login?token={token}&next=/quiz/stats", headers=headers, follow_redirects=False)
        assert r.status_code == 200, (fetch_site, r.text)
        assert SESSION_COOKIE not in r.cookies and "set-cookie" not in r.headers
        assert "Sign in as alice" in r.text and r.headers["cache-control"] == "no-store"
        form = re.search(r'<form method="post" action="/login/link"[^>]*>(.*?)</form>', r.text, re.S)
        assert form is not None, r.text
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(1)))
        assert fields == {"token": token, "next": "/quiz/stats"}
        assert _me(client) == 401  # nobody signed in


def test_the_button_signs_in(client: TestClient, token: str) -> None:
    page = client.get(f"/login?token={token}&next=/quiz/stats", headers={"Sec-Fetch-Site": "cross-site"})
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page.text))
    r = client.post("/login/link", data={k: html.unescape(v) for k, v in fields.items()},
                    headers={"Origin": OURS}, follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (303, "/quiz/stats")
    assert SESSION_COOKIE in r.cookies and r.cookies[SESSION_COOKIE] != token  # a fresh session token
    assert client.get("/api/users/me").json()["username"] == "alice"


def test_the_button_from_another_site_is_refused(client: TestClient, token: str) -> None:
    r = client.post("/login/link", data={"token": token}, headers={"Origin": "https://evil.example"},
                    follow_redirects=False)
    assert r.status_code == 403 and SESSION_COOKIE not in r.cookies
    r = client.post("/login/link", data={"token": token}, headers={"Sec-Fetch-Site": "cross-site"},
                    follow_redirects=False)  # no Origin, but the browser says the form was elsewhere
    assert r.status_code == 403 and SESSION_COOKIE not in r.cookies
    bad = client.post("/login/link", data={"token": "forged"}, headers={"Origin": OURS}, follow_redirects=False)
    assert bad.status_code == 401 and SESSION_COOKIE not in bad.cookies
    assert _me(client) == 401
    r = client.get("/login?token=forged", headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False)
    assert r.status_code == 401 and "Sign in as" not in r.text  # a bad link: refused before any page


def test_a_typed_or_own_link_signs_in_directly(client: TestClient, api_token: str) -> None:
    for fetch_site in ("none", "same-origin", " None "):
        client.cookies.clear()
        r = client.get(f"/login?token={_link(client)}", headers={"Sec-Fetch-Site": fetch_site}, follow_redirects=False)
        assert (r.status_code, r.headers["location"]) == (303, "/quiz"), fetch_site
        assert SESSION_COOKIE in r.cookies
        assert client.get("/api/users/me").json()["username"] == "alice"


def test_an_api_token_as_the_session_cookie_is_refused(client: TestClient, api_token: str, token: str) -> None:
    assert client.get("/api/users/me", headers={"Authorization": f"Bearer {api_token}"}).status_code == 200  # cached
    client.cookies.set(SESSION_COOKIE, api_token)
    assert _me(client) == 401  # the cached sign-in too
    assert client.get("/api/review/next").status_code == 401  # the hot routes' dependency (signed_in)
    client.cookies.clear()
    client.get(f"/login?token={token}", headers={"Sec-Fetch-Site": "none"})  # a real session cookie works
    assert client.get("/api/users/me").json()["username"] == "alice"
    assert client.get("/api/review/next").status_code == 200

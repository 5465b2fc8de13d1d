"""``proofdeck user add`` / ``user link`` print a login link and, on its own ``api token:`` line, an API token;
``user tokens NAME`` lists API tokens without their secrets and ``--revoke ID`` makes one answer 401;
``user logout`` ends pending links too. The CLI and the app share one SQLite file."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from typer.testing import CliRunner

from app.cli.main import cli
from app.core.config import settings
from app.models.user import ApiToken, User
from tests.utils.fetch_site import TYPED_URL


@pytest.fixture(autouse=True)
def _served_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "SERVED_FILE", tmp_path / "served.json")


def invoke(database_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["user", *args, "--database-url", database_url])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout + result.stderr


def printed(text: str) -> tuple[str, str | None]:
    """(the login link's token, the API token or None) from what ``user add`` / ``user link`` printed."""
    link = re.search(r"^https?://\S+/login\?token=(\S+)$", text, re.MULTILINE)
    api = re.search(r"^api token: (\S+)$", text, re.MULTILINE)
    assert link, text
    return link.group(1), api.group(1) if api else None


def bearer(client: TestClient, token: str) -> int:
    return int(client.get("/api/users/me", headers={"Authorization": f"Bearer {token}"}).status_code)


def signs_in(client: TestClient, link: str) -> bool:
    client.cookies.clear()
    ok = bool(client.get(f"/login?token={link}", headers=TYPED_URL, follow_redirects=False).status_code == 303)
    client.cookies.clear()
    return ok


def test_add_and_link_print_a_link_and_an_api_token(client: TestClient, database_url: str) -> None:
    code, text = invoke(database_url, "add", "bob")
    assert code == 0, text
    link, api = printed(text)
    assert api is not None and api != link
    assert bearer(client, api) == 200 and signs_in(client, link)
    assert bearer(client, link) == 401  # the link is no API token
    assert not signs_in(client, api)  # and the API token no link
    code, text = invoke(database_url, "link", "bob")
    again, none = printed(text)
    assert code == 0 and none is None and signs_in(client, again)  # a link only: no new permanent credential
    code, text = invoke(database_url, "link", "bob", "--api-token")
    third, fresh = printed(text)
    assert code == 0 and fresh is not None and bearer(client, fresh) == 200 and signs_in(client, third)


def test_tokens_are_listed_without_secrets_and_revoked(client: TestClient, database_url: str) -> None:
    first = printed(invoke(database_url, "add", "bob")[1])[1]
    second = printed(invoke(database_url, "link", "bob", "--api-token")[1])[1]
    other = printed(invoke(database_url, "add", "carol")[1])[1]
    assert first and second and other
    assert bearer(client, first) == 200
    code, listing = invoke(database_url, "tokens", "bob")
    assert code == 0, listing
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        bob = s.exec(select(User).where(User.username == "bob")).one()
        rows = s.exec(select(ApiToken).where(ApiToken.kind == "api")).all()
    labelled = {t.label: t for t in rows if t.user_id == bob.id}
    mine, theirs = labelled["created with the account"], labelled["proofdeck user link --api-token"]
    lines = {line.split("│")[1].strip(): line for line in listing.splitlines() if line.count("│") >= 4}
    assert set(lines) == {str(mine.id), str(theirs.id)}, listing  # carol's token is not bob's
    assert "created with the account" in lines[str(mine.id)] and "never" not in lines[str(mine.id)]  # used
    assert lines[str(theirs.id)].rstrip(" │").endswith("never")
    for secret in (first, second):
        assert secret not in listing and hashlib.sha256(secret.encode()).hexdigest() not in listing

    code, text = invoke(database_url, "tokens", "bob", "--revoke", str(mine.id))
    assert code == 0 and f"API token #{mine.id} revoked" in text
    assert bearer(client, first) == 401 and bearer(client, second) == 200
    carols = next(t.id for t in rows if t.user_id != bob.id)
    code, text = invoke(database_url, "tokens", "bob", "--revoke", str(carols))
    assert code == 1 and f"'bob' has no API token #{carols}" in text
    assert bearer(client, other) == 200  # nothing revoked
    assert invoke(database_url, "tokens", "nobody")[0] == 1


def test_logout_ends_pending_links(client: TestClient, database_url: str) -> None:
    link, api = printed(invoke(database_url, "add", "bob")[1])
    code, text = invoke(database_url, "logout", "bob")
    assert code == 0 and "0 web session(s) and 1 pending login link(s) ended" in text
    assert not signs_in(client, link)
    assert api is not None and bearer(client, api) == 200  # API tokens stay

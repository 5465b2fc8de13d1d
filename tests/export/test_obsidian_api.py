"""Obsidian both ways over HTTP (the app on a real database, signed-in users): the zip merged with the
notes the client sends, and ``POST /api/review/import/obsidian`` into the caller's own state only."""

from __future__ import annotations

import io
import zipfile

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.auth.users import create_user
from app.export.obsidian import VAULT_ROOT
from app.export.obsidian_state import read_vault_notes
from tests.export.test_obsidian_roundtrip import sr_review

URL = "/api/review/import/obsidian"


def unzip(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n.removeprefix(f"{VAULT_ROOT}/"): zf.read(n).decode("utf-8") for n in zf.namelist()}


def tokens(client: TestClient) -> dict[str, dict[str, str]]:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        out = {name: {"Authorization": f"Bearer {create_user(s, name)[1]}"} for name in ("alice", "bob")}
        s.commit()
    return out


def reviewed_vault(client: TestClient) -> tuple[dict[str, str], str]:
    """The vault as the client has it after a review in Obsidian of card-0003's first follow-up."""
    notes = unzip(client.get("/api/export/obsidian.zip").content)
    path = next(p for p, t in notes.items() if "\nslug: card-0003\n" in t)
    notes[path] = sr_review(notes[path], "why-optimizer", "!2026-12-04,3,250")
    return notes, path


def item_id(client: TestClient) -> int:
    from sqlmodel import col, select

    from app.models.card import Card
    from app.models.review import ReviewItem

    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        found = s.exec(select(ReviewItem.id).join(Card, col(Card.id) == ReviewItem.card_id)
                       .where(Card.slug == "card-0003", ReviewItem.key == "why-optimizer")).one()
    assert found is not None
    return found


def test_import_goes_to_the_callers_state_only(export_client: TestClient) -> None:
    auth = tokens(export_client)
    notes, _path = reviewed_vault(export_client)
    assert export_client.post(URL, json={"notes": notes}).status_code == 401
    r = export_client.post(URL, json={"notes": notes}, headers=auth["alice"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["user"], body["applied_items"], body["problems"]) == ("alice", ["card-0003/why-optimizer"], [])
    iid = item_id(export_client)
    mine = export_client.get(f"/api/review/items/{iid}", headers=auth["alice"]).json()["state"]
    assert mine["due"] == "2026-12-04T00:00:00+00:00" and mine["stability"] == 3.0 and mine["state"] == "review"
    assert export_client.get(f"/api/review/items/{iid}", headers=auth["bob"]).json()["state"] is None
    again = export_client.post(URL, json={"notes": notes}, headers=auth["alice"]).json()
    assert (again["applied"], again["kept_server"]) == (0, 1)  # a retried request changes nothing


def test_import_reports_bad_comments_per_note(export_client: TestClient) -> None:
    auth = tokens(export_client)
    notes, path = reviewed_vault(export_client)
    notes[path] = notes[path].replace("<!--SR:!2026-12-04,3,250-->", "<!--SR:!2026-12-04,3,250!x,1,1-->")
    body = export_client.post(URL, json={"notes": notes}, headers=auth["alice"]).json()
    assert body["applied"] == 0 and len(body["problems"]) == 1
    problem = body["problems"][0]
    assert problem["path"] == path and problem["line"] > 0 and "2 schedules in one comment" in problem["message"]
    bad = export_client.post(URL, json={"notes": {"a.md": 5}}, headers=auth["alice"])
    assert bad.status_code == 422


def test_zip_merged_with_the_clients_notes_keeps_its_reviews(export_client: TestClient) -> None:
    notes, path = reviewed_vault(export_client)
    plain = export_client.get("/api/export/obsidian.zip").content
    r = export_client.post("/api/export/obsidian.zip", json={"notes": notes})
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    merged = unzip(r.content)
    assert merged[path] == notes[path]  # the note as the plugin left it: comment under its follow-up
    assert read_vault_notes(merged).notes["card-0003"].schedules == {"why-optimizer": "!2026-12-04,3,250"}
    assert {p: t for p, t in merged.items() if p != path} == {p: t for p, t in unzip(plain).items() if p != path}
    assert export_client.post("/api/export/obsidian.zip", json={"notes": notes}).content == r.content
    assert export_client.post("/api/export/obsidian.zip", json={"notes": {}}).content == plain

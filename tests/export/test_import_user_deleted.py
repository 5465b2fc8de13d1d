"""A user deleted while a long import runs for them (issue 36): a clear error (the CLI: exit status 1; the
API: 409), nothing written, no IntegrityError traceback or 500."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlmodel import Session
from typer.testing import CliRunner

import app.api.routes.review.imports as obsidian_routes
import app.export.obsidian_state as vault_reader
from app.auth.users import create_user
from app.cli.main import cli
from app.deck.sync import sync_cards
from app.models.tables import STATES
from app.models.user import User
from harness.deck import make_deck
from tests.export.conftest import write_cards
from tests.export.test_obsidian_api import URL, reviewed_vault, tokens
from tests.export.test_obsidian_roundtrip import edit, export


def test_a_user_deleted_mid_import_gets_a_clear_error(engine: Engine, database_url: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sync_cards(engine, write_cards(tmp_path / "cards", make_deck(2)))
    with Session(engine) as s:
        create_user(s, "alice")
        s.commit()
    vault = tmp_path / "vault"
    export(database_url, vault)
    edit(vault, "card-0000", "why-optimizer", "!2026-12-04,3,250")
    real_read = vault_reader.read_vault_notes

    def read_then_delete(*args: object, **kw: object) -> vault_reader.VaultState:
        state = real_read(*args, **kw)  # type: ignore[arg-type]
        with Session(engine) as s:  # the account goes while the vault is read (after the name was checked)
            s.execute(delete(User).where(User.username == "alice"))  # type: ignore[arg-type]
            s.commit()
        return state

    monkeypatch.setattr(vault_reader, "read_vault_notes", read_then_delete)
    result = CliRunner().invoke(cli, ["import", "obsidian-reviews", str(vault), "--user", "alice",
                                      "--database-url", database_url])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "was deleted while the import ran" in result.output and "IntegrityError" not in result.output
    with engine.connect() as conn:
        assert conn.execute(STATES.select()).first() is None


def test_the_api_answers_409_for_a_user_deleted_mid_import(export_client: TestClient,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    engine = export_client.app.state.engine  # type: ignore[attr-defined]
    auth = tokens(export_client)["alice"]
    notes, _path = reviewed_vault(export_client)
    real_read = vault_reader.read_vault_notes  # what the route calls

    def read_then_delete(*args: object, **kw: object) -> vault_reader.VaultState:
        state = real_read(*args, **kw)  # type: ignore[arg-type]
        with Session(engine) as s:  # the account goes after the request was signed in, before the write
            s.execute(delete(User).where(User.username == "alice"))  # type: ignore[arg-type]
            s.commit()
        return state

    monkeypatch.setattr(obsidian_routes, "read_vault_notes", read_then_delete)
    r = export_client.post(URL, json={"notes": notes}, headers=auth)
    assert r.status_code == 409, r.text
    assert "was deleted while the import ran" in r.json()["detail"]
    with engine.connect() as conn:
        assert conn.execute(STATES.select()).first() is None

"""SQLite durability is a deliberate choice, and docs/reliability.md states the one the code makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings, settings
from app.core.db import make_engine
from app.main import create_app
from harness.server import ROOT

LEVELS = {"OFF": 0, "NORMAL": 1, "FULL": 2, "EXTRA": 3}


def _documented() -> str:
    found = re.findall(r"`PRAGMA synchronous=(\w+)`", (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8"))
    assert len(set(found)) == 1, f"docs/reliability.md must name one synchronous mode, found {found}"
    return str(found[0])


def test_every_connection_uses_the_synchronous_mode_the_readme_names(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    documented = _documented()
    assert documented == "FULL", "answers are acknowledged only once they survive a power loss"
    assert Settings.model_fields["SQLITE_SYNCHRONOUS"].default == documented
    monkeypatch.setattr(settings, "SQLITE_SYNCHRONOUS", documented)  # whatever this shell exports
    url = f"sqlite:///{tmp_path / 'd.db'}"
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == LEVELS[documented]
    finally:
        engine.dispose()
    app = create_app(database_url=url, cards_dir=tmp_path, sync_on_startup=False)
    with TestClient(app):  # the running server's connections (the WAL checkpointer reconnects them)
        with app.state.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == LEVELS[documented]
    app.state.engine.dispose()


def test_normal_can_be_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "SQLITE_SYNCHRONOUS", "NORMAL")
    engine = make_engine(f"sqlite:///{tmp_path / 'n.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == LEVELS["NORMAL"]
    finally:
        engine.dispose()

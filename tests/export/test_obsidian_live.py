"""A running server (real uvicorn, its own process) sees reviews imported from Obsidian by the CLI in
another process: the import bumps the user's change clock, so the server's in-memory queue reloads."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from sqlmodel import Session
from typer.testing import CliRunner

from app.auth.users import create_user
from app.cli.main import cli
from app.core.db import make_engine
from app.review import queue
from tests.export.test_obsidian_roundtrip import edit, export
from tests.utils.staleness import seen_within


def test_running_server_serves_the_imported_state(live_server: str, database_url: str, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            _user, token = create_user(s, "alice")
            s.commit()
    finally:
        engine.dispose()
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=live_server, headers=auth, timeout=10) as http:
        before = http.get("/api/review/next").json()["item"]
        assert before is not None and before["kind"] == "card"  # new items first: the card, not a follow-up
        vault = tmp_path / "vault"
        export(database_url, vault)
        edit(vault, "zero-sharding", "zero3-communication", "!2026-11-20,3,250")  # overdue since Nov 20
        result = CliRunner().invoke(cli, ["import", "obsidian-reviews", str(vault), "--user", "alice",
                                          "--database-url", database_url])
        assert result.exit_code == 0 and "1 review state(s) imported" in result.output, result.output
        changed_at, served = time.monotonic(), before

        def reloaded() -> bool:
            nonlocal served
            served = http.get("/api/review/next").json()["item"]
            return bool(served["key"] == "zero3-communication")

        # the server re-reads the change clock at most queue.CHECK_SECONDS after a poll (no wall-time deadline)
        seen_within(reloaded, queue.CHECK_SECONDS, changed_at)
        assert (served["card"]["slug"], served["kind"], served["key"]) == \
            ("zero-sharding", "followup", "zero3-communication")  # the most overdue item comes first
        assert served["state"]["due"] == "2026-11-20T00:00:00+00:00" and not served["new"]

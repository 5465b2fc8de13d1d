"""What the server sets up for a long run: WAL checkpoints off the commit path, long-lived objects frozen."""

from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.core import checkpointer as checkpointer_mod
from app.core.config import settings
from app.core.writes import run_write
from app.main import create_app
from harness.db import backend_name


def _autocheckpoint(engine: object) -> int:
    with engine.connect() as conn:  # type: ignore[attr-defined]
        return int(conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one())


def test_checkpoints_run_in_the_background_and_the_log_is_truncated_at_shutdown(
        database_url: str, cards_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)
    engine = app.state.engine
    if backend_name() == "postgresql":  # nothing to checkpoint: PostgreSQL manages its own log
        assert checkpointer_mod.start_checkpointer(engine) is None
        return
    wal = Path(f"{engine.url.database}-wal")
    done_by_thread: list[tuple[str, tuple[int, int, int]]] = []
    real = checkpointer_mod.Checkpointer.checkpoint

    def spy(self: checkpointer_mod.Checkpointer, mode: str = "PASSIVE") -> tuple[int, int, int]:
        result = real(self, mode)
        done_by_thread.append((threading.current_thread().name, result))
        return result

    monkeypatch.setattr(checkpointer_mod.Checkpointer, "checkpoint", spy)
    with TestClient(app):
        assert _autocheckpoint(engine) == 0  # commits never checkpoint while the server runs
        with engine.begin() as conn:  # ~4 MB of log pages
            conn.execute(text("CREATE TABLE filler (x BLOB)"))
            for _ in range(200):
                conn.execute(text("INSERT INTO filler VALUES (randomblob(20000))"))
        deadline = time.monotonic() + 120  # a hang bound, not a wait: the thread copies the log within a tick or two
        while time.monotonic() < deadline and not any(r[2] > 900 for _n, r in done_by_thread):
            time.sleep(checkpointer_mod.INTERVAL)
        big = [(name, r) for name, r in done_by_thread if r[2] > 900]
        assert big and big[0][0] == "proofdeck-wal-checkpoint" and big[0][1][0] == 0  # not busy, all copied
    assert wal.exists() and os.path.getsize(wal) == 0  # TRUNCATE at shutdown
    assert _autocheckpoint(engine) == 1000  # other users of the engine get SQLite's default back
    engine.dispose()


def test_start_up_freezes_what_lives_as_long_as_the_process(database_url: str, cards_dir: Path) -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=False)
    with TestClient(app):
        assert gc.get_freeze_count() > 10_000  # the imported libraries, routes and settings
    gc.unfreeze()
    app.state.engine.dispose()


def test_under_steady_writes_the_log_still_starts_over(database_url: str, cards_dir: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits with no pause between them (as answer batches under load): without the locked checkpoint
    the log would only grow (each checkpoint lags the newest commit); with it, it stays near the limit."""
    # as many commits as possible: NORMAL, no sync per commit (this is about checkpoints, not durability)
    monkeypatch.setattr(settings, "SQLITE_SYNCHRONOUS", "NORMAL")
    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=False)
    engine = app.state.engine
    if backend_name() == "postgresql":
        assert checkpointer_mod.start_checkpointer(engine) is None
        return
    monkeypatch.setattr(checkpointer_mod, "RESTART_PAGES", 300)  # ~1.2 MB
    monkeypatch.setattr(checkpointer_mod, "INTERVAL", 0.05)
    wal = Path(f"{engine.url.database}-wal")
    written, largest = 0, 0
    with TestClient(app):
        run_write(engine, lambda s: s.connection().exec_driver_sql("CREATE TABLE filler (x BLOB)"))
        while written < 24_000_000:  # 1,200 commits, 20x the restart limit: a count, not a time (busy CI)
            run_write(engine, lambda s: s.connection().exec_driver_sql(
                "INSERT INTO filler VALUES (randomblob(20000))"))
            written += 20_000
            largest = max(largest, os.path.getsize(wal))
            time.sleep(0.0005)  # the event loop serving other requests between two batches
    assert largest < 8_000_000, f"the log grew to {largest} bytes for {written} written"
    engine.dispose()

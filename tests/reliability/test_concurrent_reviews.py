"""16 clients reviewing at once on a real uvicorn: every acknowledged answer is stored once, none is lost,
no 5xx, and "database is locked" never reaches a client or the server log.

The duration is ``PROOFDECK_LOAD_SECONDS`` (default 30); the suite runs it once per database pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.load import build_deck, reviewers, run_load, stored_keys
from harness.server import free_port, spawn_uvicorn, stop, wait_healthy

SECONDS = float(os.environ.get("PROOFDECK_LOAD_SECONDS", "30"))
CLIENTS = 16
USERS = 8  # two clients per user, answering disjoint halves of the deck
CARDS = 400  # 6 items a card: 1,200 answers per client, more than 30 s allow here


@pytest.mark.slow
def test_sixteen_concurrent_reviewers(tmp_path: Path, database_url: str) -> None:
    tokens, items = build_deck(tmp_path / "cards", database_url, cards=CARDS, users=USERS)
    clients = reviewers(tokens, items, per_user=CLIENTS // USERS)
    assert len(clients) == CLIENTS and len({c.user for c in clients}) == USERS
    for a in clients:  # a user's clients never answer the same item
        assert all(not set(a.items) & set(b.items) for b in clients if b.user == a.user and b is not a)

    port = free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        proc = spawn_uvicorn(database_url, tmp_path / "cards", port, output=log,
                             env={"PROOFDECK_SYNC_ON_STARTUP": "false"})
        try:
            wait_healthy(proc, f"http://127.0.0.1:{port}")
            result = run_load(port, clients, SECONDS)
        finally:
            stop(proc)
    server_log = log_path.read_text(errors="replace")

    assert result.failures == [], result.failures
    assert set(result.statuses) == {200}, result.statuses
    assert result.server_errors == 0
    assert result.locked_bodies == 0
    assert "database is locked" not in server_log and "Traceback" not in server_log, server_log[-3000:]
    assert len(result.acked) == result.requests  # every request was answered 2xx
    rows, keys = stored_keys(database_url)
    assert rows == len(result.acked), f"{len(result.acked)} acknowledged reviews but {rows} rows in the log"
    assert keys == result.acked
    print(f"{result.requests} reviews in {result.seconds:.1f} s = {result.rps:.0f} req/s, "
          f"p50 {result.pct(0.5):.1f} ms, p99 {result.pct(0.99):.1f} ms, stored {rows}, "
          f"clients out of items: {result.exhausted}")

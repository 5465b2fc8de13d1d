"""kill -9 of the server during a burst of reviews: after a restart no acknowledged review is missing, a
retry with the same Idempotency-Key is stored once, and every item's state is that of its logged review."""

from __future__ import annotations

import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select

from app.core.db import make_engine
from app.models import ItemState, ReviewLog, User
from app.srs.scheduler import as_utc
from harness.load import build_deck, reviewers
from harness.server import free_port, spawn_uvicorn, stop, wait_healthy

THREADS = 4  # 2 users x 2 clients, disjoint items
ACKS_BEFORE_KILL = 120


class Sent:
    """Every request a client thread started: key → (user, body); the acknowledged ones → their response."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: dict[str, tuple[str, dict[str, Any]]] = {}
        self.acked: dict[str, dict[str, Any]] = {}
        self.errors: list[str] = []


def _burst(base: str, token: str, user: str, name: str, items: list[int], sent: Sent, seed: int) -> None:
    """POST reviews as fast as possible until the server stops answering."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        for item in items:
            key = f"{name}-{item}"
            body = {"item_id": item, "rating": rng.randint(1, 4), "duration_ms": 1500}
            with sent.lock:
                sent.requests[key] = (user, body)
            try:
                r = http.post("/api/review", json=body, headers={"Idempotency-Key": key})
            except httpx.HTTPError:
                return  # the server is gone: this request was in flight
            with sent.lock:
                if r.status_code == 200:
                    sent.acked[key] = r.json()
                else:
                    sent.errors.append(f"{key}: {r.status_code} {r.text[:200]}")
    with sent.lock:
        sent.errors.append(f"{name} ran out of items before the kill")


def _logs_by_key(url: str) -> dict[tuple[str, str], list[ReviewLog]]:
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            out: dict[tuple[str, str], list[ReviewLog]] = {}
            for name, log in s.exec(select(User.username, ReviewLog).join(User, col(User.id) == ReviewLog.user_id)):
                out.setdefault((name, log.idempotency_key), []).append(log)
            return out
    finally:
        engine.dispose()


@pytest.mark.slow
def test_kill_9_during_review_burst(tmp_path: Path, database_url: str) -> None:
    cards = tmp_path / "cards"
    tokens, items = build_deck(cards, database_url, cards=120, users=THREADS // 2)
    clients = reviewers(tokens, items, per_user=2)
    env = {"PROOFDECK_SYNC_ON_STARTUP": "false"}
    sent = Sent()

    port = free_port()
    with (tmp_path / "server-1.log").open("wb") as log:
        proc = spawn_uvicorn(database_url, cards, port, output=log, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_healthy(proc, base)
            threads = [threading.Thread(target=_burst, args=(base, c.token, c.user, c.name, c.items, sent, k))
                       for k, c in enumerate(clients)]
            for t in threads:
                t.start()
            deadline = time.monotonic() + 60
            while len(sent.acked) < ACKS_BEFORE_KILL and time.monotonic() < deadline and not sent.errors:
                time.sleep(0.005)
            stop(proc, signal.SIGKILL)  # kill -9 of the process group, mid-burst
            for t in threads:
                t.join(timeout=30)
        finally:
            stop(proc, signal.SIGKILL)
    assert sent.errors == []
    assert len(sent.acked) >= ACKS_BEFORE_KILL
    in_flight = {k: v for k, v in sent.requests.items() if k not in sent.acked}
    assert len(in_flight) == THREADS  # every client's last request was cut off by the kill

    # before any retry: every acknowledged review is stored, once, with the answer the client got
    stored = _logs_by_key(database_url)
    for key, response in sent.acked.items():
        user = sent.requests[key][0]
        rows = stored.get((user, key), [])
        assert [r.id for r in rows] == [response["log_id"]], f"acknowledged review {key} is missing or doubled"
    acked_at_kill = len(sent.acked)
    committed_unacked = sum(1 for k, (u, _b) in in_flight.items() if (u, k) in stored)

    # restart on the same database; retry the in-flight requests and some acknowledged ones, same keys
    port = free_port()
    with (tmp_path / "server-2.log").open("wb") as log:
        proc = spawn_uvicorn(database_url, cards, port, output=log, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_healthy(proc, base)
            resend = {**in_flight, **{k: sent.requests[k] for k in random.Random(1).sample(sorted(sent.acked), 20)}}
            with httpx.Client(base_url=base, timeout=10) as http:
                for key, (user, body) in resend.items():
                    for _attempt in range(2):
                        r = http.post("/api/review", json=body, headers={
                            "Idempotency-Key": key, "Authorization": f"Bearer {tokens[user]}"})
                        assert r.status_code == 200, r.text
                        if key in sent.acked:
                            first = sent.acked[key]
                            assert r.json()["replayed"] is True
                            assert r.json()["log_id"] == first["log_id"] and r.json()["state"] == first["state"]
                        sent.acked.setdefault(key, r.json())
        finally:
            stop(proc)
    server_logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("server-*.log"))
    assert "database is locked" not in server_logs

    # the log: one row per key acknowledged at least once, no key twice, nothing else
    stored = _logs_by_key(database_url)
    assert all(len(rows) == 1 for rows in stored.values()), "an Idempotency-Key was stored twice"
    assert set(stored) == {(sent.requests[k][0], k) for k in sent.acked}
    assert len(stored) == len(sent.acked) == len(sent.requests)
    for key, response in sent.acked.items():
        (row,) = stored[(sent.requests[key][0], key)]
        assert row.id == response["log_id"] and row.rating == sent.requests[key][1]["rating"]

    # each (user, item) state is the state after its last logged review, with one rep per logged review
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            states = {(st.user_id, st.item_id): st for st in s.exec(select(ItemState))}
            logs = sorted(s.exec(select(ReviewLog)), key=lambda r: (as_utc(r.reviewed_at), r.id or 0))
    finally:
        engine.dispose()
    replay: dict[tuple[int, int], list[ReviewLog]] = {}
    for row in logs:
        replay.setdefault((row.user_id, row.item_id), []).append(row)
    assert set(states) == set(replay)
    for pair, rows in replay.items():
        st, last = states[pair], rows[-1].state_after
        assert st.reps == len(rows)
        assert (st.state, st.step, st.stability, st.difficulty) == (
            last["state"], last["step"], last["stability"], last["difficulty"])
        assert as_utc(st.due).isoformat() == last["due"]
    print(f"acknowledged before the kill: {acked_at_kill}; in flight: {len(in_flight)} "
          f"(already committed: {committed_unacked}); log rows after retries: {len(logs)}")

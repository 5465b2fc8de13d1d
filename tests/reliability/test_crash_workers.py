"""kill -9 among 32 concurrent reviewers on ``proofdeck serve --workers 2``, five times: four times one worker
(uvicorn's supervisor starts another), the fifth time the whole server (started again on the same port).
Every client retries a request the kill cut off with the same Idempotency-Key until it is answered; at the
end every acknowledged review is stored exactly once, with the log row its answer named, a retry of an
answered key replays that answer, and every item's state counts one repetition per stored review.

It runs in both database passes; on PostgreSQL a killed worker's open transactions are rolled back by the
server when its connections drop, on SQLite by the journal.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from app.core.db import make_engine
from app.models import ItemState, ReviewLog, User
from harness.load import Conn, Reviewer, build_deck, reviewers
from harness.server import ROOT, free_port, stop

pytestmark = pytest.mark.slow
CLIENTS = 32  # one per user: each has the whole deck to answer
WORKERS = 2
KILLS = 5  # the last one kills the whole server
ACKS_BETWEEN_KILLS = 60
CARDS = 80  # ~5 reviewable items a card: ~400 a client, more than the run answers at PACE
PACE = 0.25  # seconds a client thinks between answers (32 clients: at most 128 answers a second)


@dataclass
class Ledger:
    """What the clients sent and what they were told (one event loop: no lock needed for the loop's writes)."""

    sent: dict[tuple[str, str], str] = field(default_factory=dict)  # (user, key) -> body
    acked: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    cut_off: int = 0  # requests a kill interrupted (each then retried with its key)
    errors: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)  # finish the request in hand, then stop
    abort: threading.Event = field(default_factory=threading.Event)  # the test failed: stop retrying too


def _serve(url: str, cards: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PROOFDECK_DATABASE_URL": url, "PROOFDECK_CARDS_DIR": str(cards),
           "PROOFDECK_SYNC_ON_STARTUP": "false", "PYTHONUNBUFFERED": "1"}
    with log.open("ab") as sink:  # the child keeps its own descriptor
        return subprocess.Popen([sys.executable, "-m", "app.cli.main", "serve", "--port", str(port),
                                 "--workers", str(WORKERS)], cwd=ROOT, env=env, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _workers(proc: subprocess.Popen[bytes]) -> list[int]:
    """The supervisor's live worker processes (its children that are not multiprocessing's helper)."""
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for pid in map(int, children):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in cmdline:
            out.append(pid)
    return out


def _started(pid: int) -> int:
    """When a process started, in clock ticks since boot (``/proc/PID/stat`` field 22)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])


def _wait_for_workers(proc: subprocess.Popen[bytes], log: Path, started: int, deadline: float) -> None:
    """Until ``started`` workers in all have logged their start-up (a bound, not a wait: it returns at once)."""
    while log.read_text(errors="replace").count("Application startup complete") < started:
        assert proc.poll() is None, f"the server exited:\n{log.read_text(errors='replace')[-3000:]}"
        assert time.monotonic() < deadline, f"workers did not start:\n{log.read_text(errors='replace')[-3000:]}"
        time.sleep(0.1)


async def _client(port: int, token: str, user: str, name: str, items: list[int], ledger: Ledger) -> None:
    """Answer items until told to stop; a request cut off by a kill is sent again, same key, until answered."""
    rng = random.Random(name)
    conn: Conn | None = None
    for item in items:
        if ledger.stop.is_set():
            break
        key = f"{name}-{item}"
        body = json.dumps({"item_id": item, "rating": rng.randint(1, 4), "duration_ms": 1500})
        ledger.sent[(user, key)] = body
        for _attempt in range(600):  # a bound: each try waits at most 0.05 s for a refused connection
            if ledger.abort.is_set():
                return
            try:
                if conn is None:
                    fresh = Conn("127.0.0.1", port, token)
                    await fresh.open()  # refused while no server listens
                    conn = fresh
                code, data = await conn.request("POST", "/api/review", body.encode(), f"Idempotency-Key: {key}\r\n")
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                if conn is not None:
                    conn.close()
                    conn = None
                    ledger.cut_off += 1
                await asyncio.sleep(0.05)
                continue
            if code != 200:
                ledger.errors.append(f"{key}: {code} {data[:200]!r}")
                return
            ledger.acked[(user, key)] = json.loads(data)
            await asyncio.sleep(PACE)
            break
        else:
            ledger.errors.append(f"{key}: never answered")
            return
    else:
        ledger.errors.append(f"{name} ran out of items")
    if conn is not None:
        conn.close()


def _run_clients(port: int, clients: list[Reviewer], ledger: Ledger, done: list[BaseException | None]) -> None:
    async def everyone() -> None:
        await asyncio.gather(*(_client(port, c.token, c.user, c.name, c.items, ledger) for c in clients))

    try:
        asyncio.run(everyone())
        done.append(None)
    except BaseException as exc:  # re-raised by the test
        done.append(exc)


def _in_own_thread(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``asyncio.run(main())`` in a thread of its own: the test's thread may already run an event loop (a
    Playwright browser an earlier test of this xdist worker started), where asyncio.run refuses to start."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # re-raised in the test's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="resend")
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the resent requests did not finish"
    if failed:
        raise failed[0]


def _wait_acks(ledger: Ledger, at_least: int, deadline: float, load: threading.Thread) -> None:
    while len(ledger.acked) < at_least:
        assert not ledger.errors, ledger.errors[:5]
        assert load.is_alive(), "the clients stopped (see the test's error above)"
        assert time.monotonic() < deadline, f"only {len(ledger.acked)} of {at_least} reviews answered in time"
        time.sleep(0.02)


def test_kill_9_among_32_reviewers_on_two_workers(tmp_path: Path, database_url: str) -> None:
    cards = tmp_path / "cards"
    t0 = time.monotonic()
    tokens, items = build_deck(cards, database_url, cards=CARDS, users=CLIENTS)
    print(f"deck built in {time.monotonic() - t0:.1f} s")
    clients = reviewers(tokens, items, per_user=1)
    assert len(clients) == CLIENTS
    ledger = Ledger()
    logs = [tmp_path / "server-1.log", tmp_path / "server-2.log"]
    port = free_port()
    deadline = time.monotonic() + 300  # a bound for the whole run, not a wait
    procs = [_serve(database_url, cards, port, logs[0])]
    done: list[BaseException | None] = []
    load = threading.Thread(target=_run_clients, args=(port, clients, ledger, done), name="reviewers")
    killed: list[str] = []

    def kill(pid: int, what: str, group: bool = False) -> None:
        _wait_acks(ledger, len(ledger.acked) + ACKS_BETWEEN_KILLS, deadline, load)  # answers since the last kill
        if group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
        killed.append(f"{what} {pid} at {time.monotonic() - t0:.1f} s")

    try:
        _wait_for_workers(procs[0], logs[0], WORKERS, deadline)
        load.start()
        # four times one serving worker, each time once the supervisor's replacement of the last one has
        # started (two replacements starting together queue on the start-up lock: a minute on a busy machine)
        for n in range(KILLS - 1):
            kill(min(_workers(procs[0]), key=_started), "worker")  # the one that has served longest
            _wait_for_workers(procs[0], logs[0], WORKERS + n + 1, deadline)
        # then the whole server, started again on the same port
        kill(procs[0].pid, "server", group=True)
        procs[0].wait(timeout=30)
        procs.append(_serve(database_url, cards, port, logs[1]))
        _wait_for_workers(procs[1], logs[1], WORKERS, deadline)
        assert len(killed) == KILLS, killed
        _wait_acks(ledger, len(ledger.acked) + ACKS_BETWEEN_KILLS, deadline, load)
        ledger.stop.set()
        load.join(timeout=120)
        assert not load.is_alive(), "the clients did not finish"
        assert done == [None], done
        assert ledger.errors == [], ledger.errors[:5]
        assert ledger.cut_off >= KILLS, f"only {ledger.cut_off} requests were cut off by {KILLS} kills"
        assert set(ledger.acked) == set(ledger.sent)  # every request was retried until answered

        # retries of answered keys, as a client that never saw its answer sends them: the first answer again
        sample = random.Random(1).sample(sorted(ledger.acked), 40)
        by_user = {c.user: c.token for c in clients}

        async def resend() -> None:
            conns = {user: Conn("127.0.0.1", port, token) for user, token in by_user.items()}
            for c in conns.values():
                await c.open()
            for user, key in sample:
                code, data = await conns[user].request("POST", "/api/review", ledger.sent[(user, key)].encode(),
                                                       f"Idempotency-Key: {key}\r\n")
                again = json.loads(data)
                assert code == 200 and again["replayed"] is True, (key, code, data[:200])
                assert again["log_id"] == ledger.acked[(user, key)]["log_id"], key
            for c in conns.values():
                c.close()

        _in_own_thread(resend)
    finally:
        ledger.stop.set()
        ledger.abort.set()
        for proc in procs:
            stop(proc, signal.SIGKILL)
        load.join(timeout=60)
    assert all("database is locked" not in log.read_text(errors="replace") for log in logs if log.is_file())

    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            rows = s.exec(select(User.username, ReviewLog).join(User, col(User.id) == ReviewLog.user_id)).all()
            states = {(st.user_id, st.item_id): st.reps for st in s.exec(select(ItemState))}
    finally:
        engine.dispose()
    stored: dict[tuple[str, str], list[int | None]] = {}
    per_item: dict[tuple[int, int], int] = {}
    for user, row in rows:
        stored.setdefault((user, row.idempotency_key), []).append(row.id)
        per_item[(row.user_id, row.item_id)] = per_item.get((row.user_id, row.item_id), 0) + 1
    doubled = [k for k, ids in stored.items() if len(ids) != 1]
    assert doubled == [], f"stored more than once: {doubled[:5]}"
    assert set(stored) == set(ledger.acked), "a stored review nobody was told of, or an answered one missing"
    assert all(stored[k] == [answer["log_id"]] for k, answer in ledger.acked.items())
    assert states == per_item  # one repetition per stored review, no state without its log
    print(f"{len(ledger.acked)} reviews acknowledged and stored once by {CLIENTS} clients; kills: {', '.join(killed)}; "
          f"requests cut off and retried: {ledger.cut_off}")

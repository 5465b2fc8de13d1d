"""Slowloris against ``proofdeck serve``: half-open connections are closed, /healthz keeps answering.

Before ``app.core.http_timeouts``, a connection that never finished its request head or body stayed
open for ever (uvicorn only times out idle keep-alive connections between requests).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.server import ROOT, free_port, stop, wait_healthy

pytestmark = pytest.mark.slow
HEADER_TIMEOUT = 2.0
BODY_TIMEOUT = 3.0
PER_KIND = 60  # connections of each kind: silent, head dribbled, body dribbled
# On top of a deadline, how long a client waits for the close: a bound, not a wait (a closed connection
# returns at once), so generous: a loaded machine schedules the server late.
GRACE = 60.0


async def _slow_client(port: int, kind: str) -> float | None:
    """Open a connection and misbehave; seconds until the server closed it (None: still open at the end)."""
    # the clock starts before connecting: the server cannot arm its timer before the connection exists, so
    # the time measured is never shorter than the server's (taken after connecting, a loaded machine that
    # resumed this task late made a 2 s deadline look like 1.42 s: PostgreSQL pass at load 25, 2026-12-01)
    start = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if kind == "head":
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    elif kind == "body":
        # FastAPI reads a JSON body before it checks who is asking: the body is what the server waits on
        writer.write(b"PUT /api/review/settings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
    limit = (HEADER_TIMEOUT if kind != "body" else BODY_TIMEOUT) + GRACE
    try:
        while time.monotonic() - start < limit:
            if kind != "silent":
                writer.write(b"x")  # one more byte, never the end of the head or the body
                await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(4096), timeout=0.5)
            except TimeoutError:
                continue
            if not data:
                return time.monotonic() - start
            return time.monotonic() - start  # an answer (e.g. 4xx) and then the close count as handled
        return None
    except (ConnectionResetError, BrokenPipeError):
        return time.monotonic() - start
    finally:
        writer.close()


async def _healthz(port: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status = await asyncio.wait_for(reader.readline(), timeout=GRACE)
        return int(status.split()[1])
    finally:
        writer.close()


async def _attack(port: int) -> tuple[dict[str, list[float | None]], list[int]]:
    kinds = ("silent", "head", "body")
    tasks = {k: [asyncio.create_task(_slow_client(port, k)) for _ in range(PER_KIND)] for k in kinds}
    health = []
    for _ in range(5):  # while every slow connection is open
        await asyncio.sleep(0.3)
        health.append(await _healthz(port))
    return {k: list(await asyncio.gather(*ts)) for k, ts in tasks.items()}, health



def run_in_own_loop(coro: Any) -> Any:
    """``asyncio.run`` in a thread of its own: the session's Playwright browser keeps an event loop
    running in the test thread once a browser test has run, and asyncio.run refuses to nest."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()

def test_slow_clients_are_cut_off_and_healthz_keeps_answering(database_url: str, cards_dir: Path,
                                                              tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PROOFDECK_DATABASE_URL": database_url, "PROOFDECK_CARDS_DIR": str(cards_dir),
           "PROOFDECK_SYNC_ON_STARTUP": "false", "PROOFDECK_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
           "PROOFDECK_BODY_TIMEOUT": str(BODY_TIMEOUT)}
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_healthy(proc, f"http://127.0.0.1:{port}", timeout=60)
        closed, health = run_in_own_loop(_attack(port))
        assert health == [200] * 5
        for kind, seconds in closed.items():
            still_open = sum(s is None for s in seconds)
            assert still_open == 0, f"{still_open} of {PER_KIND} {kind!r} connections still open"
            deadline = BODY_TIMEOUT if kind == "body" else HEADER_TIMEOUT
            # closed by the deadline, not at once (a server that refuses every connection would pass otherwise)
            assert min(s for s in seconds if s is not None) >= deadline * 0.8, (kind, seconds)
        assert run_in_own_loop(_healthz(port)) == 200
    finally:
        stop(proc)
        log.close()

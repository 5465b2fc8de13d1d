"""A real uvicorn process serving the app over HTTP, for integration and browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def uvicorn_server(database_url: str, cards_dir: Path, *, env: dict[str, str] | None = None,
                   workers: int = 1, timeout: float = 30.0, log_level: str = "warning",
                   log_file: Path | None = None) -> Iterator[str]:
    """Start ``uvicorn app.main:app`` on a free loopback port; yield its base URL; always stop it.

    ``log_file``: the server's stdout and stderr go there (read it after the block), not to a pipe.
    """
    port = free_port()
    proc_env = {**os.environ, "PROOFDECK_DATABASE_URL": database_url, "PROOFDECK_CARDS_DIR": str(cards_dir),
                "PYTHONUNBUFFERED": "1", **(env or {})}
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port),
           "--log-level", log_level, "--workers", str(workers)]
    sink = log_file.open("wb") if log_file is not None else None
    proc = subprocess.Popen(cmd, cwd=ROOT, env=proc_env, stdout=sink or subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                output = proc.stdout.read().decode(errors="replace") if proc.stdout else log_file.read_text()
                raise RuntimeError(f"uvicorn exited with {proc.returncode}:\n{output}")
            try:
                if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not answer /healthz within {timeout} s")
            time.sleep(0.1)
        yield base
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if sink is not None:
            sink.close()

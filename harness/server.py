"""A real uvicorn process serving the app over HTTP, for integration, crash and load tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spawn_uvicorn(database_url: str, cards_dir: Path, port: int, *, env: dict[str, str] | None = None,
                  workers: int = 1, output: IO[bytes] | None = None, app: str = "app.main:app",
                  extra_args: tuple[str, ...] = (), log_level: str = "warning") -> subprocess.Popen[bytes]:
    """Start uvicorn in its own process group (so ``os.killpg`` reaches every worker); ``output``: a file
    for its log (else a pipe, read only when it fails to start)."""
    proc_env = {**os.environ, "PROOFDECK_DATABASE_URL": database_url, "PROOFDECK_CARDS_DIR": str(cards_dir),
                "PYTHONUNBUFFERED": "1", "PROOFDECK_WARM_JUDGES": "false", **(env or {})}
    cmd = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
           "--log-level", log_level, "--workers", str(workers), *extra_args]
    return subprocess.Popen(cmd, cwd=ROOT, env=proc_env, stdout=output or subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


def wait_healthy(proc: subprocess.Popen[bytes], base: str, timeout: float = 120.0) -> None:
    """Wait for /healthz; ``timeout`` only bounds a hung start (imports take seconds on a busy machine)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            output = proc.stdout.read().decode(errors="replace") if proc.stdout else "(see its log file)"
            raise RuntimeError(f"uvicorn exited with {proc.returncode}:\n{output}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not answer /healthz within {timeout} s")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Signal the whole process group; SIGKILL it if it has not exited 10 s later."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            proc.wait()
    if proc.stdout:
        proc.stdout.close()


@contextmanager
def uvicorn_server(database_url: str, cards_dir: Path, *, env: dict[str, str] | None = None,
                   workers: int = 1, timeout: float = 120.0, output: IO[bytes] | None = None,
                   log_level: str = "warning", log_file: Path | None = None) -> Iterator[str]:
    """Start ``uvicorn app.main:app`` on a free loopback port; yield its base URL; always stop it.

    ``log_file``: the server's stdout and stderr go there (read it after the block), not to a pipe.
    """
    port = free_port()
    sink = log_file.open("wb") if log_file is not None else None
    proc = spawn_uvicorn(database_url, cards_dir, port, env=env, workers=workers, output=output or sink,
                         log_level=log_level)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, base, timeout)
        yield base
    finally:
        stop(proc)
        if sink is not None:
            sink.close()

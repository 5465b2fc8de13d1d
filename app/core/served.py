"""Where the server runs, so that links printed by the CLI point at it.

``proofdeck serve --port 8731`` records ``http://127.0.0.1:8731``, the database it serves, its process id
and the port it listens on in ``data/served.json`` (``PROOFDECK_SERVED_FILE``); ``proofdeck user add`` /
``user link`` print links to :func:`base_url`:

1. ``PROOFDECK_BASE_URL`` when set (the public address, e.g. behind a reverse proxy);
2. else the recorded address, when it served the same database (its server running, or last started there:
   :func:`where` says which, and the CLI says so when it is not running);
3. else the default, ``http://127.0.0.1:8000`` (``make run``'s).

"Running" means the recorded process is alive and its port accepts a connection on this host: a record
left by a server that was stopped (or killed) reads as not running, and so does one whose process id was
reused by something that does not listen there.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.core.config import settings


@dataclass(frozen=True)
class Served:
    """The address links name, where it came from, and whether a recorded server answers there now."""

    base_url: str
    source: Literal["configured", "recorded", "default"]
    running: bool = False


def record(base_url: str, database_url: str, path: Path | None = None, *, host: str | None = None,
           port: int | None = None, pid: int | None = None) -> None:
    """Remember the address a server is starting on (best effort: a read-only checkout just skips it)."""
    path = path or settings.SERVED_FILE
    data = {"base_url": base_url, "database_url": database_url, "host": host, "port": port, "pid": pid}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data) + "\n")
        tmp.replace(path)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _listening(host: str, port: int) -> bool:
    target = "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host
    try:
        with socket.create_connection((target, port), timeout=0.5):
            return True
    except OSError:
        return False


def where(database_url: str, path: Path | None = None) -> Served:
    """The address links should name for ``database_url`` (see the module docstring)."""
    if os.environ.get("PROOFDECK_BASE_URL"):
        return Served(os.environ["PROOFDECK_BASE_URL"].rstrip("/"), "configured")
    try:
        data = json.loads((path or settings.SERVED_FILE).read_text())
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("database_url") == database_url and isinstance(data.get("base_url"), str):
        pid, port, host = data.get("pid"), data.get("port"), data.get("host")
        running = (isinstance(pid, int) and isinstance(port, int) and isinstance(host, str) and _alive(pid)
                   and _listening(host, port))
        return Served(str(data["base_url"]).rstrip("/"), "recorded", running)
    return Served(settings.BASE_URL.rstrip("/"), "default")


def base_url(database_url: str, path: Path | None = None) -> str:
    return where(database_url, path).base_url


def login_link(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/login?token={token}"

"""Where the server was last started, so that links printed by the CLI point at it.

``proofdeck serve --port 8731`` records ``http://127.0.0.1:8731`` (and the database it serves) in
``data/served.json`` (``PROOFDECK_SERVED_FILE``); ``proofdeck user add`` / ``user link`` then print links
to that address. Order:
``PROOFDECK_BASE_URL`` when set, else the recorded address when it served the same database, else the
default ``http://127.0.0.1:8000``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.core.config import settings


def record(base_url: str, database_url: str, path: Path | None = None) -> None:
    """Remember the address a server is starting on (best effort: a read-only checkout just skips it)."""
    path = path or settings.SERVED_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"base_url": base_url, "database_url": database_url}) + "\n")
        tmp.replace(path)
    except OSError:
        pass


def base_url(database_url: str, path: Path | None = None) -> str:
    """The address links should name for ``database_url`` (see the module docstring)."""
    if os.environ.get("PROOFDECK_BASE_URL"):
        return os.environ["PROOFDECK_BASE_URL"].rstrip("/")
    try:
        data = json.loads((path or settings.SERVED_FILE).read_text())
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("database_url") == database_url and isinstance(data.get("base_url"), str):
        return str(data["base_url"]).rstrip("/")
    return settings.BASE_URL.rstrip("/")


def login_link(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/login?token={token}"

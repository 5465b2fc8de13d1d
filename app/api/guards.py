"""Refuse a NUL character in the URL before any route sees it.

PostgreSQL text cannot hold NUL (``\\x00``): a ``%00`` in a slug, a search word or a filter would reach
a query and fail there as a 500 (SQLite just finds nothing). Refusing it up front gives the same
answer on both databases: 422 with a message that says what to remove. Bodies are covered by their
models (``NO_NUL`` patterns on the free-text fields).
"""

from __future__ import annotations

import json
from typing import Any

NO_NUL = r"^[^\u0000]*$"  # pattern for free-text fields that reach the database
DETAIL = "the URL contains a NUL character (%00); remove it"


class RejectNul:
    """Pure ASGI middleware: 422 ``{"detail": ...}`` for a NUL in the path or the query string."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and ("\x00" in scope["path"] or b"%00" in scope["query_string"]
                                        or b"\x00" in scope["query_string"]):
            body = json.dumps({"detail": DETAIL}).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 422, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

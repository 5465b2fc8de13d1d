"""Refuse a NUL character in the URL before any route sees it.

PostgreSQL text cannot hold NUL (``\\x00``): a ``%00`` in a slug, a search word or a filter would reach
a query and fail there as a 500 (SQLite just finds nothing). Refusing it up front gives the same
answer on both databases: 422 with a message that says what to remove. Bodies are covered by their
models (``NO_NUL`` patterns on the free-text fields).

A query parameter given twice (``?offset=8y&offset=0``) is refused the same way: no route takes a list
in the query, and FastAPI would silently keep the last value (schemathesis: "schema-violating request
accepted").
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

NO_NUL = r"^[^\u0000]*$"  # pattern for free-text fields that reach the database
DETAIL = "the URL contains a NUL character (%00); remove it"


def repeated_parameter(query_string: bytes) -> str | None:
    """The first query parameter named more than once, if any."""
    seen: set[str] = set()
    for name, _value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name in seen:
            return name
        seen.add(name)
    return None


class RejectNul:
    """Pure ASGI middleware: 422 ``{"detail": ...}`` for a NUL in the path or the query string, or for a
    query parameter given more than once."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        detail = None
        if scope["type"] == "http":
            query = scope["query_string"]
            if "\x00" in scope["path"] or b"%00" in query or b"\x00" in query:
                detail = DETAIL
            elif b"&" in query and (name := repeated_parameter(query)) is not None:
                detail = f"query parameter '{name}' is given more than once; give it once"
        if detail is not None:
            body = json.dumps({"detail": detail}).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 422, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

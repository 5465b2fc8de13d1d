"""Every operation that takes a body documents 400: FastAPI answers 400 itself ("There was an error
parsing the body") for a body it cannot read at all (a multipart form without its boundary, JSON bytes
that are not UTF-8), before the route runs, so a route cannot list that answer itself."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.api.errors import json_errors_on_page


def document_unparsable_bodies(app: FastAPI) -> None:
    """Wrap ``app.openapi`` so the schema it builds (once) lists 400 on every operation with a body."""
    build = app.openapi
    bad_body = json_errors_on_page(400)[400]

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    if isinstance(operation, dict) and "requestBody" in operation:
                        operation.setdefault("responses", {}).setdefault("400", dict(bad_body))
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]

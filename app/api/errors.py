"""Error bodies, declared once: every route documents the 4xx it can answer with these models.

Domain code raises precise exceptions; routes turn them into ``HTTPException(status, detail=...)``.
The body is always ``{"detail": ...}``: one line (``ErrorDetail``), or for 422 either that line or
FastAPI's list of field errors (``InvalidInput``). Declaring them keeps the OpenAPI schema truthful,
which ``tests/api/test_schemathesis.py`` checks against every response.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BaseModel, ConfigDict

# Row ids are INTEGER columns: PostgreSQL's int4 ends here (SQLite's int8 later), so a bigger id can
# only be "not found"; refusing it as 422 keeps the database from raising "integer out of range".
MAX_ID = 2**31 - 1
IdPath = Annotated[int, Path(ge=1, le=MAX_ID, description=f"A row id, 1 to {MAX_ID}.")]
Offset = Annotated[int, Query(ge=0, le=MAX_ID, description="Rows to skip.")]


class ErrorDetail(BaseModel):
    """What went wrong and how to fix it, in one line."""

    detail: str


class FieldError(BaseModel):
    """One invalid field, as FastAPI reports request validation errors."""

    model_config = ConfigDict(extra="allow")
    loc: list[str | int]
    msg: str
    type: str


class InvalidInput(BaseModel):
    """422: our one-line message, or FastAPI's list of field errors (a failed sync lists file errors)."""

    detail: str | list[FieldError | str]


_DESCRIPTIONS = {
    400: ("Malformed request (a body that cannot be read: not UTF-8 JSON, a form without its boundary; "
          "or an answer the scheduler cannot take)"),
    401: "Not signed in: send 'Authorization: Bearer <token>' or log in at /login",
    403: "Signed in, but not an admin (or, with the session cookie, a request from another site)",
    404: "Not found (another user's rows answer 404 too, as if they did not exist)",
    409: "Conflicts with the current state (already exists, not due, already answered)",
    415: "The body must be JSON: send 'Content-Type: application/json'",
    422: "Invalid input: which field and why",
    429: "Too many failed logins from this address for this user; wait Retry-After seconds",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route or router: each status with its error model and a description."""
    return {code: {"model": InvalidInput if code == 422 else ErrorDetail, "description": _DESCRIPTIONS[code]}
            for code in codes}


def json_errors_on_page(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``errors`` for a route whose own responses are HTML: the error bodies stay JSON.

    (With ``model``, FastAPI would document them under the route's ``text/html``.) The schemas are
    referenced by name; the API routes' ``errors(...)`` put them in the components.
    """
    return {code: {"description": _DESCRIPTIONS[code], "content": {"application/json": {"schema": {
        "$ref": f"#/components/schemas/{(InvalidInput if code == 422 else ErrorDetail).__name__}"}}}}
        for code in codes}


def html_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a page: the error is the HTML page itself (e.g. the login form with its message)."""
    return {code: {"content": {"text/html": {}}, "description": _DESCRIPTIONS[code]} for code in codes}

"""``/api/review/import``: reviews done elsewhere into the signed-in user's review state (never anyone else's).

- ``POST …/handbook``: the reviews of the handbook's study mode. The body is the file the handbook's "Export
  reviews" button downloaded, as it is: one reader of that format (``app.items.handbook_reviews``) serves
  this route and ``proofdeck import handbook-reviews``; the schema below documents it for clients.
- ``POST …/obsidian``: the reviews done in Obsidian, read from the user's current notes (the body of
  ``POST /api/export/obsidian.zip`` too).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool

from app.api.deps import CurrentUser, ReviewEngineDep
from app.api.errors import errors
from app.api.vault_notes import VaultNotes
from app.export.obsidian_state import read_vault_notes
from app.items.handbook_reviews import FORMAT, MAX_REVIEWS, MAX_TYPED, VERSION, ReviewsFileError, read_reviews_file
from app.review.handbook_import import ForeignFile, import_handbook_reviews
from app.review.obsidian_import import UserGone, import_reviews

router = APIRouter(prefix="/api/review/import")
MAX_BODY = 40 * 1024 * 1024  # bytes: MAX_REVIEWS reviews of a few hundred bytes each

_REVIEW = {"type": "object", "required": ["id", "item", "fp", "at", "rating"], "properties": {
    "id": {"type": "string", "pattern": "^[A-Za-z0-9-]{8,64}$"},
    "item": {"type": "string", "description": "<card slug>/<kind>/<key>"},
    "fp": {"type": "string", "pattern": "^[0-9a-f]{1,64}$", "description": "the item's fingerprint"},
    "at": {"type": "string", "description": "ISO 8601 with its zone, e.g. 2026-12-03T10:00:00.000Z"},
    "duration_ms": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 86_400_000}, {"type": "null"}]},
    "rating": {"type": "integer", "minimum": 1, "maximum": 4},
    "typed": {"type": "string", "minLength": 1, "maxLength": MAX_TYPED, "description": "a drill's: what was typed"},
    "seed": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1, "description": "a drill's: its showing's seed"},
    "showing": {"type": "string", "pattern": "^[0-9a-f]{1,64}$", "description": "a drill's: its showing's fingerprint"},
    "correct": {"type": "boolean", "description": "a drill's: the handbook's verdict"}}}
_DOC: dict[str, Any] = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "type": "object", "required": ["format", "version", "deck", "export", "reviews"], "properties": {
        "format": {"const": FORMAT}, "version": {"const": VERSION},
        "deck": {"type": "string", "pattern": "^[0-9a-f]{1,64}$"}, "export": {"type": "string"},
        "user": {"anyOf": [{"type": "null"}, {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"}}}]},
        "reviews": {"type": "array", "maxItems": MAX_REVIEWS, "items": _REVIEW}}}}}}}


@router.post("/handbook", response_model=dict[str, Any], responses=errors(401, 409, 422), openapi_extra=_DOC,
             tags=["handbook"])
async def import_handbook(request: Request, user: CurrentUser, engine: ReviewEngineDep) -> dict[str, Any]:
    """Merge the reviews of a handbook reviews file into your review log in time order, each once (sending
    the file again adds nothing). ``imported`` / ``already_imported`` / ``skipped`` counts, the reviews
    skipped with why (items changed or retired since the export), and typed answers the server graded
    otherwise than the handbook. A file of another deck, or another user's, is refused (409)."""
    body = await request.body()
    if len(body) > MAX_BODY:
        raise HTTPException(422, detail=f"the file is {len(body)} bytes; at most {MAX_BODY}: export more often")
    try:
        parsed = read_reviews_file(body)
    except ReviewsFileError as exc:
        raise HTTPException(422, detail=f"{exc}; nothing imported") from None
    try:
        report = await run_in_threadpool(import_handbook_reviews, engine, user, parsed)
    except ForeignFile as exc:
        raise HTTPException(409, detail=f"{exc}; nothing imported") from None
    return {"user": user.username, "reviews": len(parsed.reviews), **report.as_json()}


@router.post("/obsidian", responses=errors(400, 401, 409, 422), tags=["obsidian"])
async def import_obsidian_reviews(body: VaultNotes, user: CurrentUser, request: Request) -> dict[str, Any]:
    """Reviews done in Obsidian into your own review state (never anyone else's): each scheduling comment
    of an exported follow-up becomes your FSRS state of that item unless yours on the server is as new or
    newer. ``applied`` / ``kept_server`` / ``not_reviewed`` counts, the items, and ``problems`` (path, line,
    message) for the comments skipped. Sending the same notes again changes nothing."""
    vault = read_vault_notes(body.notes)
    assert user.id is not None
    try:
        report = await run_in_threadpool(import_reviews, request.app.state.engine, user.id, vault)
    except UserGone as exc:  # the account was deleted while the import ran: nothing was written
        raise HTTPException(409, detail=str(exc)) from exc
    return {"user": user.username, "notes": len(vault.notes), **report.as_json()}

"""Obsidian both ways over HTTP: the vault zip merged with the client's notes, and reviews done in
Obsidian into the signed-in user's review state. Both take the same body: the user's current notes
(``{"notes": {"proofdeck/M1 …/Note.md": "<text>", …}}``, any paths; only notes with a ``slug`` property
are read)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, StringConstraints

from app.api.deps import CurrentUser, SessionDep
from app.api.errors import errors
from app.export.deck import load_docs, load_verdicts
from app.export.obsidian import vault_files, vault_zip
from app.export.obsidian_state import MAX_NOTE_BYTES, read_vault_notes
from app.review.obsidian_import import UserGone, import_reviews

router = APIRouter(prefix="/api", tags=["obsidian"])
MAX_NOTES = 20_000

NotePath = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
NoteText = Annotated[str, StringConstraints(max_length=MAX_NOTE_BYTES)]


class VaultNotes(BaseModel):
    """The client's current notes: path in the vault → text (as read from disk, UTF-8)."""

    notes: dict[NotePath, NoteText] = Field(max_length=MAX_NOTES)


@router.post("/export/obsidian.zip", response_class=Response,
             responses={200: {"content": {"application/zip": {}}}, **errors(400, 422)})
def obsidian_zip_merged(body: VaultNotes, session: SessionDep) -> Response:
    """The vault zip (as ``GET``), with the Spaced Repetition plugin's scheduling comments and note-review
    properties of the notes sent kept under the same follow-ups, so unzipping it over the vault keeps
    the reviews done in Obsidian. Nothing is stored; unreadable comments are left out (and listed in the
    ``X-Proofdeck-Skipped`` header, a count)."""
    vault = read_vault_notes(body.notes)
    data = vault_zip(vault_files(load_docs(session), load_verdicts(session), vault=vault))
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": 'attachment; filename="proofdeck-obsidian.zip"',
                             "X-Content-Type-Options": "nosniff", "X-Proofdeck-Skipped": str(len(vault.problems))})


@router.post("/review/import/obsidian", responses=errors(400, 401, 409, 422))
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

"""``/api/export``: the Obsidian vault as a zip (as exported, or merged with the client's notes so the reviews
done in Obsidian stay), the offline handbook, the Anki package. One card as an Obsidian note is
``GET /api/cards/{slug}.md`` (``app/api/routes/cards.py``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, HTTPException, Query, Response

from app.api.deps import OptionalUser, ReviewEngineDep, SessionDep
from app.api.downloads import disposition
from app.api.errors import errors
from app.api.vault_notes import VaultNotes
from app.export.anki import write_package
from app.export.deck import load_docs, load_verdicts
from app.export.handbook import render_handbook
from app.export.obsidian import vault_files, vault_zip
from app.export.obsidian_state import read_vault_notes
from app.review.study_snapshot import handbook_study

router = APIRouter(prefix="/api/export")


@router.get("/obsidian.zip", response_class=Response, tags=["exports"],
            responses={200: {"content": {"application/zip": {}}}})
def obsidian_zip(session: SessionDep) -> Response:
    """The Obsidian vault: a folder per module, a note per card, an index note per module."""
    data = vault_zip(vault_files(load_docs(session), load_verdicts(session)))
    return Response(data, media_type="application/zip",
                    headers=disposition("attachment", "proofdeck-obsidian.zip"))


@router.post("/obsidian.zip", response_class=Response, tags=["obsidian"],
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


@router.get("/handbook.html", response_class=Response, tags=["exports"],
            responses={200: {"content": {"text/html": {}}}, **errors(401, 422)})
def handbook_html(session: SessionDep, engine: ReviewEngineDep, user: OptionalUser,
                  mine: bool = Query(False, description="Embed your review state (signed in): the handbook's study "
                                                        "mode then continues your schedule offline.")) -> Response:
    """The offline single-file handbook (download it and open it from disk); its study mode (``#study``)
    reviews the deck offline, and ``POST /api/review/import/handbook`` brings the reviews back."""
    if mine and user is None:
        raise HTTPException(status_code=401, detail="?mine=true embeds your review state: sign in first "
                                                    "(Authorization: Bearer <token>, or log in at /login)")
    docs = load_docs(session)
    study = handbook_study(engine, docs, user if mine else None)
    html = render_handbook(docs, load_verdicts(session), study=study)
    return Response(html, media_type="text/html; charset=utf-8",
                    headers=disposition("attachment", "proofdeck-handbook.html"))


@router.get("/anki.apkg", response_class=Response, tags=["exports"],
            responses={200: {"content": {"application/octet-stream": {}}}, **errors(422)})
def anki_package(session: SessionDep,
                 lang: Literal["both", "zh", "en"] = Query("both", description="The notes' language: zh, en, or "
                                                                                "both on every note.")) -> Response:
    """The Anki package (File → Import): a subdeck per module, drills as type-in notes, in ``lang``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "proofdeck.apkg"
        write_package(load_docs(session), path, load_verdicts(session), lang=lang)
        data = path.read_bytes()
    return Response(data, media_type="application/octet-stream",
                    headers=disposition("attachment", f"proofdeck-{lang}.apkg"))

"""Exports over HTTP: one card as an Obsidian note, the Obsidian vault as a zip, the offline handbook, the
Anki package.

``GET /api/cards/{slug}.md`` lives here, not in the cards router: this router is included BEFORE
the cards router in ``app/api/main.py`` so that ``/api/cards/{slug}`` does not swallow ``.md``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Response

from app.api.deps import OptionalUser, ReviewEngineDep, SessionDep
from app.api.errors import errors
from app.export.anki import write_package
from app.export.deck import UnknownCardError, load_doc, load_docs, load_outline, load_verdicts
from app.export.handbook import render_handbook
from app.export.obsidian import VaultLayout, card_note, vault_files, vault_zip
from app.review.study_snapshot import handbook_study

router = APIRouter(prefix="/api", tags=["exports"])


def _disposition(kind: str, ascii_name: str, name: str | None = None) -> dict[str, str]:
    value = f'{kind}; filename="{ascii_name}"'
    if name and name != ascii_name:
        value += f"; filename*=UTF-8''{quote(name)}"
    return {"Content-Disposition": value, "X-Content-Type-Options": "nosniff"}


@router.get("/cards/{slug}.md", response_class=Response,
            responses={200: {"content": {"text/markdown": {}}}, **errors(404, 422)})
def card_markdown(slug: str, session: SessionDep) -> Response:
    """One card as an Obsidian note; its wikilinks use the vault's file names."""
    try:
        doc = load_doc(session, slug)
    except UnknownCardError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from None
    layout = VaultLayout.plan(load_outline(session))
    text = card_note(doc, layout, load_verdicts(session))
    return Response(text, media_type="text/markdown; charset=utf-8",
                    headers=_disposition("inline", f"{slug}.md", f"{layout.name[slug]}.md"))


@router.get("/export/obsidian.zip", response_class=Response,
            responses={200: {"content": {"application/zip": {}}}})
def obsidian_zip(session: SessionDep) -> Response:
    """The Obsidian vault: a folder per module, a note per card, an index note per module."""
    data = vault_zip(vault_files(load_docs(session), load_verdicts(session)))
    return Response(data, media_type="application/zip",
                    headers=_disposition("attachment", "proofdeck-obsidian.zip"))


@router.get("/export/handbook.html", response_class=Response,
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
                    headers=_disposition("attachment", "proofdeck-handbook.html"))


@router.get("/export/anki.apkg", response_class=Response,
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
                    headers=_disposition("attachment", f"proofdeck-{lang}.apkg"))

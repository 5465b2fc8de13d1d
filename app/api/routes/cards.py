"""``/api/cards``: the card list (filters, full-text search, pages), one card in full, one card as an Obsidian
note (``{slug}.md``) and the latest verdicts of its claims.

``GET /{slug}.md`` is declared before ``GET /{slug}``: routes match in order, and ``{slug}`` would take
``name.md`` whole."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response
from sqlmodel import select

from app.api.deps import SessionDep
from app.api.downloads import disposition
from app.api.errors import errors
from app.api.guards import NO_NUL
from app.cards.catalog import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    CardFilter,
    CardNotFoundError,
    InvalidFilterError,
    card_detail,
    find_cards,
    get_card,
    parse_langs,
    summary,
)
from app.cards.schema import DIFFICULTIES
from app.export.deck import UnknownCardError, load_doc, load_outline, load_verdicts
from app.export.obsidian import VaultLayout, card_note
from app.models.card import Card
from app.schemas.cards import CardDetail, CardsPublic
from app.schemas.verification import CardVerification
from app.verification.public import run_public, verdict_public
from app.verification.store import latest_verdicts

router = APIRouter(prefix="/api/cards")


@router.get("", response_model=CardsPublic, responses=errors(422), tags=["cards"])
def list_cards(
    session: SessionDep,
    module: Annotated[str | None, Query(pattern=NO_NUL,
                                        description="Module code, zh or en name (case-insensitive).")] = None,
    topic: Annotated[str | None, Query(pattern=NO_NUL,
                                       description="Topic code, zh or en name (case-insensitive).")] = None,
    difficulty: Annotated[str | None, Query(description="easy, medium or hard.",
                                            json_schema_extra={"enum": list(DIFFICULTIES)})] = None,
    tag: Annotated[str | None, Query(pattern=NO_NUL, description="Exact tag.")] = None,
    q: Annotated[str | None, Query(max_length=MAX_QUERY_CHARS, pattern=NO_NUL,
                                   description="Words to find in either language (all must match), "
                                               f"e.g. `优化器状态` or `optimizer`; at most {MAX_QUERY_CHARS} "
                                               "characters (so at most half as many words).")] = None,
    retired: Annotated[bool, Query(description="Include retired cards (removed from cards/).")] = False,
    # The range is documented here and enforced by find_cards, whose message says how to fix it.
    limit: Annotated[int, Query(description=f"Page size, 1 to {MAX_LIMIT}.",
                                json_schema_extra={"minimum": 1, "maximum": MAX_LIMIT})] = 50,
    offset: Annotated[int, Query(description="Rows to skip.", json_schema_extra={"minimum": 0})] = 0,
) -> CardsPublic:
    """Cards in (module, topic, slug) order; retired cards only with ``retired=true``."""
    f = CardFilter(module=module, topic=topic, difficulty=difficulty, tag=tag, q=q, include_retired=retired)
    try:
        cards, count = find_cards(session, f, limit=limit, offset=offset)
    except InvalidFilterError as exc:
        raise HTTPException(422, detail=str(exc)) from None
    return CardsPublic(data=[summary(c) for c in cards], count=count, limit=limit, offset=offset)


@router.get("/{slug}.md", response_class=Response, tags=["exports"],
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
                    headers=disposition("inline", f"{slug}.md", f"{layout.name[slug]}.md"))


@router.get("/{slug}", response_model=CardDetail, responses=errors(404, 422), tags=["cards"])
def read_card(
    session: SessionDep, slug: str,
    lang: Annotated[str, Query(description="Languages to render: zh, en or both.",
                               json_schema_extra={"enum": ["zh", "en", "both"]})] = "both",
) -> CardDetail:
    """One card: every section rendered to HTML (MathML for formulas) plus its raw text and file."""
    try:
        langs = parse_langs(lang)
        return card_detail(session, get_card(session, slug), langs)
    except InvalidFilterError as exc:
        raise HTTPException(422, detail=str(exc)) from None
    except CardNotFoundError as exc:
        raise HTTPException(404, detail=str(exc)) from None


@router.get("/{slug}/verification", response_model=CardVerification, tags=["verification"],
            responses=errors(404, 422))
def card_verification(slug: str, session: SessionDep) -> CardVerification:
    """The latest verdict for each of the card's claims, and which machine and backend produced them."""
    if session.exec(select(Card.id).where(Card.slug == slug)).first() is None:
        raise HTTPException(404, detail=f"no card with slug '{slug}'")
    run, verdicts = latest_verdicts(session, slug)
    return CardVerification(slug=slug, run=run_public(run) if run else None,
                            verdicts=[verdict_public(v) for v in verdicts])

"""``/api/cards``: the card list (filters, full-text search, pages) and one card in full."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from app.api.deps import SessionDep
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
from app.schemas.cards import CardDetail, CardsPublic

router = APIRouter(prefix="/api/cards", tags=["cards"])


@router.get("", response_model=CardsPublic, responses=errors(422))
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


@router.get("/{slug}", response_model=CardDetail, responses=errors(404, 422))
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

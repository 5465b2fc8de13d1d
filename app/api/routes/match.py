"""``GET /api/match``: the cards that answer a pasted interview question, ranked (``app.search``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request

from app.api.deps import CurrentUser, SessionDep
from app.api.errors import errors
from app.api.guards import NO_NUL
from app.schemas.cards import CardSummary, LabelPublic, LangTextPublic
from app.schemas.match import FollowUpMatch, MatchHitPublic, MatchPublic, SnippetPublic
from app.search.index import LANG_FIELDS, CardRow
from app.search.match import MAX_LIMIT, MAX_QUERY_CHARS, MatchQueryError, MatchResult, match
from app.search.study import MAX_STUDY_CARDS, parse_slugs, study_items
from app.srs.prefs import settings_for

router = APIRouter(prefix="/api/match", tags=["match"])


def card_summary(c: CardRow) -> CardSummary:
    return CardSummary(slug=c.slug, title=LangTextPublic(zh=c.title_zh, en=c.title_en),
                       module=LabelPublic(code=c.module_code, zh=c.module_zh, en=c.module_en),
                       topic=LabelPublic(code=c.topic_code, zh=c.topic_zh, en=c.topic_en),
                       difficulty=c.difficulty, tags=list(c.tags))  # type: ignore[arg-type]


def match_public(result: MatchResult) -> MatchPublic:
    data = [MatchHitPublic(
        card=card_summary(h.card), score=h.score,
        follow_up=FollowUpMatch(id=h.follow_up.id, score=h.follow_up.score,
                                question=LangTextPublic(zh=h.follow_up.question_zh, en=h.follow_up.question_en))
        if h.follow_up else None,
        snippet=SnippetPublic(text=h.snippet.text, html=h.snippet.html, offsets=h.snippet.offsets,
                              lang=h.snippet_lang, source=h.snippet_from),
    ) for h in result.hits]
    return MatchPublic(query=result.query, lang=result.lang, tokens=result.tokens, data=data, count=len(data))


@router.get("", response_model=MatchPublic, responses=errors(422))
def match_cards(
    request: Request,
    q: Annotated[str, Query(description=f"The question, in Chinese, English or both (up to {MAX_QUERY_CHARS} "
                                        "characters), e.g. `为什么ZeRO-3通信量更大` or `why is zero3 slower`.",
                                json_schema_extra={"maxLength": MAX_QUERY_CHARS, "pattern": NO_NUL})],
    limit: Annotated[int, Query(description=f"How many cards, 1 to {MAX_LIMIT}.",
                                json_schema_extra={"minimum": 1, "maximum": MAX_LIMIT})] = 5,
    lang: Annotated[str, Query(description="Match the zh text, the en text or both.",
                               json_schema_extra={"enum": ["zh", "en", "both"]})] = "both",
) -> MatchPublic:
    """Live cards ranked by BM25 relevance to ``q`` (an empty list when ``q`` has only stop words or
    punctuation): each with its score, the follow-up that matches best and a highlighted snippet."""
    try:
        return match_public(match(request.app.state.engine, q, limit=limit, lang=lang))
    except MatchQueryError as exc:
        raise HTTPException(422, detail=str(exc)) from None


@router.get("/study", responses=errors(401, 422))
def study(
    user: CurrentUser, session: SessionDep,
    cards: Annotated[str, Query(description="Card slugs separated by commas (from /api/match); the first "
                                            f"{MAX_STUDY_CARDS} are studied.", json_schema_extra={"pattern": NO_NUL})],
    lang: Annotated[str | None, Query(description="zh, en or both; default: your quiz language.",
                                      json_schema_extra={"enum": ["zh", "en", "both"]})] = None,
) -> dict[str, Any]:
    """The items of these cards for a study session in the quiz: shown in order, never scheduled (the
    quiz sends no answer for them, so their FSRS schedule stays as it was). Drills are left out."""
    assert user.id is not None
    if lang is not None and lang not in LANG_FIELDS:
        raise HTTPException(422, detail=f"lang '{lang}' is not one of zh, en, both")
    slugs = parse_slugs(cards)
    language = lang or settings_for(session, user.id).language
    items, missing = study_items(session, slugs, language)
    return {"items": items, "count": len(items), "cards": slugs, "missing": missing, "language": language}

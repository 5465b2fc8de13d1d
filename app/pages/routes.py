"""HTML pages: ``/`` (the deck grouped by module and topic, folded to topics on a large deck, with search) and
``/cards/{slug}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from sqlmodel import col, select
from starlette.responses import Response

from app.api.deps import OptionalUser, SessionDep
from app.cards.catalog import (
    CardFilter,
    CardNotFoundError,
    InvalidFilterError,
    card_detail,
    find_cards,
    get_card,
    summary,
)
from app.cards.schema import DIFFICULTIES
from app.models.card import Card
from app.pages.deck_outline import FOLD_AT, ModuleGroup, folded_outline, group_cards
from app.search.match import MAX_LIMIT as MATCH_LIMIT
from app.search.match import Hit, MatchQueryError, match
from app.verification.present import card_overview, claim_line, mark_card, per_config, run_psi, verdict_view
from app.verification.store import latest_verdicts
from app.web.templating import render_page

router = APIRouter(tags=["pages"], include_in_schema=False)


def _choices(session: SessionDep) -> dict[str, list[tuple[str, str]]]:
    """(value, label) options for the filter selects, from the live cards."""
    live = col(Card.retired).is_(False)
    modules: dict[str, str] = {}
    topics: dict[str, str] = {}
    tags: set[str] = set()
    for m_code, m_zh, m_en, card_tags in session.exec(
            select(Card.module_code, Card.module_zh, Card.module_en, Card.tags).where(live)):
        if m_code or m_en or m_zh:
            modules[m_code or m_en or m_zh] = " · ".join(x for x in (m_code, m_zh, m_en) if x)
        tags.update(card_tags or [])
    for t_code, t_zh, t_en in session.exec(select(Card.topic_code, Card.topic_zh, Card.topic_en).where(live)):
        if t_code or t_en or t_zh:
            topics[t_code or t_en or t_zh] = " · ".join(x for x in (t_zh, t_en) if x) or t_code
    return {"module": sorted(modules.items()), "topic": sorted(topics.items(), key=lambda kv: kv[1]),
            "difficulty": [(d, d) for d in DIFFICULTIES], "tag": [(t, t) for t in sorted(tags)]}


@router.get("/", response_class=HTMLResponse)
def index_page(
    request: Request, session: SessionDep, user: OptionalUser,
    q: Annotated[str, Query()] = "", module: Annotated[str, Query()] = "",
    topic: Annotated[str, Query()] = "", difficulty: Annotated[str, Query()] = "",
    tag: Annotated[str, Query()] = "",
) -> Response:
    """Every live card grouped by module and topic; the filters narrow it, and ``?q=`` ranks the cards
    that match a question (``app.search``: ranked, with a highlighted snippet) within the filters."""
    f = CardFilter(module=module or None, topic=topic or None, difficulty=difficulty or None,
                   tag=tag or None)
    error = ""
    hits: list[Hit] = []
    groups: list[ModuleGroup] = []
    filters = any((module, topic, difficulty, tag))
    total = len(session.exec(select(Card.id).where(col(Card.retired).is_(False))).all())
    folded = not (q or filters) and total > FOLD_AT
    try:
        if folded:
            groups, count = folded_outline(session), total
        elif q:
            found = match(request.app.state.engine, q, limit=MATCH_LIMIT).hits
            allowed = {c.slug for c in find_cards(session, f, limit=None)[0]} if filters else None
            hits = [h for h in found if allowed is None or h.card.slug in allowed]
            count = len(hits)
        else:
            cards, count = find_cards(session, f, limit=None)
            groups = group_cards([summary(c) for c in cards])
    except (InvalidFilterError, MatchQueryError) as exc:
        count, error = 0, str(exc)
    context = {
        "groups": groups, "folded": folded, "count": count, "total": total, "error": error, "hits": hits,
        "query": {"q": q, "module": module, "topic": topic, "difficulty": difficulty, "tag": tag},
        "choices": _choices(session), "filtered": bool(q) or filters, "user": user,
    }
    return render_page(request, "index.html", context, status_code=422 if error else 200)


@router.get("/cards/{slug}", response_class=HTMLResponse)
def card_page(request: Request, session: SessionDep, user: OptionalUser, slug: str) -> Response:
    """One card: both languages of every section (zh / en / both toggle), follow-ups, links, claims."""
    try:
        card = card_detail(session, get_card(session, slug))
    except CardNotFoundError as exc:
        return render_page(request, "error.html", {"status_code": 404, "detail": str(exc), "user": user},
                           status_code=404)
    run, verdicts = latest_verdicts(session, slug)
    psi = run_psi(run)
    mark_card(card, verdicts, psi)
    verification = {
        "run": run,
        "by_claim": {v.claim_key: verdict_view(v) | {"line": {lang: claim_line(v, lang, psi) for lang in ("zh", "en")},
                                                     "per_config": per_config(v, psi, word=True)}
                     for v in verdicts},
        "overview": card_overview(card.source, verdicts),
    }
    return render_page(request, "card.html", {"card": card, "verification": verification, "user": user})

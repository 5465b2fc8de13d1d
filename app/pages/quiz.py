"""Quiz pages (Jinja2): the keyboard-first quiz and the stats page with server-rendered SVG charts."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.api.deps import OptionalUser, ReviewEngineDep, SessionDep
from app.api.errors import MAX_ID, errors
from app.core.vocab import LANGUAGES, NEW_PER_DAY_SCHEMA, RETENTION_SCHEMA, REVIEWS_PER_DAY_SCHEMA, settings_errors
from app.pages.heatmap import heatmap
from app.pages.study import study_session
from app.review.errors import ReviewError
from app.srs import history
from app.srs.optimize import MIN_REVIEWS  # no torch: the optimiser imports it lazily
from app.srs.prefs import settings_for
from app.srs.scheduler import now_utc
from app.srs.stats import user_stats
from app.web.templating import page_headers, templates

router = APIRouter(tags=["pages"])
TO_LOGIN: dict[int | str, dict[str, Any]] = {
    303: {"description": "Not signed in: redirect to /login (or, after saving, back to the page)"}}


@router.get("/quiz/assets/{name}", status_code=308, response_class=RedirectResponse, include_in_schema=False)
def asset(name: str) -> RedirectResponse:
    """The quiz's old asset URLs (pages cached before the one static mount): to ``/static``."""
    return RedirectResponse(f"/static/{quote(name)}", status_code=308)


@router.get("/quiz", response_class=HTMLResponse, responses=TO_LOGIN)
def quiz(request: Request, user: OptionalUser, session: SessionDep) -> Response:
    return _quiz_page(request, user, session, "", "")


# Not in the API schema: a page, like / (its parameters are the paste box's form fields).
@router.get("/quiz/study", response_class=HTMLResponse, include_in_schema=False)
def study(request: Request, user: OptionalUser, session: SessionDep, q: str = "", cards: str = "") -> Response:
    """The quiz on a study session: the cards that match a pasted question ``q``, or the ``cards`` named
    (``app.search.study``). Their items are shown in the page and no answer is sent: the schedule stays
    as it was."""
    return _quiz_page(request, user, session, q, cards)


def _quiz_page(request: Request, user: Any, session: SessionDep, q: str, cards: str) -> Response:
    if user is None:
        return RedirectResponse("/login?next=/quiz", status_code=303)
    assert user.id is not None
    st = settings_for(session, user.id)
    study_view, error = study_session(request, session, q, cards)  # a question we cannot use: said in the page
    return templates.TemplateResponse(request, "quiz.html", {"user": user, "language": st.language,
                                                             "study": study_view, "paste_q": q, "study_error": error},
                                      headers=page_headers())


def bar_chart(values: list[float | None], labels: list[str], *, width: int = 640, height: int = 180,
              pad: int = 32, left: int = 60, top: float | None = None) -> dict[str, Any]:
    """Geometry for a server-side SVG bar chart (the template draws it). ``left`` leaves room for the top
    tick ("100%" at the large tick font phones get); a ``None`` value is drawn as "no data", not as 0."""
    top = top or max((v for v in values if v is not None), default=0) or 1
    n = max(len(values), 1)
    slot = (width - left - pad) / n
    bars = []
    for i, (v, label) in enumerate(zip(values, labels, strict=True)):
        h = (height - 2 * pad) * (v or 0) / top
        bars.append({"x": round(left + i * slot + slot * 0.15, 1), "y": round(height - pad - h, 1),
                     "w": round(slot * 0.7, 1), "h": round(h, 1), "value": v, "label": label,
                     "show_label": n <= 10 or i % 5 == 0})
    return {"width": width, "height": height, "pad": pad, "left": left, "top": top, "bars": bars,
            "base": height - pad}


@router.post("/quiz/settings", status_code=303, response_class=RedirectResponse,
             responses={**TO_LOGIN, **errors(400, 422)})
def save_settings(user: OptionalUser, engine: ReviewEngineDep, session: SessionDep,
                  desired_retention: Annotated[float, Form(json_schema_extra=dict(RETENTION_SCHEMA))],
                  new_per_day: Annotated[int, Form(json_schema_extra=dict(NEW_PER_DAY_SCHEMA))],
                  language: Annotated[str, Form(json_schema_extra={"enum": list(LANGUAGES)})],
                  reviews_per_day: Annotated[int, Form(json_schema_extra=dict(REVIEWS_PER_DAY_SCHEMA))]) -> Response:
    """The settings form on the stats page (same checks as ``PUT /api/review/settings``), made before the
    sign-in redirect: what the schema says is out of range is refused for everyone, signed in or not."""
    problems = settings_errors(desired_retention=desired_retention, new_per_day=new_per_day, language=language,
                               reviews_per_day=reviews_per_day)
    if problems:
        raise HTTPException(422, detail="; ".join(problems))
    if user is None:
        return RedirectResponse("/login?next=/quiz/stats", status_code=303)
    assert user.id is not None
    try:
        engine.update_settings(user.id, release=session, desired_retention=desired_retention,
                               new_per_day=new_per_day, language=language, reviews_per_day=reviews_per_day)
    except ReviewError as exc:
        raise HTTPException(exc.status, detail=str(exc)) from None
    return RedirectResponse("/quiz/stats", status_code=303)


@router.get("/quiz/stats", response_class=HTMLResponse, responses=TO_LOGIN)
def stats_page(request: Request, user: OptionalUser, engine: ReviewEngineDep, session: SessionDep) -> Response:
    if user is None:
        return RedirectResponse("/login?next=/quiz/stats", status_code=303)
    assert user.id is not None
    stats = user_stats(session, user.id, now_utc())
    stats["counts"] = engine.counts(user.id).public()  # the quiz header's numbers, from the same code
    st = settings_for(session, user.id)
    fc = stats["forecast"]
    forecast_chart = bar_chart([d["due"] for d in fc], [d["date"][5:] for d in fc])
    ret = [stats["retention"]["7d"], stats["retention"]["30d"]]
    retention_chart = bar_chart([None if r["retention"] is None else round(100 * r["retention"], 1) for r in ret],
                                ["7 d", "30 d"], width=320, top=100)
    year = history.daily(session, user.id, now_utc())
    month = year[-30:]
    reviews_chart = bar_chart([d["reviews"] for d in month], [d["date"].isoformat()[5:] for d in month])
    minutes_chart = bar_chart([round(d["seconds"] / 60, 1) for d in month], [d["date"].isoformat()[5:] for d in month])
    return templates.TemplateResponse(request, "stats.html", {
        "user": user, "stats": stats, "language": st.language, "forecast_chart": forecast_chart,
        "retention": ret, "retention_chart": retention_chart, "needed": MIN_REVIEWS,
        "heatmap": heatmap(year), "reviews_chart": reviews_chart, "minutes_chart": minutes_chart,
        "settings": st}, headers=page_headers())


@router.get("/quiz/held", response_class=HTMLResponse, responses=TO_LOGIN)
def held_page(request: Request, user: OptionalUser, engine: ReviewEngineDep, session: SessionDep) -> Response:
    """Your buried and suspended items, each with a button that resumes it."""
    if user is None:
        return RedirectResponse("/login?next=/quiz/held", status_code=303)
    assert user.id is not None
    st = settings_for(session, user.id)
    return templates.TemplateResponse(request, "held.html", {"user": user, "language": st.language,
                                                             "held": engine.held(session, user.id)},
                                      headers=page_headers())


@router.post("/quiz/held/resume", status_code=303, response_class=RedirectResponse,
             responses={**TO_LOGIN, **errors(400, 422)})
def resume_held(user: OptionalUser, engine: ReviewEngineDep, session: SessionDep,
                item_id: Annotated[int, Form(ge=1, le=MAX_ID)]) -> Response:
    """The resume button of ``/quiz/held`` (as ``POST /api/review/items/{item_id}/resume``)."""
    if user is None:
        return RedirectResponse("/login?next=/quiz/held", status_code=303)
    assert user.id is not None
    engine.resume(user.id, item_id, release=session)
    return RedirectResponse("/quiz/held", status_code=303)

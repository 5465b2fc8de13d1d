"""The review API: next item, answer, stats, follow-up chain, own log and settings (signed-in users only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.api.deps import CurrentUser, ReviewEngineDep, SessionDep, review_engine, signed_in
from app.api.errors import MAX_ID, IdPath, Offset, errors
from app.api.fastjson import FastJSON
from app.api.guards import NO_NUL
from app.core.jsontypes import JsonInt
from app.models.review import ReviewLog
from app.models.user import SettingsPublic, SettingsUpdate, UserSettings
from app.review import service as srs
from app.review.errors import ReviewError
from app.srs.optimize import MIN_REVIEWS  # no torch: the optimiser imports it lazily
from app.srs.prefs import settings_for
from app.srs.scheduler import InvalidRating, now_utc
from app.srs.state import StateRow, state_public
from app.srs.stats import user_stats
from app.web.csrf import is_json

router = APIRouter(prefix="/api/review", tags=["review"], responses=errors(401, 422))


class ReviewIn(BaseModel):
    """One answer: a rating 1-4, or for a drill the typed answer and its showing id (strict: ``"5"`` or
    ``true`` is no id, ``1.5`` no duration)."""

    # the two ways to answer, as the schema says them: a rating 1-4 (a card, a follow-up), or a typed answer
    # that is not empty with its showing (a drill); neither ({"rating": null, "typed_answer": ""}) is no answer
    model_config = ConfigDict(strict=True, json_schema_extra={"anyOf": [
        {"required": ["rating"], "properties": {"rating": {"type": "integer"}}},
        {"required": ["typed_answer", "showing_id"],
         "properties": {"typed_answer": {"type": "string", "minLength": 1}, "showing_id": {"type": "integer"}}}]})

    item_id: JsonInt = Field(ge=1, le=MAX_ID)
    # validated by the scheduler glue so the error says which values are allowed; the schema says them too
    rating: Any = Field(default=None, json_schema_extra={
        "anyOf": [{"type": "integer", "minimum": 1, "maximum": 4}, {"type": "null"}]})
    typed_answer: str | None = Field(default=None, max_length=100, pattern=NO_NUL)
    showing_id: JsonInt | None = Field(default=None, ge=1, le=MAX_ID)
    duration_ms: JsonInt | None = Field(default=None, json_schema_extra={"minimum": 0, "maximum": 86_400_000})
    idempotency_key: str | None = Field(default=None, max_length=128, pattern=NO_NUL)


def _raise(exc: Exception) -> HTTPException:
    if isinstance(exc, ReviewError):
        return HTTPException(exc.status, detail=str(exc))
    return HTTPException(422, detail=str(exc))


# The two hot routes take the Request alone and do their own sign-in and body checks: FastAPI's dependency
# resolution and body handling cost more than everything else these routes do (bench/review.py). The
# checks and answers are the same as the dependencies' (401 first, then FastAPI-shaped 422 for the body);
# the schema documents the body and the header the same way.
_REVIEW_DOC: dict[str, Any] = {
    "parameters": [{"name": "Idempotency-Key", "in": "header", "required": False,
                    "schema": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Idempotency-Key"}}],
    "requestBody": {"required": True, "content": {"application/json": {"schema": ReviewIn.model_json_schema()}}},
}


async def _review_body(request: Request) -> ReviewIn:
    content_type = request.headers.get("content-type")
    if content_type is not None and not is_json(content_type):  # an HTML form's text/plain is no answer
        raise HTTPException(415, detail=f"send the answer as JSON with 'Content-Type: application/json' "
                                        f"(got {content_type.split(';')[0]!r})")
    try:
        return ReviewIn.model_validate_json(await request.body())
    except ValidationError as exc:
        errors = []
        for e in exc.errors(include_url=False):
            raw = e.get("input")  # a body that is not JSON comes back as bytes, maybe not UTF-8
            errors.append({**e, "loc": ("body", *e["loc"]),
                           "input": raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw})
        raise RequestValidationError(errors, body=None) from None


@router.get("/next", response_model=dict[str, Any])
async def next_item(request: Request) -> FastJSON:
    """The next due item (most overdue first, then new ones within today's quota), or when one is next due.

    Served from this process's in-memory queue (``app.review.engine``): no query unless the queue is due a
    check (once a second) or the item is a drill (its numbers are stored).
    """
    user = await signed_in(request)
    return FastJSON(await review_engine(request).next(user.user_id, user.prefs))


@router.post("", response_model=dict[str, Any], responses=errors(400, 404, 409, 415), openapi_extra=_REVIEW_DOC)
async def post_review(request: Request) -> FastJSON:
    """Grade an item. Send an ``Idempotency-Key`` (header or body): a retry returns the first response.

    Answers arriving together are written in one transaction (``app.review.engine``); the response comes
    after the commit.
    """
    user = await signed_in(request)
    body = await _review_body(request)
    try:
        out = await review_engine(request).answer(
            user.user_id, body.item_id, rating=body.rating, typed=body.typed_answer, showing_id=body.showing_id,
            duration_ms=body.duration_ms, key=request.headers.get("idempotency-key") or body.idempotency_key,
            prefs=user.prefs)
    except (ReviewError, InvalidRating) as exc:
        raise _raise(exc) from None
    return FastJSON(out)


@router.get("/stats")
def stats(user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """``counts``: new / learning / review left today (the quiz header's and the stats page's numbers, from
    the review engine); due today, reviewed today, streak, true retention (7/30 days), 30-day forecast."""
    assert user.id is not None
    out = user_stats(session, user.id, now_utc())
    out["counts"] = engine.counts(user.id).public()
    st = settings_for(session, user.id)
    out["optimizer"] = {"reviews_needed": MIN_REVIEWS, "reviews": out["total_reviews"],
                        "optimized": st.parameters is not None, "optimized_reviews": st.optimized_reviews}
    return out


@router.get("/chain/{item_id}", responses=errors(404))
def chain(item_id: IdPath, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """After grading a card: its follow-ups reviewable now ("drill deeper"), then related cards."""
    assert user.id is not None
    try:
        return srs.chain(session, user.id, item_id, now_utc())
    except ReviewError as exc:
        raise _raise(exc) from None


@router.get("/log")
def my_log(user: CurrentUser, session: SessionDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
           offset: Offset = 0) -> dict[str, Any]:
    """Your own review log, newest first."""
    assert user.id is not None
    rows = srs.recent_logs(session, user.id, limit, offset)
    return {"data": [srs.log_public(r) for r in rows], "count": len(rows)}


@router.get("/log/{log_id}", responses=errors(404))
def log_entry(log_id: IdPath, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """One of your review log rows (another user's answers 404, as if it did not exist)."""
    row = session.get(ReviewLog, log_id)
    if row is None or row.user_id != user.id:
        raise HTTPException(404, detail=f"review log {log_id} not found")
    return srs.log_public(row)


@router.get("/items/{item_id}", responses=errors(404))
def item_state(item_id: IdPath, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Your scheduler state for one item (null before your first review)."""
    from sqlmodel import select

    from app.models.review import ItemState, ReviewItem

    item = session.get(ReviewItem, item_id)
    if item is None:
        raise HTTPException(404, detail=f"review item {item_id} does not exist")
    state = session.exec(select(ItemState).where(ItemState.user_id == user.id, ItemState.item_id == item_id)).first()
    return {"id": item.id, "card_id": item.card_id, "kind": item.kind, "key": item.key, "lang": item.lang,
            "retired": item.retired, "state": state_public(None if state is None else StateRow.of(state))}


def _settings_public(st: UserSettings) -> SettingsPublic:
    return SettingsPublic(desired_retention=st.desired_retention, new_per_day=st.new_per_day,
                          reviews_per_day=st.reviews_per_day, language=st.language,
                          optimized=st.parameters is not None, optimized_reviews=st.optimized_reviews)


@router.get("/settings")
def get_settings(user: CurrentUser, session: SessionDep) -> SettingsPublic:
    assert user.id is not None
    return _settings_public(settings_for(session, user.id))


@router.put("/settings", responses=errors(400))
def put_settings(body: SettingsUpdate, user: CurrentUser, engine: ReviewEngineDep,
                 session: SessionDep) -> SettingsPublic:
    """Change desired retention (0.70-0.99), new items per day (0-500), language (zh | en | both)."""
    assert user.id is not None
    try:
        st = engine.update_settings(user.id, release=session, **body.model_dump(exclude_none=True))
    except ReviewError as exc:
        raise _raise(exc) from None
    return _settings_public(st)

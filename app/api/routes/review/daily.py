"""The daily loop's review routes: undo, self-grading a wrong typed answer, bury / suspend / resume, the
held list, each item's interval preview and history. Each one parses, calls the review engine, answers.
Every route acts on the caller's own state only: items are the deck's, holds and logs are per user."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentUser, ReviewEngineDep, SessionDep
from app.api.errors import MAX_ID, IdPath, errors
from app.api.guards import NO_NUL
from app.core.jsontypes import JsonInt
from app.review.errors import ReviewError
from app.srs.scheduler import InvalidRating

router = APIRouter(prefix="/api/review", tags=["review"], responses=errors(401, 422))


class UndoIn(BaseModel):
    """Optional body of an undo: its idempotency key (or send the ``Idempotency-Key`` header)."""

    model_config = ConfigDict(strict=True)

    idempotency_key: str | None = Field(default=None, max_length=128, pattern=NO_NUL)


class RegradeIn(BaseModel):
    """Your own grade for a wrong typed answer: the log row the answer wrote and a rating 1-4."""

    model_config = ConfigDict(strict=True)

    log_id: JsonInt = Field(ge=1, le=MAX_ID)
    rating: JsonInt = Field(ge=1, le=4, description="1 Again, 2 Hard, 3 Good, 4 Easy")


def _refused(exc: Exception) -> HTTPException:
    return HTTPException(exc.status if isinstance(exc, ReviewError) else 422, detail=str(exc))


@router.post("/undo", responses=errors(400, 409))
def undo(user: CurrentUser, engine: ReviewEngineDep, session: SessionDep,
         body: Annotated[UndoIn | None, Body()] = None,
         idempotency_key: Annotated[str | None, Header(max_length=128)] = None) -> dict[str, Any]:
    """Undo your latest answer of today: the item gets back the FSRS state it had, the log row goes.
    Send an ``Idempotency-Key``: a retry returns the first response and undoes nothing more. 409 when
    nothing of today is left to undo."""
    assert user.id is not None
    key = idempotency_key or (body.idempotency_key if body is not None else None)
    try:
        return engine.undo(user.id, key, release=session)
    except ReviewError as exc:
        raise _refused(exc) from None


@router.post("/regrade", responses=errors(400, 409))
def regrade(body: RegradeIn, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """Grade your latest answer yourself when it was a wrong typed answer (a slip): rating 1-4 replaces
    the Again it got; the item is scheduled as if you had given that rating then."""
    assert user.id is not None
    try:
        return engine.regrade(user.id, body.log_id, body.rating, release=session)
    except (ReviewError, InvalidRating) as exc:
        raise _refused(exc) from None


def _hold(kind: str, item_id: int, user: CurrentUser, engine: ReviewEngineDep,
          session: SessionDep) -> dict[str, Any]:
    assert user.id is not None
    try:
        return engine.hold(user.id, item_id, kind, release=session)
    except ReviewError as exc:
        raise _refused(exc) from None


@router.post("/items/{item_id}/bury", responses=errors(404))
def bury(item_id: IdPath, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """Bury an item until the start of your next day (UTC): it is not offered, nor counted, until then."""
    return _hold("bury", item_id, user, engine, session)


@router.post("/items/{item_id}/suspend", responses=errors(404))
def suspend(item_id: IdPath, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """Suspend an item until you resume it (``POST .../resume``, or the page ``/quiz/held``)."""
    return _hold("suspend", item_id, user, engine, session)


@router.post("/items/{item_id}/resume")
def resume(item_id: IdPath, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """Lift your bury or suspension of an item (``resumed`` false when it had none; a retry is harmless)."""
    assert user.id is not None
    return engine.resume(user.id, item_id, release=session)


@router.get("/held")
def held(user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """Your buried (until when) and suspended items, newest first."""
    assert user.id is not None
    rows = engine.held(session, user.id)
    return {"data": rows, "count": len(rows)}


@router.get("/items/{item_id}/intervals", responses=errors(404))
def intervals(item_id: IdPath, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """What each grade would give the item now, from your state (the ``fsrs`` scheduler's preview, no
    fuzz): ``intervals`` [{rating, seconds, label}], ``summary`` like "10 min · 1 d · 3 d · 8 d"."""
    assert user.id is not None
    try:
        return engine.intervals(session, user.id, item_id)
    except ReviewError as exc:
        raise _refused(exc) from None


@router.get("/items/{item_id}/log", responses=errors(404))
def item_log(item_id: IdPath, user: CurrentUser, engine: ReviewEngineDep, session: SessionDep) -> dict[str, Any]:
    """The item's history for you: your answers of it (rating, state before and after), newest first."""
    assert user.id is not None
    try:
        return engine.item_log(session, user.id, item_id)
    except ReviewError as exc:
        raise _refused(exc) from None

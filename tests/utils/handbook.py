"""The handbook's study data and reviews files, made as the page makes them, and the server's own FSRS
replay of a sequence of answers (the reference an import is checked against)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.export.deck import load_docs
from app.models.user import User
from app.review.engine import ReviewEngine
from app.review.study_snapshot import handbook_study
from app.srs.scheduler import make_scheduler, parse_rating, review
from app.srs.state import StateRow, fsrs_card


def study_data(db: Engine, username: str | None = None, now: datetime | None = None) -> dict[str, Any]:
    """What ``proofdeck export html [--user NAME]`` embeds for study mode."""
    with Session(db) as s:
        docs = load_docs(s)
        user = s.exec(select(User).where(User.username == username)).first() if username else None
    return handbook_study(ReviewEngine(db), docs, user, now).data


def items(data: dict[str, Any]) -> list[list[Any]]:
    """The handbook's items as ``[slug, kind, key, lang, fingerprint(, sections)]`` (it stores card indexes)."""
    return [[data["cards"][e[0]], *e[1:]] for e in data["items"]]


def item_of(data: dict[str, Any], name: str) -> list[Any]:
    for entry in items(data):
        if "/".join(entry[:3]) == name:
            return entry
    raise KeyError(f"no item {name} in the handbook: {['/'.join(e[:3]) for e in items(data)][:20]}")


def entry(data: dict[str, Any], name: str, at: datetime, rating: int = 3, *, typed: str | None = None,
          showing: int = 0, review_id: str | None = None, duration_ms: int | None = 1000) -> dict[str, Any]:
    """One review as study.js records it (a drill: ``typed``, graded by the page's rule, showing ``showing``)."""
    item = item_of(data, name)
    out: dict[str, Any] = {"id": review_id or str(uuid.uuid4()), "item": name, "fp": item[4],
                           "at": at.isoformat().replace("+00:00", "Z"), "duration_ms": duration_ms, "rating": rating}
    if item[1] == "drill":
        seed, fp, expected, _unit, _params = data["drills"][item[2]][showing]
        out.update(typed=typed if typed is not None else f"{expected:.6g}", seed=seed, showing=fp)
    return out


def reviews_file(data: dict[str, Any], reviews: Iterable[dict[str, Any]], **overrides: Any) -> str:
    body = {"format": "proofdeck-handbook-reviews", "version": 1, "deck": data["deck"], "export": data["export"],
            "user": data["user"], "exported_at": data["exported_at"], "written_at": "2026-12-03T12:00:00.000Z",
            "reviews": list(reviews), **overrides}
    return json.dumps(body)


def replay(start: StateRow | None, answers: Iterable[tuple[int, datetime]], *, item_id: int = 1,
           parameters: list[float] | None = None, desired_retention: float = 0.9) -> StateRow | None:
    """The server's FSRS (``app.srs.scheduler``, no fuzz) over ``answers`` (rating, time) from ``start``."""
    scheduler = make_scheduler(parameters=parameters, desired_retention=desired_retention, fuzz=False)
    state = start
    for rating, at in answers:
        card = review(fsrs_card(item_id, state), parse_rating(rating), when=at, scheduler=scheduler)
        state = StateRow.after(card, before=state, rating=rating)
    return state


def write_handbook(db: Engine, path: Any, username: str | None = None, now: datetime | None = None) -> Any:
    """The handbook of ``db``'s deck with study mode (and ``username``'s state), as ``proofdeck export html``
    writes it."""
    from app.export.deck import load_verdicts
    from app.export.handbook import render_handbook

    with Session(db) as s:
        docs, verdicts = load_docs(s), load_verdicts(s)
        user = s.exec(select(User).where(User.username == username)).first() if username else None
    study = handbook_study(ReviewEngine(db), docs, user, now)
    path.write_text(render_handbook(docs, verdicts, study=study), encoding="utf-8")
    return path


def open_offline(browser: Any, path: Any, *, viewport: dict[str, int] | None = None) -> tuple[Any, Any, list[str]]:
    """``path`` from file:// in a fresh context with the network off and every request but the file's
    refused; returns (context, page, the URLs refused). Close the context."""
    context = browser.new_context(offline=True, accept_downloads=True,
                                  viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    url, refused = path.as_uri(), []

    def route(r: Any) -> None:
        if r.request.url.split("#")[0] == url:
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda req: None if req.url.split("#")[0] == url else refused.append(req.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_load_state("load")
    page.errors = errors
    return context, page, refused

"""The app's session listeners live on its own sessionmaker of its engine, never on the global Session class.

``create_app`` installs them (the review queues' and the sign-in cache's) on ``app.core.db.session_factory``
of its engine, and every session the app makes comes from there (``new_session``). So a session made by
anyone else (a test, a script: ``Session(engine)``) or on another engine never fires them, and the app's
own do. A listener put back on the global class, or an app module that constructs ``Session(...)`` itself
(its writes would then be missed by the listeners), fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, select

from app.auth import cache as auth_cache
from app.auth.users import create_user
from app.core.db import make_engine, new_session, session_factory
from app.deck.sync import sync_cards
from app.models import User, clock
from app.review import queue
from app.review.engine import ReviewEngine
from app.srs.prefs import Prefs
from tests.utils.review import engine_next
from tests.utils.srs_cards import make_card, write_deck

APP = Path(__file__).resolve().parents[2] / "app"
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
LISTENERS: list[tuple[str, Callable[..., Any]]] = [
    ("after_commit", queue.after_commit), ("after_rollback", queue.after_rollback),
    ("after_flush", auth_cache._after_flush), ("after_commit", auth_cache._after_commit),
    ("after_rollback", auth_cache._after_rollback)]

Installed = tuple[ReviewEngine, int, str]  # the engine, a user id, the user's token


@pytest.fixture
def installed(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Installed]:
    """What create_app installs on ``engine``, a synced deck, a user with a cached sign-in and a loaded queue."""
    monkeypatch.setattr(queue, "CHECK_SECONDS", 3600.0)  # a queue stays fresh unless a listener drops it
    review = ReviewEngine(engine).install()
    auth_cache.install_listeners(engine)
    sync_cards(engine, write_deck(tmp_path / "cards", [make_card("solo", follow_ups=1, pitfalls=(0, 0))]))
    with Session(engine) as s, s.begin():
        user, token = create_user(s, "lee")
        uid = user.id
    assert uid is not None
    engine_next(engine, uid, T0, Prefs())
    auth_cache.clear()
    assert auth_cache.signed_in(engine, token) is not None
    yield review, uid, token
    auth_cache.clear()


def _queue_kept(review: ReviewEngine, uid: int) -> bool:
    return review.queues.fresh(uid, Prefs().language, T0) is not None


def _sign_in_kept(engine: Engine, token: str) -> bool:
    return auth_cache.cached_signed_in(engine, token) is not auth_cache.MISS


def _rename(s: Session, uid: int, name: str) -> None:
    user = s.exec(select(User).where(User.id == uid)).one()
    user.username = name
    s.add(user)
    clock.deck_changed(s)


def test_nothing_is_registered_on_the_global_session_classes() -> None:
    for cls in (OrmSession, Session):
        for name, fn in LISTENERS:
            assert not event.contains(cls, name, fn), f"{fn.__qualname__} is on {cls.__module__}.{cls.__name__}"


def test_a_session_not_made_by_the_app_fires_no_listener(engine: Engine, installed: Installed) -> None:
    review, uid, token = installed
    with Session(engine) as s, s.begin():  # a test's or a script's own session on the same engine
        _rename(s, uid, "lee2")
    assert _queue_kept(review, uid) and _sign_in_kept(engine, token)
    other = make_engine(engine.url.render_as_string(hide_password=False))  # the app's kind of session, other engine
    try:
        with new_session(other) as s, s.begin():
            _rename(s, uid, "lee3")
    finally:
        other.dispose()
    assert _queue_kept(review, uid) and _sign_in_kept(engine, token)


def test_the_apps_sessions_fire_them(engine: Engine, installed: Installed) -> None:
    review, uid, token = installed
    with new_session(engine) as s, s.begin():
        _rename(s, uid, "lee4")
    assert not _queue_kept(review, uid)
    assert not _sign_in_kept(engine, token)


def test_install_is_idempotent_and_per_engine(engine: Engine) -> None:
    ReviewEngine(engine).install()
    ReviewEngine(engine).install()
    auth_cache.install_listeners(engine)
    auth_cache.install_listeners(engine)
    maker = session_factory(engine)
    for name, fn in LISTENERS:
        assert event.contains(maker, name, fn)
    other = make_engine(engine.url.render_as_string(hide_password=False))
    try:
        assert not any(event.contains(session_factory(other), name, fn) for name, fn in LISTENERS)
    finally:
        other.dispose()


def _constructs_session(node: ast.AST) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id in ("Session", "OrmSession")) or (
        isinstance(f, ast.Attribute) and f.attr == "Session")


def test_the_app_makes_its_sessions_only_through_new_session() -> None:
    offenders = [f"{path.relative_to(APP.parent)}:{node.lineno}"
                 for path in sorted(APP.rglob("*.py")) if path != APP / "core" / "db.py"
                 for node in ast.walk(ast.parse(path.read_text(), str(path))) if _constructs_session(node)]
    assert offenders == [], "make sessions with app.core.db.new_session(engine) (its listeners are on its sessionmaker)"

"""The FastAPI application: wiring only (routers, start-up sync, first admin)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from app.api.body_errors import document_unparsable_bodies
from app.api.docs import install_api_docs
from app.api.guards import RejectNul
from app.auth import cache as auth_cache
from app.auth.ratelimit import LoginLimiter
from app.core.checkpointer import start_checkpointer
from app.core.config import PROJECT_ROOT, settings
from app.core.db import get_engine, new_session
from app.core.dblock import database_lock
from app.core.logging import log, setup_logging
from app.core.memory import freeze_long_lived
from app.core.progress import Progress
from app.models.migrate import init_db
from app.review.engine import ReviewEngine
from app.routers import install_api, install_pages
from app.search.index import warm as warm_search
from app.verification.present import warm_card_judges
from app.web.csrf import SameOriginOnly
from app.web.methods import FixedPathMethods


def startup_sync(engine: Engine, cards_dir: Path) -> None:
    """Create tables and sync cards/ (a bad card file is logged; the old content keeps serving)."""
    from app.deck.sync import SyncError, sync_cards

    init_db(engine)
    log.info("syncing cards from %s", cards_dir)
    with Progress(emit=lambda line: log.info("%s", line)) as progress:  # the log's periodic lines
        try:
            report = sync_cards(engine, cards_dir, claim_notes=False, progress=progress)
        except SyncError as exc:
            log.error("card sync failed, serving the previous content: %s", exc)
            return
    log.info("%s", progress.summary(f"cards synced: {len(report.added)} added, {len(report.updated)} updated, "
                                    f"{len(report.unchanged)} unchanged, {len(report.retired)} retired"))
    if cards_dir.resolve() == (PROJECT_ROOT / "cards").resolve():  # the shipped report judges the shipped deck
        from app.deck.verdicts import load_bundled

        log.info("%s", load_bundled(engine, settings.BUNDLED_REPORT))


class _RedactTokens(logging.Filter):
    """Access logs show ``/login?token=[redacted]``: a login link is a credential."""

    _pattern = re.compile(r"(token=)[^&\s\"]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and isinstance(record.args, tuple):
            record.args = tuple(self._pattern.sub(r"\1[redacted]", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


def first_start(engine: Engine, base_url: str, announce: Callable[[str], None] | None = None) -> None:
    """Give synced cards their review items; with no user yet, create ``admin`` and print a one-time login
    URL (or hand it to ``announce``: ``proofdeck serve`` prints it last, after uvicorn's start-up lines)."""

    from app.auth.users import ensure_first_admin
    from app.items.items import refresh_stale_items

    with new_session(engine) as session, session.begin():
        refresh_stale_items(session)
    try:
        with new_session(engine) as session, session.begin():
            token = ensure_first_admin(session)
    except IntegrityError:  # another worker created it first
        token = None
    if token:
        url = f"{base_url.rstrip('/')}/login?token={token}"
        log.warning("created user 'admin'; its one-time login URL is printed on stdout")
        if announce is not None:
            announce(url)
            return
        print(f"proofdeck: created user 'admin'. Log in at {url}", flush=True)
        print(f"proofdeck: (that link signs in once, within {settings.LOGIN_LINK_MINUTES:g} minutes; a new one, "
              "and an API token: proofdeck user link admin --api-token)", flush=True)


@asynccontextmanager
async def lifespan(application: FastAPI) -> AsyncIterator[None]:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, _RedactTokens) for f in access.filters):
        access.addFilter(_RedactTokens())
    # every worker (and every host on one PostgreSQL) runs this; the lock makes them take turns: the
    # first migrates and syncs, the others find the schema at head and the cards unchanged
    with database_lock(application.state.engine, waiting=lambda msg: log.info("%s", msg)):
        init_db(application.state.engine)
        if application.state.sync_on_startup:
            startup_sync(application.state.engine, application.state.cards_dir)
        first_start(application.state.engine, settings.BASE_URL, getattr(application.state, "announce_login", None))
    warm_search(application.state.engine)  # the first pasted question does not wait for the index build
    if settings.WARM_JUDGES:
        warm_card_judges()  # the first card page does not wait for sympy and pint to load
    freeze_long_lived()  # imports, routes, settings: never collected again (app/core/memory.py)
    checkpointer = start_checkpointer(application.state.engine)  # SQLite: WAL checkpoints off the commit path
    try:
        yield
    finally:
        if checkpointer is not None:
            checkpointer.stop()


def create_app(*, database_url: str | None = None, cards_dir: Path | None = None,
               sync_on_startup: bool | None = None) -> FastAPI:
    """Build the app; arguments override the settings (tests use them)."""
    setup_logging()
    application = FastAPI(
        title="proofdeck", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
        description="Bilingual ML-systems interview cards whose formulas are proved by running code.",
    )
    application.state.engine = get_engine(database_url or settings.DATABASE_URL)
    application.state.cards_dir = cards_dir or settings.CARDS_DIR
    application.state.sync_on_startup = settings.SYNC_ON_STARTUP if sync_on_startup is None else sync_on_startup
    application.state.login_limiter = LoginLimiter()  # counts in the database: see app/auth/ratelimit.py
    # next and answers (app/review/engine.py); its session listeners and GC policy go on this engine's
    # sessionmaker here, never at import, and so do the sign-in cache's
    application.state.review = ReviewEngine(application.state.engine).install()
    auth_cache.install_listeners(application.state.engine)
    install_api(application)
    install_api_docs(application)  # /docs and /redoc with their assets served here (no CDN)
    install_pages(application)
    document_unparsable_bodies(application)  # FastAPI's own 400 for a body it cannot read
    application.add_middleware(FixedPathMethods)  # DELETE /api/users/me: 405, not DELETE /api/users/{id}
    application.add_middleware(SameOriginOnly)  # cookie requests from other sites: 403 (app/web/csrf.py)
    application.add_middleware(RejectNul)  # %00 in a URL: 422 on SQLite and PostgreSQL alike
    return application


app = create_app()

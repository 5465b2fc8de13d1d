"""The FastAPI application: wiring only (routers, start-up sync)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy.engine import Engine

from app.api.main import api_router, install_pages
from app.core.config import settings
from app.core.db import get_engine, init_db
from app.core.logging import log, setup_logging


def startup_sync(engine: Engine, cards_dir: Path) -> None:
    """Create tables and sync cards/ (a bad card file is logged; the old content keeps serving)."""
    from app.cards.sync import SyncError, sync_cards

    init_db(engine)
    log.info("syncing cards from %s", cards_dir)
    try:
        report = sync_cards(engine, cards_dir)
    except SyncError as exc:
        log.error("card sync failed, serving the previous content: %s", exc)
        return
    log.info("cards synced: %d added, %d updated, %d unchanged, %d retired", len(report.added),
             len(report.updated), len(report.unchanged), len(report.retired))


@asynccontextmanager
async def lifespan(application: FastAPI) -> AsyncIterator[None]:
    init_db(application.state.engine)
    if application.state.sync_on_startup:
        startup_sync(application.state.engine, application.state.cards_dir)
    yield


def create_app(*, database_url: str | None = None, cards_dir: Path | None = None,
               sync_on_startup: bool | None = None) -> FastAPI:
    """Build the app; arguments override the settings (tests use them)."""
    setup_logging()
    application = FastAPI(
        title="proofdeck", version="0.1.0", lifespan=lifespan,
        description="Bilingual ML-systems interview cards whose formulas are proved by running code.",
    )
    application.state.engine = get_engine(database_url or settings.DATABASE_URL)
    application.state.cards_dir = cards_dir or settings.CARDS_DIR
    application.state.sync_on_startup = settings.SYNC_ON_STARTUP if sync_on_startup is None else sync_on_startup
    application.include_router(api_router)
    install_pages(application)
    return application


app = create_app()

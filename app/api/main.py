"""Every router, joined in one place; ``install_pages`` adds the HTML side (pages, /static, error pages)."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from app.api.routes import cards, exports, graph, health, verification
from app.pages.errors import install_error_pages
from app.pages.routes import router as pages_router
from app.pages.templating import STATIC_DIR

api_router = APIRouter()
api_router.include_router(health.router)
# exports before cards: its GET /api/cards/{slug}.md must match before the cards router's /api/cards/{slug}.
api_router.include_router(exports.router)
api_router.include_router(verification.router)
api_router.include_router(cards.router)
api_router.include_router(graph.router)


def install_pages(app: FastAPI) -> None:
    """The Jinja2 pages, our stylesheet at ``/static``, and HTML error pages outside ``/api``."""
    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_pages(app)

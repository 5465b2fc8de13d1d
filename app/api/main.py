"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from app.api.routes import admin, cards, exports, graph, health, login, review, users, verification
from app.pages import quiz
from app.pages.errors import install_error_pages
from app.pages.routes import router as pages_router
from app.pages.templating import STATIC_DIR

api_router = APIRouter()
# the review router first: routes are matched in order, and GET next / POST review are the hot paths
# (their /api/review prefix overlaps no other router)
api_router.include_router(review.router)
api_router.include_router(health.router)
# exports before cards: its GET /api/cards/{slug}.md must match before the cards router's /api/cards/{slug}.
api_router.include_router(exports.router)
api_router.include_router(verification.router)
api_router.include_router(cards.router)
api_router.include_router(graph.router)
api_router.include_router(users.router)
api_router.include_router(admin.router)
api_router.include_router(login.router)
api_router.include_router(quiz.router)


def install_pages(app: FastAPI) -> None:
    """The Jinja2 pages, our stylesheet at ``/static``, and HTML error pages outside ``/api``."""
    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_pages(app)

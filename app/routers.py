"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.api.routes import (
    admin,
    cards,
    daily,
    exports,
    graph,
    handbook,
    health,
    match,
    obsidian,
    review,
    users,
    verification,
)
from app.pages import graph as graph_page
from app.pages import login, quiz
from app.pages.errors import install_error_pages
from app.pages.routes import router as pages_router
from app.web.templating import STATIC_DIR

# Matched in this order. The review router first: GET next / POST review are the hot paths, and its
# /api/review prefix overlaps no other router. Exports before cards: its GET /api/cards/{slug}.md must
# match before the cards router's /api/cards/{slug}. Each router is included straight into the app
# (one level of nesting less to walk per request).
ROUTERS = (review.router, daily.router, handbook.router, health.router, exports.router, obsidian.router,
           verification.router, cards.router, graph.router, match.router, users.router, admin.router, login.router,
           quiz.router)


def install_api(app: FastAPI) -> None:
    for router in ROUTERS:
        app.include_router(router)


def install_pages(app: FastAPI) -> None:
    """The Jinja2 pages, our stylesheet at ``/static``, and HTML error pages outside ``/api``."""
    app.include_router(pages_router)
    app.include_router(graph_page.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_pages(app)

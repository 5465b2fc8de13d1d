"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.api.routes import admin, cards, exports, graph, health, match, review, users, verification
from app.pages import graph as graph_page
from app.pages import login, quiz
from app.pages.errors import install_error_pages
from app.pages.routes import router as pages_router
from app.web.templating import STATIC_DIR

# One route module per resource prefix (/api/cards, /api/export, ...; /api/review is a package of three
# routers), matched in this order. The review routers first: GET next / POST review are the hot paths, and
# the /api/review prefix overlaps no other router. Inside the cards router GET /api/cards/{slug}.md comes
# before /api/cards/{slug}. Each router is included straight into the app (one level of nesting less to
# walk per request); tests/core/test_route_modules.py fails when a prefix is served from two modules.
ROUTERS = (*review.ROUTERS, health.router, exports.router, cards.router, verification.router, graph.router,
           match.router, users.router, admin.router, login.router, quiz.router)


def install_api(app: FastAPI) -> None:
    for router in ROUTERS:
        app.include_router(router)


def install_pages(app: FastAPI) -> None:
    """The Jinja2 pages, our stylesheet at ``/static``, and HTML error pages outside ``/api``."""
    app.include_router(pages_router)
    app.include_router(graph_page.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_pages(app)

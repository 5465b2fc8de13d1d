"""One route module per resource prefix: every ``/api/<resource>`` route is served from one module of
``app/api/routes/`` (or one package there, for ``/api/review``), so a newcomer finds a route by its URL."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from fastapi.routing import APIRoute

from app.main import create_app

pytestmark = pytest.mark.db_independent


def owners(routes: Iterable[APIRoute]) -> dict[str, set[str]]:
    """``/api/<resource>`` → the route modules serving it (a module in a package of app.api.routes counts as
    its package)."""
    served: dict[str, set[str]] = defaultdict(set)
    for route in routes:
        parts = route.path.split("/")
        if parts[1] == "api":
            served["/".join(parts[:3])].add(".".join(route.endpoint.__module__.split(".")[:4]))
    return served


def api_routes(routes: Sequence[Any]) -> list[APIRoute]:
    """The app's routes, through the routers it includes (FastAPI keeps an included router as one node)."""
    out: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            out.append(route)
        elif hasattr(route, "original_router"):
            out.extend(api_routes(route.original_router.routes))
    return out


@pytest.fixture(scope="module")
def routes() -> list[APIRoute]:
    return api_routes(create_app().router.routes)


def test_each_api_prefix_is_served_by_one_route_module(routes: list[APIRoute]) -> None:
    served = owners(routes)
    assert {"/api/review", "/api/cards", "/api/export", "/api/admin", "/api/verification"} <= served.keys()
    shared = {prefix: sorted(modules) for prefix, modules in served.items() if len(modules) > 1}
    assert shared == {}, f"a resource prefix served from several modules: {shared}"
    assert all(module.startswith("app.api.routes.") for modules in served.values() for module in modules)
    assert served["/api/review"] == {"app.api.routes.review"}  # the package's three modules count as one


def test_a_prefix_served_from_two_modules_is_found(routes: list[APIRoute]) -> None:
    """Mutation: a route of /api/cards declared in the exports module (as it once was) is reported."""
    def card_markdown() -> None:
        """A stand-in endpoint."""

    card_markdown.__module__ = "app.api.routes.exports"
    stray = APIRoute("/api/cards/{slug}.md", card_markdown, methods=["GET"])
    assert owners([*routes, stray])["/api/cards"] == {"app.api.routes.cards", "app.api.routes.exports"}

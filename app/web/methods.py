"""Which methods a documented path answers to, taken from the OpenAPI schema the app serves.

Two things the router alone gets wrong: FastAPI makes one route per method, so a 405 carries the
``Allow`` of whichever route matched the path first (``GET`` for ``/api/review/settings``, which also
takes ``PUT``); and a fixed path is taken as a parameter's value by another method's route
(``DELETE /api/users/me`` reached ``DELETE /api/users/{user_id}`` and answered 401/403/422). Here every
405 lists all the methods of the path, and a method a fixed path does not document answers 405.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

# answered by the router as it always was (405 with the Allow below): Starlette handles HEAD itself where
# a route takes it, and no route here takes OPTIONS
PASSED_THROUGH = frozenset({"HEAD", "OPTIONS"})


class PathMethods:
    """The schema's paths: fixed ones by their text, templated ones as patterns, each with its methods."""

    def __init__(self, paths: dict[str, dict[str, Any]]) -> None:
        self.fixed: dict[str, frozenset[str]] = {}
        self.templated: list[tuple[re.Pattern[str], frozenset[str]]] = []
        for path, operations in paths.items():
            methods = frozenset(m.upper() for m in operations if m.lower() != "parameters")
            if "{" not in path:
                self.fixed[path] = methods
            else:
                parts = re.split(r"\{[^}/]+\}", path)
                self.templated.append((re.compile("[^/]+".join(map(re.escape, parts)) + r"\Z"), methods))

    def allowed(self, path: str) -> frozenset[str]:
        """The methods documented for ``path`` (empty if no documented path matches): a fixed path's own,
        else those of every template that matches it."""
        if path in self.fixed:
            return self.fixed[path]
        return frozenset().union(*(methods for pattern, methods in self.templated if pattern.match(path)))


def path_methods(app: Any) -> PathMethods:
    """Built from ``app.openapi()`` on first use, then kept on the app (the schema does not change)."""
    found = getattr(app.state, "path_methods", None)
    if found is None:
        found = app.state.path_methods = PathMethods(app.openapi().get("paths", {}))
    return found


def allow_header(methods: frozenset[str]) -> str:
    return ", ".join(sorted(methods))


class FixedPathMethods:
    """ASGI middleware: a method that a fixed documented path does not list answers 405 with its ``Allow``,
    before any templated route can take the path as a parameter (a dict lookup per request)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in PASSED_THROUGH:
            methods = path_methods(scope["app"]).fixed.get(scope["path"])
            if methods is not None and scope["method"] not in methods:
                response = JSONResponse({"detail": f"{scope['method']} is not allowed here; "
                                                   f"this address takes {allow_header(methods)}"},
                                        status_code=405, headers={"Allow": allow_header(methods)})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

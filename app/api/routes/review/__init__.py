"""``/api/review``: every route under the prefix, in this package (``app.routers`` includes its routers).

- ``answers.py``: the next item, the answer, stats, the follow-up chain, your log, an item's state, settings
- ``daily.py``: the daily loop's undo, regrade, bury / suspend / resume, the held list, intervals, item log
- ``imports.py``: reviews done elsewhere brought in (``/api/review/import/handbook``, ``…/obsidian``)

The answer routes come first: ``GET /next`` and ``POST`` are the hot paths. The three routers are included
into the app side by side, not through a router of the package (FastAPI walks an included router's own
routers as one more level per request).
"""

from __future__ import annotations

from app.api.routes.review import answers, daily, imports

ROUTERS = (answers.router, daily.router, imports.router)

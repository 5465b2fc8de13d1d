"""A JSON response rendered by ``orjson``, for the hot review routes (what they return is plain dicts of
str, int, float, bool and None, already checked by the code that builds them)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


class FastJSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)

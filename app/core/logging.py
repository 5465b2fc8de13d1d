"""The ``proofdeck`` logger: INFO lines on stderr, next to uvicorn's own."""

from __future__ import annotations

import logging

log = logging.getLogger("proofdeck")


def setup_logging(level: int = logging.INFO) -> None:
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     proofdeck: %(message)s"))
        log.addHandler(handler)
        log.setLevel(level)
        log.propagate = False

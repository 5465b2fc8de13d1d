"""Keep the cyclic garbage collector off the request path of a long-running server.

A full collection walks every container object the process holds: the imported libraries, the deck
kept in memory by ``app.review.queue``. On this server that took 40-80 ms, stalling every request in
flight, a few times a minute under load (``bench/review.py`` saw it as the p99). ``gc.freeze()`` moves
the objects alive now into a generation the collector never walks; they are still freed by reference
counting, so only cyclic garbage that exists at that instant is kept. It is called where that set is
small and rare: at the end of start-up and after a deck is loaded (start, sync).
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Exempt every object alive now from future collections (see the module docstring)."""
    gc.freeze()

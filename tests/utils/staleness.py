"""How long another process may serve the old state after a change: asserted by causality, not wall time."""

from __future__ import annotations

import time
from collections.abc import Callable


def seen_within(check: Callable[[], bool], bound: float, changed_at: float) -> None:
    """``check()`` turns true, and no poll *sent* later than ``bound`` s after the change was acknowledged
    (``changed_at``, taken when its response arrived) still saw the old state.

    Load-proof: B handles a poll no earlier than the poll was sent, and B serves the old state only while its
    cached copy (made before the change) is younger than ``bound``. A poll sent past ``changed_at + bound``
    that still sees the old state is a real defect however slowly the machine answers; a slow answer only
    delays the next poll. No assertion on how long the polls themselves take.
    """
    while True:
        sent = time.monotonic()
        if check():
            return
        assert sent - changed_at <= bound, (
            f"a poll sent {sent - changed_at:.2f} s after the change still saw the old state (bound {bound} s)")
        time.sleep(0.05)

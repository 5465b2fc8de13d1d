"""Progress of a run that happens in other processes: ranks append lines to a file the parent follows.

    python -m verify   # rank 0 notes "N=4 zero3" after each variant; the parent's bar advances on each line

A rank calls ``note(text)``; it writes only where the launcher named a file (``VERIFY_PROGRESS_FILE``,
rank 0 only), so tests and torchrun jobs write nothing. The parent reads new lines with ``Follower``.
"""

from __future__ import annotations

import os

ENV = "VERIFY_PROGRESS_FILE"


def note(text: str) -> None:
    """Append one line of progress (a no-op unless the launcher set ``VERIFY_PROGRESS_FILE``)."""
    path = os.environ.get(ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(text.replace("\n", " ") + "\n")


class Follower:
    """Reads the lines appended to ``path`` since the last call."""

    def __init__(self, path: str) -> None:
        self.path, self.offset = path, 0

    def new_lines(self) -> list[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]  # a line still being written waits for the next call
        self.offset += len(complete)
        return complete.decode("utf-8").splitlines()

"""Progress of a run that happens in other processes: ranks append lines to a file the parent follows.

    python -m verify   # rank 0 notes "N=4 zero3" after each variant; the parent's bar advances on each line

A rank calls ``note(text)``; it writes only where the launcher named a file (``VERIFY_PROGRESS_FILE``,
rank 0 only), so tests and torchrun jobs write nothing. The parent reads new lines with ``Follower``.

A process that runs ``python -m verify`` (``proofdeck verify`` when its output is a log, not a terminal)
names a second file in ``VERIFY_PROGRESS_ECHO``: rank 0 appends the same lines there too, and that process
follows it with its own ``Follower`` to print plain progress lines (the sweep's bars are drawn only on a
terminal).
"""

from __future__ import annotations

import os

ENV = "VERIFY_PROGRESS_FILE"
ECHO_ENV = "VERIFY_PROGRESS_ECHO"


def note(text: str) -> None:
    """Append one line of progress (a no-op unless the launcher set ``VERIFY_PROGRESS_FILE``)."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = text.replace("\n", " ") + "\n"
    for target in (path, os.environ.get(ECHO_ENV)):
        if target:
            with open(target, "a", encoding="utf-8") as f:
                f.write(line)


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

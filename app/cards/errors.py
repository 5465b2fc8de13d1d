"""One error type for every card-file problem: which file, where, what, and how to fix it."""

from __future__ import annotations


class CardFileError(ValueError):
    """A card source file (or raw bank export) that cannot be read.

    ``str(err)`` is one line: ``path:line: what is wrong (how to fix it)``.
    """

    def __init__(self, path: str, message: str, *, line: int | None = None, hint: str = "") -> None:
        self.path = path
        self.line = line
        self.message = message
        self.hint = hint
        where = f"{path}:{line}" if line is not None else path
        text = f"{where}: {message}"
        if hint:
            text += f" ({hint})"
        super().__init__(text)

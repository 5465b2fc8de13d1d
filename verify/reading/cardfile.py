"""The one reader of card files (Markdown with YAML front matter), for the app and for verify/ alike.

    python -c "from verify.reading.cardfile import read_card; print(read_card('cards/zero-sharding.md').meta['slug'])"

Bytes → text: UTF-8, a byte-order mark accepted, CRLF and CR made LF. Text → front matter and body: a ``---``
line first, the YAML mapping (libyaml's safe loader where the wheel has it), the next ``---`` line, then the
Markdown body. Every problem is a :class:`CardFileError` saying which file, which line, what and how to fix
it. Pure Python (no torch, no app imports): ``app.cards`` validates the document on top of it, ``verify``
reads the claims from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

FENCE = "---"
MAX_FILE_BYTES = 2_000_000
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # ten times faster than pure Python, same semantics


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


@dataclass(frozen=True)
class CardText:
    """A card file split: its front matter, its Markdown body and the body's first line number (1-based)."""

    meta: dict[str, Any]
    body: str
    body_line: int


def decode(data: bytes, path: str) -> str:
    """UTF-8 (a BOM is fine) with CRLF and CR normalised to LF; anything else is a clear error."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CardFileError(path, f"not valid UTF-8 (byte {exc.start} is 0x{data[exc.start]:02x})", line=line,
                            hint="save the file as UTF-8") from None
    return normalise(text)


def normalise(text: str) -> str:
    """Text as if decoded by :func:`decode`: no BOM, LF line ends."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def read_bytes(path: Path) -> bytes:
    """The file's bytes; a file over ``MAX_FILE_BYTES`` is refused before it is read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise CardFileError(str(path), f"file is {size} bytes, more than {MAX_FILE_BYTES}",
                                hint="a card file is text; split it or remove what does not belong")
        return path.read_bytes()
    except OSError as exc:
        raise CardFileError(str(path), f"cannot read: {exc.strerror}") from None


def read_text(path: Path | str) -> str:
    """The decoded text of the card file at ``path``."""
    return decode(read_bytes(Path(path)), str(path))


def split(text: str, path: str) -> CardText:
    """The front matter mapping, the body and the line where the body starts (of text as :func:`decode` gives)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise CardFileError(path, "missing YAML front matter", line=1, hint="start the file with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise CardFileError(path, "front matter is not closed", line=1,
                            hint="end the YAML block with a '---' line") from None
    try:
        meta = yaml.load("\n".join(lines[1:end]), Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CardFileError(path, f"invalid YAML in front matter: {problem}", line=line) from None
    if not isinstance(meta, dict):
        raise CardFileError(path, "front matter must be a YAML mapping (key: value lines)", line=2)
    return CardText(meta, "\n".join(lines[end + 1:]), end + 2)


def read_card(path: Path | str) -> CardText:
    """:func:`split` of :func:`read_text`."""
    return split(read_text(path), str(path))

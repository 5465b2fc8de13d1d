"""Safe export file names: what a card title may become on disk, and a guard that keeps every
written path inside its export folder.

Obsidian links by file name, so names also drop the characters that break ``[[wikilinks]]``
(``# ^ [ ] |`` and ``%%``); the real title stays in the note's ``aliases``.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

# OS-forbidden (* " \ / < > : | ?), Obsidian link syntax (# ^ [ ]), math and code delimiters ($ `: a name sits
# in a [[link]] on a line with other text) and control characters.
_FORBIDDEN = re.compile(r'[*"\\/<>:|?#^\[\]$`\x00-\x1f\x7f-\x9f]')
# Windows device names, also with an extension ("nul.txt"); the superscript digits count too.
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
                       *(f"{dev}{i}" for dev in ("COM", "LPT") for i in (*"0123456789", "¹", "²", "³"))})
# Invisible format characters (bidi overrides that make "exe.txt" read "txt.exe", zero-width joiners).
_FORMAT = re.compile(r"[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")
MAX_NAME_BYTES = 120  # leaves room for " 99" and ".md" under the common 255-byte limit


class UnsafePathError(ValueError):
    """A path that would land outside the export folder."""


def safe_name(title: str, *, fallback: str = "untitled", max_bytes: int = MAX_NAME_BYTES) -> str:
    """A file name (without extension) for ``title`` that is valid on Windows, macOS, Linux and
    in an Obsidian link; never empty, never ``.``/``..``, never a reserved device name."""
    name = unicodedata.normalize("NFC", title)
    name = _FORBIDDEN.sub(" ", _FORMAT.sub("", name))
    while "%%" in name:
        name = name.replace("%%", "%")
    name = re.sub(r"={2,}", "=", name)  # '==' is a highlight (a cloze card) next to the link
    name = re.sub(r"\.{2,}", ".", name)  # no '..' anywhere
    name = re.sub(r"\s+", " ", name).strip()
    name = name.lstrip(". ").rstrip(". ")
    name = _truncate(name, max_bytes).rstrip(". ")
    if not name:
        name = _truncate(_FORBIDDEN.sub("", fallback), max_bytes) or "untitled"
    base, dot, rest = name.partition(".")
    if base.strip().upper() in _RESERVED:  # Windows reserves "AUX" and "AUX.anything"
        name = f"{base.rstrip()}_{dot}{rest}"
    return name


def _truncate(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore").rstrip()


class NameAllocator:
    """Hands out unique names (case-insensitively, as on macOS and Windows): ``Title``, ``Title 2``..."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, wanted: str) -> str:
        name, n = wanted, 1
        while name.casefold() in self._taken:
            n += 1
            name = f"{_truncate(wanted, MAX_NAME_BYTES - len(str(n)) - 1)} {n}"
        self._taken.add(name.casefold())
        return name


def safe_join(root: Path, relative: str) -> Path:
    """``root / relative`` resolved; raises :class:`UnsafePathError` if it is not inside ``root``."""
    base = root.resolve()
    if relative.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relative):
        raise UnsafePathError(f"absolute export path {relative!r}; export paths must be relative")
    if "\x00" in relative:
        raise UnsafePathError(f"export path {relative!r} holds a NUL byte")
    target = (base / relative.replace("\\", "/")).resolve()  # a backslash separates on Windows
    if target == base or not target.is_relative_to(base):
        raise UnsafePathError(f"export path {relative!r} resolves to {target}, outside {base}")
    return target

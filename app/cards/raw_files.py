"""Reading raw files and writing card files: which files an import reads, and an all-or-nothing write."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from verify.reading.cardfile import CardFileError

RAW_SUFFIX = ".txt"


def _file_mode() -> int:
    """0o666 less the process umask: what ``open()`` would have given (mkstemp gives 0o600)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def raw_files(paths: Iterable[Path]) -> tuple[list[Path], list[CardFileError]]:
    """Files named directly, plus every ``*.txt`` in named folders (recursively), in order."""
    found: list[Path] = []
    errors: list[CardFileError] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob(f"*{RAW_SUFFIX}") if p.is_file())
            if not inside:
                errors.append(CardFileError(str(path), f"folder has no {RAW_SUFFIX} files"))
            found += inside
        elif path.is_file():
            found.append(path)
        else:
            errors.append(CardFileError(str(path), "no such file or folder"))
    return found, errors


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_raw(source: Path) -> bytes:
    try:
        return source.read_bytes()
    except OSError as exc:
        raise CardFileError(str(source), f"cannot read: {exc.strerror}") from None

"""The headers of an answer that is a file (a card's note, the vault zip, the handbook): its name for the
browser's save dialog, ASCII and, when they differ, UTF-8 (RFC 6266), and no content sniffing."""

from __future__ import annotations

from urllib.parse import quote


def disposition(kind: str, ascii_name: str, name: str | None = None) -> dict[str, str]:
    value = f'{kind}; filename="{ascii_name}"'
    if name and name != ascii_name:
        value += f"; filename*=UTF-8''{quote(name)}"
    return {"Content-Disposition": value, "X-Content-Type-Options": "nosniff"}

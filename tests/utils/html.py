"""Structural checks on HTML: what a browser would treat as script, event handler or script URL."""

from __future__ import annotations

import re
from html.parser import HTMLParser

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "background", "poster", "data"}
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


def unsafe_markup(html: str, *, allow_inline_script: bool = False) -> list[str]:
    """Every problem found: a <script>/<iframe>/<object>/<embed>/<style> element, an ``on*`` attribute,
    a ``style`` attribute, or a URL attribute whose scheme (entities decoded, controls stripped, any
    case) is javascript:, vbscript: or data:text."""
    parser = _Collector()
    parser.feed(html)
    parser.close()
    problems = []
    for tag, attrs in parser.tags:
        if tag in {"iframe", "object", "embed", "style", "base", "frame", "applet"} or (
                tag == "script" and not allow_inline_script):
            problems.append(f"<{tag}> element")
        for name, value in attrs:
            if name.startswith("on"):
                problems.append(f"<{tag} {name}=...> event handler")
            if name == "style":
                problems.append(f"<{tag} style=...> attribute")
            if name in URL_ATTRIBUTES and value is not None:
                url = _CONTROL.sub("", value).lower()
                if url.startswith(("javascript:", "vbscript:", "data:text")):
                    problems.append(f"<{tag} {name}={value!r}> script URL")
    return problems


def assert_safe(html: str, *, allow_inline_script: bool = False) -> None:
    """No script, event handler or script URL in ``html`` (by parsing it, and by plain text search)."""
    problems = unsafe_markup(html, allow_inline_script=allow_inline_script)
    assert problems == [], problems
    if not allow_inline_script:
        assert "<script" not in html.lower()
    assert not re.search(r"""<[^>]*\shref\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)

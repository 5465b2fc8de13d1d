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


# Elements card text must never produce; pages carry their own <form>s and the handbook its CSP <meta>,
# which callers allow explicitly.
FORBIDDEN_ELEMENTS = {"iframe", "frame", "frameset", "object", "embed", "applet", "base", "style", "link",
                      "form", "meta", "portal"}


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self._script: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attr))
        if tag == "script":
            self._script, self._text = attr, []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def script_url(value: str) -> bool:
    """Whether a URL attribute value runs script once a browser reads it (entities are already decoded
    by the parser; tabs, newlines and controls anywhere are dropped, as the URL parser does)."""
    return _CONTROL.sub("", value).lower().startswith(("javascript:", "vbscript:", "data:text", "data:application"))


Element = tuple[str, tuple[tuple[str, str], ...]]


def element(tag: str, **attrs: str) -> Element:
    """An element as ``markup_report`` compares it (``http_equiv=`` for ``http-equiv=``, ``class_=`` for ``class=``)."""
    return tag, tuple(sorted((k.rstrip("_").replace("_", "-"), v) for k, v in attrs.items()))


def markup_report(html: str, *, allowed: frozenset[Element] = frozenset()
                  ) -> tuple[list[tuple[dict[str, str], str]], list[str]]:
    """(the ``<script>`` elements as (attributes, text), every other problem): event handlers,
    ``style``/``srcdoc`` attributes, script URLs and forbidden elements other than the ``allowed``
    ones a page carries itself (compared with all their attributes, e.g. ``element("form",
    method="post", action="/logout", class_="logout")``)."""
    parser = _Markup()
    parser.feed(html)
    parser.close()
    problems = []
    for tag, attrs in parser.elements:
        if tag in FORBIDDEN_ELEMENTS and (tag, tuple(sorted(attrs.items()))) not in allowed:
            problems.append(f"<{tag} {attrs}> element")
        for name, value in attrs.items():
            if name.startswith("on") or name in {"srcdoc", "style"}:
                problems.append(f"<{tag} {name}={value!r}> attribute")
            if name in URL_ATTRIBUTES and script_url(value):
                problems.append(f"<{tag} {name}={value!r}> script URL")
    return parser.scripts, problems

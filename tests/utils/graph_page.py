"""The /graph page in Chromium: opening it with every request to another host aborted, and the checks the
graph tests share (a node centred on the canvas, a click on a node where it is drawn)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

# the node (its box, label included) is in the middle of the canvas
CENTRED = """slug => { const cy = proofdeckGraph, b = cy.getElementById(slug).renderedBoundingBox();
                        return Math.abs((b.x1 + b.x2) / 2 - cy.width() / 2) < 2
                            && Math.abs((b.y1 + b.y2) / 2 - cy.height() / 2) < 2; }"""


def open_graph(browser: Any, base: str) -> tuple[Any, Any, list[str], list[str]]:
    """/graph in a fresh context where any request to another host is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    ours = urlsplit(base).netloc
    outside: list[str] = []
    problems: list[str] = []

    def route(r: Any) -> None:
        if urlsplit(r.request.url).netloc == ours:
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"{base}/graph")
    page.wait_for_function("window.proofdeckGraph !== undefined")
    return context, page, outside, problems


def click_node(page: Any, slug: str) -> None:
    """Focus ``slug`` by the search box (centred and enlarged, so nothing covers it), then click where it is drawn."""
    page.fill("#graph-search", slug)
    page.wait_for_function(CENTRED, arg=slug, timeout=10_000)
    box = page.locator("#graph").bounding_box()
    pos = page.evaluate("s => proofdeckGraph.getElementById(s).renderedPosition()", slug)
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])

"""``/graph`` in Chromium on the bundled deck: cytoscape (served from /static, no CDN) draws one node per
card of ``/api/graph``, the search box focuses a card and Enter opens it, a click on a node opens its card
page, the module filter hides the other modules, and no request leaves the server."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.utils.graph_page import CENTRED, click_node, open_graph

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.backend_agnostic("a page drawn in Chromium from /api/graph's data; "
                                          "the graph itself runs on both backends in tests/api")
@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """The bundled deck (tests/pages/conftest.py serves the small fixture deck elsewhere)."""
    return Path(shutil.copytree(ROOT / "cards", tmp_path / "cards"))


@pytest.mark.browser
def test_graph_draws_searches_and_opens_cards(live_server: str, browser: Any) -> None:
    from playwright.sync_api import expect

    api = httpx.get(f"{live_server}/api/graph").json()
    assert len(api["nodes"]) > 10 and api["edges"]
    context, page, outside, problems = open_graph(browser, live_server)
    try:
        assert page.evaluate("proofdeckGraph.nodes().length") == len(api["nodes"])
        assert page.evaluate("proofdeckGraph.edges().length") == len(api["edges"])
        drawn = page.evaluate("proofdeckGraph.nodes().map(n => n.id())")
        assert sorted(drawn) == sorted(n["slug"] for n in api["nodes"])
        # the plain list: one link per card, for keyboards and no-JS browsers
        expect(page.locator("#graph-cards li a")).to_have_count(len(api["nodes"]))
        # coloured by module: as many colours as modules (up to the palette's 12)
        colours = set(page.evaluate("proofdeckGraph.nodes().map(n => n.style('background-color'))"))
        modules = {n["module"]["code"] for n in api["nodes"]}
        assert len(colours) == min(len(modules), 12) and len(modules) > 1

        # search by English title: that card is selected and centred
        target = api["nodes"][len(api["nodes"]) // 2]
        page.fill("#graph-search", target["title"]["en"])
        assert page.evaluate("proofdeckGraph.nodes(':selected').map(n => n.id())") == [target["slug"]]
        page.wait_for_function(
            CENTRED,
            arg=target["slug"], timeout=10_000)
        # labels in one language: the node's label is its zh title
        page.select_option("#graph-lang", "zh")
        assert page.evaluate("s => proofdeckGraph.getElementById(s).data('label')",
                             target["slug"]) == (target["title"]["zh"] or target["title"]["en"])
        # Enter in the search box opens the focused card
        page.press("#graph-search", "Enter")
        page.wait_for_url(f"{live_server}/cards/{target['slug']}")

        # a click on a node (at its drawn position) opens its card page
        page.goto(f"{live_server}/graph")
        page.wait_for_function("window.proofdeckGraph !== undefined")
        other = api["nodes"][0]
        click_node(page, other["slug"])
        page.wait_for_url(f"{live_server}/cards/{other['slug']}")

        # the module filter hides every other module's nodes and list rows
        page.goto(f"{live_server}/graph")
        page.wait_for_function("window.proofdeckGraph !== undefined")
        code = other["module"]["code"]
        page.select_option("#graph-module", code)
        visible = page.evaluate("proofdeckGraph.nodes(':visible').map(n => n.id())")
        assert sorted(visible) == sorted(n["slug"] for n in api["nodes"] if n["module"]["code"] == code)
        expect(page.locator("#graph-cards li:visible")).to_have_count(len(visible))

        assert outside == [], outside
        assert problems == [], problems[:2]  # a CSP violation or a script error is reported here
    finally:
        context.close()

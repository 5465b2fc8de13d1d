"""``/graph`` in Chromium at 1,000 generated cards (harness/deckgen.py, written once for the module): every card
is a drawn node with its links, the search box focuses (selects and centres) a card found by title, and a click
on a node where it is drawn opens that card's page; no request leaves the server.

The cards are the generator's, with one-line sections and no claims: the graph shows titles, modules and links,
and the deck template's sync of 1,000 full cards (their claims' asserts linted) would cost this test ~20 s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cards.cardfile import dump_card
from app.cards.schema import LangText
from harness.deckgen import generated_card
from tests.utils.graph_page import CENTRED, click_node, open_graph

N = 1000

pytestmark = pytest.mark.backend_agnostic("a page drawn in Chromium from /api/graph's data; "
                                          "the graph itself runs on both backends in tests/api")


@pytest.fixture(scope="module")
def thousand_cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("graph-1000") / "cards"
    folder.mkdir()
    for i in range(N):
        doc = generated_card(i, N)
        doc = doc.model_copy(update={"claims": [], "follow_ups": doc.follow_ups[:1], "sections": {
            key: LangText(zh=f"卡片 {i}：{key}。", en=f"Card {i}: {key}.") for key in doc.sections}})
        (folder / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
    return folder


@pytest.fixture
def cards_dir(thousand_cards: Path) -> Path:
    return thousand_cards  # read, never written, by the live server


@pytest.mark.browser
def test_graph_at_1000_cards(live_server: str, browser: Any) -> None:
    api = httpx.get(f"{live_server}/api/graph").json()
    assert len(api["nodes"]) == N and len(api["edges"]) >= N
    context, page, outside, problems = open_graph(browser, live_server)
    try:
        assert page.evaluate("proofdeckGraph.nodes().length") == N
        assert page.evaluate("proofdeckGraph.edges().length") == len(api["edges"])
        # drawn: every node has a place on the canvas, and they do not all sit on one spot
        spots = page.evaluate("new Set(proofdeckGraph.nodes().map(n => { const p = n.position();"
                              " return Math.round(p.x) + ',' + Math.round(p.y); })).size")
        assert spots == N
        # search by an English title focuses that card only
        target = next(n for n in api["nodes"] if n["slug"] == "card-0617")
        page.fill("#graph-search", target["title"]["en"])
        assert page.evaluate("proofdeckGraph.nodes(':selected').map(n => n.id())") == ["card-0617"]
        page.wait_for_function(CENTRED, arg="card-0617", timeout=10_000)
        assert "card-0617" in (page.text_content("#graph-focus") or "")
        # a click on another node, where it is drawn, opens its card page
        click_node(page, "card-0042")
        page.wait_for_url(f"{live_server}/cards/card-0042")
        assert outside == [], outside
        assert problems == [], problems[:2]
    finally:
        context.close()

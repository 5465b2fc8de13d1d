"""Snippets never turn card text into markup: the XSS corpus (tests/utils/xss.py), highlighted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.search.snippet import make_snippet
from app.search.text import tokens
from tests.utils.cards import write_cards
from tests.utils.html import markup_report
from tests.utils.xss import PAYLOADS, hostile_card

QUERIES = ["script onerror javascript", "img src x alert", "iframe srcdoc parent", "svg onload", "href vbscript msgbox",
           "style background url", "textarea title", "onmouseover autofocus", "中文 标签 script", "c1 sound anki",
           "&lt;script&gt; &#60;img", "<script>", "\" onmouseover=\"", "mark /mark"]


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    return write_cards(tmp_path / "cards", hostile_card("hostile-a"), hostile_card("hostile-b", PAYLOADS[::-1]))


def only_marks(html: str) -> None:
    scripts, problems = markup_report(html)
    assert scripts == [] and problems == [], (scripts, problems)
    assert "<" not in html.replace("<mark>", "").replace("</mark>", ""), html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_payload_highlighted_stays_text(payload: str) -> None:
    for text in (payload, f"前文 {payload} 后文", payload * 3):
        snippet = make_snippet(text, tokens(payload) + tokens("script mark"))
        only_marks(snippet.html)


def test_api_snippets_of_hostile_cards_are_text(client: TestClient) -> None:
    seen = 0
    for q in QUERIES:
        r = client.get("/api/match", params={"q": q, "limit": 5})
        assert r.status_code == 200
        for hit in r.json()["data"]:
            only_marks(hit["snippet"]["html"])
            seen += len(hit["snippet"]["offsets"])
    assert seen > 30  # the payloads were found and highlighted


def test_the_ranked_page_shows_hostile_snippets_as_text(client: TestClient) -> None:
    for q in QUERIES[:6]:
        page = client.get("/", params={"q": q}).text
        snippets = re.findall(r'<p class="snippet" lang="\w+">(.*?)</p>', page, re.DOTALL)
        assert snippets, q
        for s in snippets:
            only_marks(s)

"""GET / on a large deck folds each topic to a link (``app/pages/deck_outline.py``): module → topic → count,
each count opening the page filtered to that topic, which lists its cards; search and filters work as before.
``FOLD_AT`` is lowered so that the bundled deck counts as large."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.pages import routes


def test_a_large_deck_lists_topics_whose_links_list_their_cards(client: TestClient,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    full = client.get("/").text
    listed = set(re.findall(r'<a class="card-link" href="/cards/([^"]+)"', full))
    assert listed and 'class="topic-fold"' not in full  # a small deck: every card listed
    monkeypatch.setattr(routes, "FOLD_AT", 2)
    folded = client.get("/").text
    assert 'class="card-link"' not in folded
    topics = re.findall(r'<a class="topic-cards" href="([^"]+)"><span lang="zh">(\d+) 张卡片', folded)
    assert len(topics) > 1 and sum(int(n) for _, n in topics) == len(listed)
    seen: set[str] = set()
    for href, n in topics:
        page = client.get(unescape(href))
        assert page.status_code == 200
        cards = re.findall(r'<a class="card-link" href="/cards/([^"]+)"', page.text)
        assert len(cards) == int(n), href
        seen.update(cards)
    assert seen == listed  # every card is one topic link away
    assert len(re.findall(r'class="study-topic small" href="/quiz/study\?cards=[^"]+"', folded)) == len(topics)
    slug = sorted(listed)[0]
    title = client.get(f"/api/cards/{slug}").json()["title"]["en"]
    hits = client.get("/", params={"q": title}).text
    assert f'href="/cards/{slug}"' in hits  # the search box still finds a card by its title

"""The LLM-systems canon cards (issue 19): complete in both languages, every formula renders, each links to at
least two cards of the deck, the deck's graph stays connected, claims cover the cards' numbers, drills exist."""

from __future__ import annotations

from collections import deque

import pytest

from app.cards.cardfile import load_card_file
from app.cards.schema import SECTION_KEYS, CardDoc
from app.render.math import math_problems
from tests.utils.starter import CARDS
from verify.judge.statements.coverage import card_coverage
from verify.known.drills import answer, drills_for_card, new_params

CANON_B = ("sequence-parallelism", "expert-parallelism-moe", "3d-parallelism", "gradient-accumulation",
           "nccl-ring-vs-tree", "paged-kv-cache-continuous-batching", "speculative-decoding",
           "tp-inference-communication", "sharded-checkpointing", "checkpoint-interval-young-daly")
def _deck() -> dict[str, CardDoc]:
    docs = [load_card_file(p) for p in sorted(CARDS.glob("*.md")) if p.name.lower() != "readme.md"]
    return {d.slug: d for d in docs}


@pytest.fixture(scope="module")
def deck() -> dict[str, CardDoc]:
    return _deck()


@pytest.mark.parametrize("slug", CANON_B)
def test_card_is_complete_in_both_languages(slug: str, deck: dict[str, CardDoc]) -> None:
    doc = deck[slug]
    for key in SECTION_KEYS:
        assert doc.section(key).zh.strip() and doc.section(key).en.strip(), f"{slug}: empty {key}"
    assert len(doc.follow_ups) >= 3
    for f in doc.follow_ups:
        assert f.question.zh and f.question.en and f.answer.zh and f.answer.en, f"{slug}: {f.id}"
    assert len(doc.claims) >= 5
    for c in doc.claims:
        assert c.text.zh and c.text.en and (c.asserts or c.unverifiable), f"{slug}: {c.id}"
    texts = [getattr(doc.section(k), lang) for k in SECTION_KEYS for lang in ("zh", "en")]
    texts += [t for f in doc.follow_ups for t in (f.question.zh, f.question.en, f.answer.zh, f.answer.en)]
    assert [p for t in texts for p in math_problems(t)] == []


@pytest.mark.parametrize("slug", CANON_B)
def test_links_reach_two_cards_of_the_deck(slug: str, deck: dict[str, CardDoc]) -> None:
    links = deck[slug].links
    present = [link.slug for link in links if link.slug in deck]
    assert len(present) >= 2, f"{slug} links to {present} in the deck"
    for link in links:
        assert link.slug in deck, f"{slug} links to unknown {link.slug!r}"
        assert link.title.zh and link.title.en


def test_the_deck_graph_is_connected(deck: dict[str, CardDoc]) -> None:
    edges: dict[str, set[str]] = {s: set() for s in deck}
    for slug, doc in deck.items():
        for link in doc.links:
            if link.slug in deck:
                edges[slug].add(link.slug)
                edges[link.slug].add(slug)
    start = "zero-sharding"
    seen, todo = {start}, deque([start])
    while todo:
        for nxt in edges[todo.popleft()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    assert seen == set(deck), f"not reachable from {start}: {sorted(set(deck) - seen)}"


@pytest.mark.parametrize("slug", CANON_B)
def test_claims_cover_the_cards_numbers(slug: str) -> None:
    cov = card_coverage(CARDS / f"{slug}.md")
    assert cov.ratio >= 0.9, f"{slug}: {len(cov.judged)}/{len(cov.found)}, unchecked {cov.unchecked}"


@pytest.mark.parametrize("slug", CANON_B)
def test_each_card_has_computed_drills(slug: str) -> None:
    drills = drills_for_card(slug)
    assert drills, slug
    for d in drills:
        a, b = answer(d.key, new_params(d.key, seed=1)), answer(d.key, new_params(d.key, seed=2))
        assert a > 0 and b > 0

"""The starter deck: eight cards around the ZeRO seed load cleanly, render every formula, link up."""

from __future__ import annotations

import re
from collections import deque

import pytest

from app.cards.cardfile import load_card_file
from app.cards.schema import SECTION_KEYS, CardDoc
from app.render.math import math_problems
from tests.utils.starter import CARDS, SEED, STARTER

# The seed's "关联底层卡片" line, as the raw bank export writes it: zh title(en title).
SEED_LINK = (
    "分布式并行基础：DDP 数据并行、Ring All-Reduce 与 ZeRO 显存切分"
    "(Distributed Training: DDP, Ring All-Reduce & ZeRO Memory)"
)


def _load(slug: str) -> CardDoc:
    return load_card_file(CARDS / f"{slug}.md")


@pytest.mark.parametrize("slug", STARTER)
def test_card_loads_and_is_complete(slug: str) -> None:
    doc = _load(slug)  # warnings are errors under pytest's config
    assert doc.slug == slug
    assert doc.module.code == "M3" and doc.topic.en == "Distributed Training Basics"
    for key in SECTION_KEYS:
        assert doc.section(key).zh.strip() and doc.section(key).en.strip(), f"{slug}: empty {key}"
    assert len(doc.follow_ups) >= 3
    for f in doc.follow_ups:
        assert f.question.zh and f.question.en and f.answer.zh and f.answer.en, f"{slug}: {f.id}"
    assert doc.claims, slug
    for c in doc.claims:
        assert c.text.zh and c.text.en and (c.asserts or c.unverifiable), f"{slug}: {c.id}"
        assert c.section in (*SECTION_KEYS, "follow_ups"), f"{slug}: {c.id}"


@pytest.mark.parametrize("slug", STARTER)
def test_every_formula_renders_as_mathml(slug: str) -> None:
    doc = _load(slug)
    texts = [getattr(doc.section(k), lang) for k in SECTION_KEYS for lang in ("zh", "en")]
    texts += [t for f in doc.follow_ups for t in (f.question.zh, f.question.en, f.answer.zh, f.answer.en)]
    texts += [t for c in doc.claims for t in (c.text.zh, c.text.en)]
    problems = [p for t in texts for p in math_problems(t)]
    assert problems == []


def test_seed_link_resolves_to_card_one() -> None:
    zh, en = re.fullmatch(r"(.+)\((.+)\)", SEED_LINK).groups()  # type: ignore[union-attr]
    doc = _load("ddp-ring-allreduce")
    assert (doc.title.zh, doc.title.en) == (zh, en)


def test_graph_connects_the_seed_and_all_eight() -> None:
    edges: dict[str, set[str]] = {s: set() for s in (*STARTER, SEED)}
    edges[SEED].add("ddp-ring-allreduce")  # the seed's link, by title (test above)
    for slug in STARTER:
        for link in _load(slug).links:
            assert link.slug in edges, f"{slug} links to unknown {link.slug!r}"
            edges[slug].add(link.slug)
            edges[link.slug].add(slug)
    seen, todo = {SEED}, deque([SEED])
    while todo:
        for nxt in edges[todo.popleft()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    assert seen == set(edges)

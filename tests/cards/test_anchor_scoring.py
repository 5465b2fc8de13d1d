"""Link anchors scored through the word → summaries index pick what scoring every anchor against every card picks.

``anchors_for`` scores only the cards whose summary has one of an anchor's rarest words (the others cannot be
the best nor a close second); this compares it with the plain definition (every card scored, a descending sort
of (share, card), the best two) on random decks with a small vocabulary, so anchors, ties, near-ties and cards
owning the link all occur."""

from __future__ import annotations

import random

from app.cards import subject_titles
from app.cards.schema import CardDoc, LangText, Link
from app.cards.subject_titles import ANCHOR_MARGIN, ANCHOR_SHARE, anchors_for

WORDS = "alpha beta gamma delta zero stage shard memory adam lora rank quant kernel cache flash page ring tree".split()


def every_card_scored(docs: list[CardDoc]) -> dict[int, tuple[LangText, int]]:
    """The definition: each new anchor against every card's summary (re-exports with one summary count once)."""
    groups: dict[str, list[int]] = {}
    for j, d in enumerate(docs):
        groups.setdefault(subject_titles._squashed(d.sections["summary"]), []).append(j)
    members = list(groups.values())
    summaries = [subject_titles._words(docs[g[0]].sections["summary"].en)
                 | subject_titles._words(docs[g[0]].sections["summary"].zh) for g in members]
    own = [{(lk.title.zh, lk.title.en) for j in g for lk in docs[j].links} for g in members]
    found: dict[int, tuple[float, LangText, int]] = {}
    seen: set[tuple[str, str]] = set()
    for i, doc in enumerate(docs):
        for link in doc.links:
            key = (link.title.zh, link.title.en)
            words = subject_titles._anchor_words(link.title)
            if key in seen or len(words) < 2:
                continue
            seen.add(key)
            scores = sorted(((len(words & summaries[g]) / len(words), g) for g in range(len(members))
                             if key not in own[g]), reverse=True)
            if not scores or scores[0][0] < ANCHOR_SHARE:
                continue
            if len(scores) > 1 and scores[0][0] - scores[1][0] < ANCHOR_MARGIN:
                continue
            share, g = scores[0]
            for j in members[g]:
                if j not in found or found[j][0] < share:
                    found[j] = (share, link.title, i)
    return {j: (title, by) for j, (_, title, by) in found.items()}


def random_deck(rng: random.Random) -> list[CardDoc]:
    def phrase(lo: int, hi: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))

    docs = []
    for i in range(rng.randint(1, 30)):
        links = [Link(title=LangText(zh=f"卡 {rng.randint(0, 4)}", en=phrase(2, 6))) for _ in range(rng.randint(0, 3))]
        summary = LangText(zh=f"摘要 {rng.choice(WORDS)}", en=phrase(1, 9))
        docs.append(CardDoc(slug=f"c{i}", title=LangText(zh=f"卡片 {i}", en=f"card {i}"),
                            sections={"summary": summary}, links=links))
    return docs


def test_indexed_scoring_picks_what_scoring_every_card_picks() -> None:
    rng = random.Random(20261204)
    anchors = 0
    for _ in range(300):
        docs = random_deck(rng)
        expected = every_card_scored(docs)
        assert anchors_for(docs) == expected
        anchors += len(expected)
    assert anchors > 100  # the decks do name cards: the comparison is not between two empty results

"""The compact index the offline handbook ships: ``templates/match.js`` ranks with it, no network.

Built from the card files with :func:`app.search.index.index_cards` (the same tokens, glossary, field
weights and bm25s weights as the server), so the handbook ranks as ``GET /api/match?lang=both`` does.
Shipped as JSON in a ``<script type="application/json">`` block (data, never executed), with ``<``
escaped so card text cannot close the block.

Each token's postings (card or unit number, BM25 weight) are one string of base-32 digits (:func:`packed`):
the gap to the previous number and the weight times 10^:data:`DIGITS`, each a run of continuation digits
ended by a final digit. At 1,000 cards that is 1.4 MB instead of 3.7 MB of ``[0,1.7946,1,1.8296,…]``, with
the same weights: ``templates/match.js`` divides by ``scale`` and gets the double the decimal would parse to.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from app.cards.schema import CardDoc
from app.search.glossary import pattern, term_groups
from app.search.index import Bm25, CardRow, CardText, index_cards
from app.search.match import UNIT_WEIGHT
from app.search.text import stopwords

DIGITS = 4  # BM25 weights are rounded to this many decimals (ranks as the server on the evaluation set)


def card_text(doc: CardDoc) -> CardText:
    row = CardRow(0, doc.slug, doc.title.zh, doc.title.en, doc.module.code, doc.module.zh, doc.module.en,
                  doc.topic.code, doc.topic.zh, doc.topic.en, doc.difficulty, tuple(doc.tags))
    return CardText(row, tuple((key, t.zh, t.en) for key, t in doc.sections.items()),
                    tuple((f.id, f.question.zh, f.question.en, f.answer.zh, f.answer.en) for f in doc.follow_ups))


# 64 characters JSON and HTML leave alone: the first 32 end a number, the last 32 continue it.
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
FINAL, MORE = ALPHABET[:32], ALPHABET[32:]


def _digits(n: int) -> str:
    groups = [FINAL[n & 31]]
    n >>= 5
    while n:
        groups.append(MORE[n & 31])
        n >>= 5
    return "".join(reversed(groups))


_SMALL = tuple(_digits(n) for n in range(1 << 15))  # every gap and most weights × 10^4: three digits or fewer


def packed(posts: Sequence[tuple[int, float]], weights: dict[float, str] | None = None) -> str:
    """One token's postings as gaps between the sorted numbers and weights × 10^DIGITS, in base-32 digits.
    ``weights``: the digits of each weight seen so far (BM25 weights repeat: the same term frequency and
    length give the same weight), shared by the calls for one index."""
    out: list[str] = []
    add = out.append
    seen = {} if weights is None else weights
    small, many = _SMALL, len(_SMALL)  # half a million postings at 1,000 cards
    last = 0
    for doc, weight in sorted(posts):
        digits = seen.get(weight)
        if digits is None:
            digits = seen[weight] = _weight_digits(weight)
        gap = doc - last
        add(small[gap] if gap < many else _digits(gap))
        add(digits)
        last = doc
    return "".join(out)


def _weight_digits(weight: float) -> str:
    scaled = round(round(weight, DIGITS) * 10**DIGITS)
    if scaled < 0:
        raise ValueError(f"negative BM25 weight {weight}")
    return _SMALL[scaled] if scaled < len(_SMALL) else _digits(scaled)


def _flat(bm25: Bm25) -> dict[str, str]:
    weights: dict[float, str] = {}
    return {tok: packed(posts, weights) for tok, posts in sorted(bm25.postings().items())}


def offline_index(docs: Sequence[CardDoc]) -> dict[str, Any]:
    """The index of ``docs`` (ranked in slug order on ties, as the server does)."""
    index = index_cards([card_text(d) for d in sorted(docs, key=lambda d: d.slug)], 0, "both")
    en_stop, zh_stop, zh_alone = stopwords()
    return {
        "v": 2, "scale": 10**DIGITS, "en_stop": sorted(en_stop), "zh_stop": list(zh_stop), "zh_alone": sorted(zh_alone),
        "glossary_pattern": pattern(), "glossary_terms": term_groups(), "unit_weight": UNIT_WEIGHT,
        "slugs": [c.slug for c in index.cards], "unit_card": [int(c) for c in index.unit_card],
        "cards": _flat(index.card_bm25), "units": _flat(index.unit_bm25),
    }


def offline_index_json(docs: Sequence[CardDoc]) -> str:
    return script_json(offline_index(docs))


def script_json(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``<``, ``>`` or ``&`` left as such)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

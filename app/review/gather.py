"""The order a user's new items come in (Anki's "gather order"), one of :data:`app.core.vocab.GATHER_ORDERS`:

- ``deck``: card by card, each card's items in their position (the card, its follow-ups, pitfalls, drills);
- ``interleaved`` (the default): the first item of every card, then the second of every card, and so on,
  cards in deck order, so a day's new items spread over as many cards as it has items;
- ``random``: every item shuffled, seeded by the user and the day (the same order all day, on every
  process; another order tomorrow).

Sibling burying (``app.review.queue_index.UserQueue.answered``) works on top of any of them: once an item of
a card is answered, the card's other new and review items wait for the next day.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime
from itertools import zip_longest

from app.core.vocab import GATHER_ORDERS


def by_card(order: list[int], card_of: dict[int, int]) -> list[list[int]]:
    """``order``'s items grouped by card, cards in the order of their first item, items in ``order``'s order."""
    groups: dict[int, list[int]] = {}
    for item_id in order:
        groups.setdefault(card_of[item_id], []).append(item_id)
    return list(groups.values())


def interleaved(order: list[int], card_of: dict[int, int]) -> list[int]:
    """The i-th item of every card before any card's (i+1)-th."""
    rounds = zip_longest(*by_card(order, card_of))
    return [item_id for row in rounds for item_id in row if item_id is not None]


def day_seed(user_id: int, day: datetime) -> int:
    """A seed fixed for one user and one day (a hash, not ``hash()``: the same in every process)."""
    digest = hashlib.sha256(f"gather:{user_id}:{day.date().isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def shuffled(order: list[int], user_id: int, day: datetime) -> list[int]:
    out = list(order)
    random.Random(day_seed(user_id, day)).shuffle(out)
    return out


def gathered(order: list[int], card_of: dict[int, int], how: str, user_id: int, day: datetime) -> list[int]:
    """``order`` (the deck's new-item order, by position) rearranged as ``how`` says."""
    if how not in GATHER_ORDERS:
        raise ValueError(f"unknown gather order {how!r}; known: {', '.join(GATHER_ORDERS)}")
    if how == "deck":
        return order
    if how == "interleaved":
        return interleaved(order, card_of)
    return shuffled(order, user_id, day)

"""An assertion judged on its own: a claim that quotes nothing and asserts ``asserts``, through ``verify.judge``.

The judge has one door (``verify.judge.judge``); tests that probe an assertion (a doctored run, a mutated
formula) go through it like any card's claim, so what they see is what a card would get.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from verify.judge import Prepared, judge
from verify.reading.claims import Claim


@dataclass(frozen=True)
class Judged:
    verdict: str
    condition: str
    counterexample: str
    evaluated: list[dict[str, Any]]
    method: str
    raw: dict[str, Any]


def judge_assertion(asserts: str, evidence: Any, reading: str = "") -> Judged:
    got = judge(Claim(card="t", claim_id="t", text_zh="", text_en="", section="", asserts=asserts,
                      reading=reading), evidence)
    return Judged(got["verdict"], got["condition"], got["counterexample"], got["evaluated"], got["method"], got)


def judge_all(claims: list[Claim], evidence: Any) -> list[dict[str, Any]]:
    """Every claim's verdict, as ``python -m verify`` judges a deck: one ``Prepared`` shared by the claims."""
    prepared = Prepared()
    return [judge(c, evidence, prepared) for c in claims]


def card_claim(card: str, claim_id: str) -> Claim:
    """The bundled deck's claim ``card:claim_id`` (cards/), as the sweep reads it."""
    from pathlib import Path

    from verify.reading.claims import read_cards

    cards = Path(__file__).resolve().parents[2] / "cards"
    (found,) = [c for c in read_cards(cards) if (c.card, c.claim_id) == (card, claim_id)]
    return found


@contextmanager
def caches_cleared(*cached: Any) -> Iterator[None]:
    """Empty the ``functools.cache`` of each function before and after: a run measured with a mutated process is
    measured afresh and not kept for the next test."""
    for fn in cached:
        fn.cache_clear()
    yield
    for fn in cached:
        fn.cache_clear()


def fresh_caches(*cached: Any) -> Any:
    """A test's fixture: the judge's caches (``fresh``) and these functions' caches emptied before and after."""
    @pytest.fixture
    def cleared(fresh: None) -> Iterator[None]:
        with caches_cleared(*cached):
            yield
    return cleared

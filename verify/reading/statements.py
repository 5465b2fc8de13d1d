"""Every quantitative statement of a card, one per number, formula or relation, where it stands.

    python -c "from verify.reading.statements import card_statements; from verify.reading.cardfile import \
read_card; print(len(card_statements(read_card('cards/fp8-formats.md'))))"

A statement is a lone number or formula (``Side``) or one relation of a chain (``16 × 7×10^9 = 112 GB``: the
two sides and ``=``), found by ``verify.reading.mathtext`` in a unit of ``verify.reading.pairing``. It keeps the
sentence it stands in (what a verdict mark highlights) and its place: card section, language, unit, order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from verify.reading import numerals
from verify.reading.cardfile import CardText
from verify.reading.mathtext import Found, Side, plain
from verify.reading.pairing import Pair, Unit, card_pairs
from verify.reading.tex import TEX, tex_found


@lru_cache(maxsize=8192)
def read(text: str) -> tuple[Found, ...]:
    """Everything ``text`` states, in the order written."""
    from verify.known.vocabulary import SYMBOLS

    symbols = dict(SYMBOLS)
    blank = TEX.sub(lambda m: " " * len(m.group(0)), text)
    found = tex_found(text) + plain(numerals.normalise(blank), symbols)
    return tuple(sorted(found, key=lambda f: f.start))


_SENTENCE_END = re.compile(r"(?<=[。；！？!?;])|(?<=\.)\s+(?=[A-Z(])|\n")


@dataclass(frozen=True)
class Statement:
    unit: Unit
    n: int  # order within its unit
    left: Side  # the statement itself when ``op`` is "", else the relation's left side
    op: str = ""
    right: Side | None = None
    sentence: str = ""

    @property
    def key(self) -> str:
        return f"{self.unit.section}:{self.unit.index}:{self.unit.lang}:{self.n}"

    @property
    def text(self) -> str:
        if self.right is None:
            return self.left.text
        return f"{self.left.text} {self.op} {self.right.text}"

    @property
    def value_side(self) -> Side:
        """The side that states the value: the lone side, or a relation's right side."""
        return self.right if self.right is not None else self.left


def sentence_at(text: str, pos: int) -> str:
    """The sentence of ``text`` around position ``pos`` (what a reader would quote)."""
    bounds = _bounds(text)
    for a, b in zip(bounds, bounds[1:], strict=False):
        if a <= pos < b:
            return text[a:b].strip()
    return text.strip()


@lru_cache(maxsize=8192)
def _bounds(text: str) -> tuple[int, ...]:
    """Where the sentences of ``text`` start, and its end (cached: asked once for every statement of a unit)."""
    return (0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text))


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[sp.Symbol]:
    from verify.known.vocabulary import SYMBOLS

    return frozenset(SYMBOLS.values())


def _notation(side: Side) -> bool:
    """A formula over symbols the vocabulary does not have ($W_O$, $V_{rank}$, $XA$): notation, no quantity."""
    free = side.value.free_symbols
    return bool(free) and not free <= _vocabulary()


def unit_statements(unit: Unit) -> list[Statement]:
    out: list[Statement] = []
    for found in read(unit.text):
        sentence = sentence_at(unit.text, found.start)
        sides = found.sides
        if not found.ops:
            if not _notation(sides[0]) and not sides[0].value.is_Symbol:  # "$m$" names a symbol, states nothing
                out.append(Statement(unit, len(out), sides[0], sentence=sentence))
            continue
        for left, op, right in zip(sides, found.ops, sides[1:], strict=False):
            if _notation(left) and not _notation(right):  # "M_{kv} = 2Lgde": the formula it names
                out.append(Statement(unit, len(out), right, sentence=sentence))
            elif not _notation(left) and not _notation(right):
                out.append(Statement(unit, len(out), left, op, right, sentence))
    return out


def pair_statements(pair: Pair) -> tuple[list[Statement], list[Statement]]:
    return (unit_statements(pair.zh) if pair.zh else [], unit_statements(pair.en) if pair.en else [])


def card_statements(card: CardText) -> list[Statement]:
    return [s for p in card_pairs(card) for side in pair_statements(p) for s in side]

"""Drift between a claim's quoted words and its assertion: a number the text states that the assertion does not.

    python -c "from verify.judge.drift import drift; print(drift('', 'cuts memory 8x', 'reduction(ddp, zero1) == 4'))"

Every number and formula in the quoted text (``verify.reading.textnums``: TeX through sympy's LaTeX parser,
plain "4×", "4 倍", "50%", "256GB", "16Ψ" …) must equal a literal sub-expression of the assertion, a keyword
value, or the ledger's value of a whole relation side that is a plain number (a worked example's result), in
its written rounding; anything else is drift, and the claim is a ``mismatch``: editing the prose or the claim
alone never keeps a green badge. A pure function of the two texts and the assertion: cached.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from verify.judge.symbolic import ledger_expr
from verify.known.vocabulary import UNITS
from verify.reading.asserts import Parsed, parse
from verify.reading.claims import Claim
from verify.reading.textnums import Stated, Statement, is_notation, matches, statements

QUANTITATIVE = ("multiplier", "percent", "size", "psi", "bytes", "formula", "number", "sci")


def quoted_statements(claim: Claim) -> list[Statement]:
    """The quantitative statements in the claim's quoted texts (zh and en)."""
    return [st for text in (claim.text_zh, claim.text_en) for st in statements(text)
            if st.kind in QUANTITATIVE and not is_notation(st)]


def stated_values(parsed: Parsed) -> list[sp.Expr]:
    """What the quoted text may state, each number paired with its own term of the assertion: the assertion's
    literal sub-expressions and the ledger's value of each whole relation side that is a plain number (a worked
    example's result), each also in the vocabulary's units. A quantity inside a larger side pairs with nothing
    on its own: in ``(bpp(megatron_bf16) == 18) & (bpp(megatron_fp16) - bpp(mixed_adam) == 4)`` the text may say
    18 and 4 (and 20 if asserted), never 16, mixed Adam's ledger value that only enters the difference."""
    values = parsed.literal_values()
    for side in (x for rel in parsed.relations for x in (rel.lhs, rel.rhs)):
        led = ledger_expr(parsed, side)
        if led is not None and led.is_number:
            values.append(led)
    scaled = [v / u for v in values if v.is_number and v != 0 for u in UNITS.values()]
    return values + scaled


def drift(text_zh: str, text_en: str, asserts: str) -> tuple[str, ...]:
    """Statements of the quoted texts that the assertion does not make (each as written)."""
    return _drift(text_zh, text_en, asserts)


@lru_cache(maxsize=4096)
def _drift(text_zh: str, text_en: str, asserts: str) -> tuple[str, ...]:
    values = Stated(stated_values(parse(asserts)))
    return tuple(st.text for t in (text_zh, text_en) for st in statements(t)
                 if st.kind in QUANTITATIVE and not is_notation(st) and not matches(st, values))

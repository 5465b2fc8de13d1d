"""How a verdict's numbers were obtained, in a word: measured, counted, simulated, construction, calculated,
definition or arithmetic.

    python -m verify.report.methods      # the confirmed verdicts of the bundled report by this word

A ✓ must say what stands behind it (issue 32, "Every ✓ is a proof"). A claim's method is its weakest
quantity's: a claim naming a calculated factor is never "measured". Two words are about the claim rather than
its quantities: a claim whose only quantities are definitions (``gpus_3d() == t*p*d``) is a ``definition``,
shown as one and never as a proof; a claim that instantiates formulas at numbers (``16 × 7×10^9 = 112 GB``)
and was not itself measured is ``arithmetic``, a proof only when every formula it instantiates is proved by a
measurement or simulation (``arithmetic_on_proved_formula``).
"""

from __future__ import annotations

import re
from typing import Any

from verify.known.vocabulary import QUANTITIES
from verify.reading.asserts import Parsed

# weakest first; a definition names no evidence and does not weaken a claim that also measures something
_STRENGTH = ("calculated", "simulated", "counted", "measured")
PROVED = frozenset({"measured", "counted", "simulated", "construction"})
# a vocabulary call: a lower-case name, then its argument list without nested parentheses
_CALL = re.compile(r"\b([a-z][a-z0-9_]*)\(([^()]*)\)")
# sympy's own functions in an assertion are not vocabulary quantities
_NOT_VOCABULARY = frozenset({"sqrt", "log", "exp", "ceiling", "floor", "diff", "approx", "limit", "Min", "Max"})


def is_formula_claim(asserts: str) -> bool:
    """True when the assertion evaluates some vocabulary quantity at its general symbols (no number among
    the call's arguments): the claim is about the formula, not about one worked instance of it."""
    for name, args in _CALL.findall(asserts):
        if name in _NOT_VOCABULARY:
            continue
        if not re.search(r"\d", args):
            return True
    return False


def quantity_methods(parsed: Parsed) -> set[str]:
    return {QUANTITIES[a.quantity].method for a in parsed.atoms.values()}


def method_of(parsed: Parsed, rows: list[dict[str, Any]]) -> str:
    """The claim's method from its quantities' and whether any configuration judged it."""
    judged = [r for r in rows if "relations" in r]
    methods = quantity_methods(parsed)
    if "construction" in methods:  # holds because the reference code was written so: never "measured"
        return "construction"
    if methods == {"definition"} and is_formula_claim(parsed.source):
        return "definition"
    if judged:  # the weakest method among the quantities names the claim's: a calculated factor is never "measured"
        return next((m for m in _STRENGTH if m in methods), "calculated")
    return "calculated" if is_formula_claim(parsed.source) else "arithmetic"


def arithmetic_on_proved_formula(parsed: Parsed) -> bool:
    """An ``arithmetic`` claim counts as a proof only when each quantity it instantiates is proved elsewhere
    (measured, counted or simulated; definitions need no proof) and it names at least one."""
    methods = quantity_methods(parsed) - {"definition"}
    return bool(methods) and methods <= PROVED

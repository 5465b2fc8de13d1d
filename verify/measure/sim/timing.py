"""A simulated collective's schedule timed step by step: each step costs α plus its largest message over β.

    python -c "from verify.measure.sim.timing import lockstep_time; print(lockstep_time([2, 2], alpha=3, beta=2))"

The ranks of ``verify.measure.sim.ring`` and ``verify.measure.sim.tree`` move in lockstep: a step ends when its
largest message has arrived, so one step takes α (latency) + that message's bytes / β. The time of a collective
is the sum over the steps the simulator actually ran, with the messages it actually sent; no step count or
per-rank volume is assumed (the α-β formulas of ``verify.known.formulas.collectives`` are judged against it).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def lockstep_time(messages: Sequence[int], alpha: Fraction | int, beta: Fraction | int,
                  bytes_per_element: Fraction | int = 1) -> Fraction:
    """Σ over steps of (α + the step's largest message · bytes_per_element / β), exact."""
    return sum((Fraction(alpha) + Fraction(m * bytes_per_element) / Fraction(beta) for m in messages), Fraction(0))

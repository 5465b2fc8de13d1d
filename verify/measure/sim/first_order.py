"""The first-order checkpoint model's process, run segment by segment (seeded): failures strike only while useful
work is done, and the work they cost is re-done without failing again.

    python -c "from verify.measure.sim.first_order import run; print(run(tau=4648, delta=300, mu=36000))"

This is what Young's first-order analysis assumes (Young 1974; Daly 2006, §2): failures arrive as a Poisson
process of rate 1/μ over the job's useful compute time; a failure at a point t into a segment of τ loses those t
units, re-done at once (the re-execution and the checkpoint write never fail); each segment ends with a write of
δ. The run measures the overhead over the useful work, (writes + lost work) / useful work, over ``segments``
segments; no δ/τ or τ/2μ is in it. ``verify.measure.sim.failures`` runs the exact process (failures any time).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class FirstOrderRun:
    overhead: float  # (checkpoint writes + lost work) / useful work
    failures: int


@lru_cache(maxsize=64)
def run(*, tau: float, delta: float, mu: float, segments: int = 40_000, seed: int = 0,
        restore_from_checkpoint: bool = True) -> FirstOrderRun:
    """``restore_from_checkpoint=False`` loses the whole job's work since its start at each failure (the mutation
    tests use it: a checkpoint that is written but never restored)."""
    rng = random.Random(seed)
    lost = 0.0
    failures = 0
    next_failure = rng.expovariate(1 / mu)  # in useful compute time from the job's start
    for segment in range(segments):
        start = segment * tau
        while next_failure < start + tau:
            failures += 1
            lost += next_failure - (start if restore_from_checkpoint else 0.0)
            next_failure += rng.expovariate(1 / mu)
    return FirstOrderRun((segments * delta + lost) / (segments * tau), failures)

"""A training job with periodic checkpoints and random failures, run event by event (seeded).

    python -c "from verify.measure.sim.failures import run; print(run(tau=4648, delta=300, mu=36000))"

The job computes for τ, writes a checkpoint for δ, and repeats. Failures arrive as a Poisson process of rate 1/μ;
a failure loses everything since the last completed checkpoint (a failure while writing loses that segment too)
and the job restarts at once from the checkpoint. The run measures the share of wall time that was not useful
compute, over ``work`` units of useful compute.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class FailureRun:
    waste: float  # 1 − useful time / wall time
    failures: int
    wall: float


@lru_cache(maxsize=64)
def run(*, tau: float, delta: float, mu: float, segments: int = 40_000, seed: int = 0) -> FailureRun:
    rng = random.Random(seed)
    wall = 0.0
    failures = 0
    next_failure = rng.expovariate(1 / mu)
    done = 0
    while done < segments:
        need = tau + delta  # compute the segment, then write its checkpoint
        if next_failure >= need:
            wall += need
            next_failure -= need
            done += 1
            continue
        wall += next_failure  # lost: the partial segment (and its partial write)
        failures += 1
        next_failure = rng.expovariate(1 / mu)
    return FailureRun(1 - segments * tau / wall, failures, wall)

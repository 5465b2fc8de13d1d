"""N nodes failing independently, run failure by failure (seeded): how often the job that needs all of them stops.

    python -c "from verify.measure.sim.cluster_failures import run; print(run(nodes=64, node_mtbf=36000))"

Each node fails after an exponential time of mean μ (its own MTBF), is replaced at once, and fails again after a
fresh draw (a renewal process per node). The job needs every node, so it stops at each node failure. The run
measures the mean time between job stops over ``stops`` of them; no 1/N is in it.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class ClusterRun:
    mean_time_between_stops: float
    stops: int


@lru_cache(maxsize=64)
def run(*, nodes: int, node_mtbf: float, stops: int = 20_000, seed: int = 0,
        shared_clock: bool = False) -> ClusterRun:
    """``shared_clock=True`` makes the nodes fail together (one draw for all; the mutation tests use it)."""
    rng = random.Random(seed)
    if shared_clock:
        last = sum(rng.expovariate(1 / node_mtbf) for _ in range(stops))
        return ClusterRun(last / stops, stops)
    pending = [(rng.expovariate(1 / node_mtbf), node) for node in range(nodes)]
    heapq.heapify(pending)
    now = 0.0
    for _ in range(stops):
        now, node = heapq.heappop(pending)
        heapq.heappush(pending, (now + rng.expovariate(1 / node_mtbf), node))
    return ClusterRun(now / stops, stops)

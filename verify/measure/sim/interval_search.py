"""The checkpoint interval that minimises simulated waste, found by search over τ (seeded, no formula inside).

    python -c "from verify.measure.sim.interval_search import best_interval; print(best_interval(300, 36000))"

Young's √(2δμ) and Daly's higher-order interval claim to minimise the waste of a job that checkpoints every τ
under exponential failures. This runs that job (``verify.measure.sim.failures``, the same seed at every τ, so the
curve's noise is shared) on a geometric grid of τ from δ to μ, then on a fine grid around the best point, and fits
a quartic in log τ to the fine points so that run-to-run noise does not pick the minimum. The waste curve is flat
near its minimum, so the answer is a band, not a point: every τ whose fitted waste is within ``BAND`` (1 %,
relative) of the minimum waste is as good as the optimum. An interval formula is right at (δ, μ) when its τ lies
in that band.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from verify.measure.sim import failures

BAND = 0.01  # a τ whose simulated waste is within 1 % of the minimum waste counts as optimal
COARSE, FINE = 31, 41  # grid points from δ to μ, then around the coarse minimum (± 3 coarse steps)
SEGMENTS = 20_000


@dataclass(frozen=True)
class IntervalBand:
    best: float  # τ of the fitted minimum
    low: float  # the band of τ within BAND of the minimum waste
    high: float
    waste: float  # the fitted minimum waste

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _waste(tau: float, delta: float, mu: float) -> float:
    return failures.run(tau=tau, delta=delta, mu=mu, segments=SEGMENTS).waste


@lru_cache(maxsize=64)
def best_interval(delta: float, mu: float) -> IntervalBand:
    coarse = np.geomspace(delta, mu, COARSE)
    i = int(np.argmin([_waste(float(t), delta, mu) for t in coarse]))
    fine = np.geomspace(coarse[max(i - 3, 0)], coarse[min(i + 3, COARSE - 1)], FINE)
    wastes = np.array([_waste(float(t), delta, mu) for t in fine])
    x = np.log(fine)
    fit = np.polynomial.Polynomial.fit(x, wastes, 4)
    dense = np.linspace(x[0], x[-1], 2001)
    curve = fit(dense)
    j = int(np.argmin(curve))
    inside = dense[curve <= curve[j] * (1 + BAND)]
    return IntervalBand(math.exp(dense[j]), math.exp(inside.min()), math.exp(inside.max()), float(curve[j]))

"""How often to checkpoint: Young's and Daly's intervals and the expected waste under random failures.

    python -c "from verify.known.formulas.checkpoint_interval import *; print(young_interval(delta=300, mu=36000))"

Sources: Young, "A first order approximation to the optimum checkpoint interval" (CACM 1974): τ = √(2δμ);
Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps" (FGCS 2006):
τ = √(2δμ)(1 + ⅓√(δ/2μ) + (δ/2μ)/9) − δ for δ < 2μ. ``delta`` = time to write one checkpoint, ``mu`` = mean time
between failures of the whole job (exponential), ``tau`` = compute time between checkpoints. Restart time is 0
here. ``verify.measure.sim.failures`` runs the process with random failures.
"""

from __future__ import annotations

import math


def young_interval(*, delta: float, mu: float, sqrt: object = math.sqrt) -> float:
    """Young (1974): √(2δμ)."""
    return sqrt(2 * delta * mu)  # type: ignore[operator,no-any-return]


def daly_interval(*, delta: float, mu: float, sqrt: object = math.sqrt) -> float:
    """Daly (2006), for δ < 2μ: √(2δμ)(1 + ⅓√(δ/(2μ)) + (δ/(2μ))/9) − δ."""
    x = delta / (2 * mu)
    return sqrt(2 * delta * mu) * (1 + sqrt(x) / 3 + x / 9) - delta  # type: ignore[operator,no-any-return]


def first_order_waste(*, tau: float, delta: float, mu: float) -> float:
    """Share of time not spent on useful work, to first order: δ/τ (writing) + τ/(2μ) (lost work)."""
    return delta / tau + tau / (2 * mu)


def expected_waste(*, tau: float, delta: float, mu: float, exp: object = math.exp) -> float:
    """Exact under exponential failures (rate 1/μ), a failure anywhere in τ + δ losing the segment, no restart
    cost: a segment takes μ(e^((τ+δ)/μ) − 1) on average, so the waste is 1 − τ/(μ(e^((τ+δ)/μ) − 1))."""
    return 1 - tau / (mu * (exp((tau + delta) / mu) - 1))  # type: ignore[operator,no-any-return]


def cluster_mtbf(*, node_mtbf: float, nodes: int) -> float:
    """Independent exponential failures: the job fails at the sum of the rates, μ = μ_node / n."""
    return node_mtbf / nodes

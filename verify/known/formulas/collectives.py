"""Per-rank volume, steps and α-β time of the collectives, for ideal algorithms and for Gloo.

    python -c "from verify.known.formulas.collectives import ring_send; print(ring_send(op='all_reduce', n=4, m=1))"

Sources: Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations"
(JPDC 2009) for the ring; Thakur, Rabenseifner & Gropp, "Optimization of collective communication
operations in MPICH" (IJHPCA 2005) for the α-β costs and the binomial-tree broadcast. ``m`` is the
payload: all-reduce its tensor, reduce-scatter its input, all-gather its output, all-to-all a rank's
input, broadcast the root's tensor.
"""

from __future__ import annotations

import math

RING_OPS = ("reduce_scatter", "all_gather", "all_reduce", "all_to_all")
# Ring passes per op: all-reduce = reduce-scatter + all-gather.
_PASSES = {"reduce_scatter": 1, "all_gather": 1, "all_reduce": 2, "all_to_all": 1}


def _n(n: int) -> None:
    if n < 1:
        raise ValueError(f"world size must be >= 1, got {n}")


def ring_send(*, op: str, n: int, m: float) -> float:
    """Elements one rank sends: (N−1)/N·M per pass; all-reduce makes two passes, 2(N−1)/N·M."""
    _n(n)
    if op not in _PASSES:
        raise ValueError(f"unknown op {op!r}; expected one of {RING_OPS}")
    return _PASSES[op] * (n - 1) / n * m


def ring_steps(*, op: str, n: int) -> int:
    """Communication steps: N−1 per pass (2(N−1) for all-reduce)."""
    _n(n)
    return _PASSES[op] * (n - 1)


def ring_time(*, op: str, n: int, m_bytes: float, alpha_s: float, beta_bytes_per_s: float) -> float:
    """α-β time: steps·α + bytes sent per rank / β, e.g. 2(N−1)α + 2(N−1)/N·M/β for all-reduce."""
    return ring_steps(op=op, n=n) * alpha_s + ring_send(op=op, n=n, m=m_bytes) / beta_bytes_per_s


def tree_broadcast_rounds(*, n: int) -> int:
    """Rounds of a binomial-tree broadcast: ⌈log2 N⌉ (the holders double every round)."""
    _n(n)
    return math.ceil(math.log2(n)) if n > 1 else 0


def tree_broadcast_root_send(*, n: int, m: float) -> float:
    """The root sends the whole message once per round: ⌈log2 N⌉·M."""
    return tree_broadcast_rounds(n=n) * m


def tree_broadcast_total_send(*, n: int, m: float) -> float:
    """All ranks together: every rank but the root receives M exactly once, (N−1)·M."""
    _n(n)
    return (n - 1) * m


def tree_broadcast_time(*, n: int, m_bytes: float, alpha_s: float, beta_bytes_per_s: float) -> float:
    """⌈log2 N⌉(α + M/β)."""
    return tree_broadcast_rounds(n=n) * (alpha_s + m_bytes / beta_bytes_per_s)


def gloo_send(*, op: str, n: int, m: float) -> float:
    """What Gloo sends per rank (a model of the backend): its reduce-scatter is a full all-reduce."""
    if op == "reduce_scatter":
        return ring_send(op="all_reduce", n=n, m=m)
    return ring_send(op=op, n=n, m=m)

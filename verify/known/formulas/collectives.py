"""Per-rank volume, steps and α-β time of the collectives, for ideal algorithms and for Gloo.

    python -c "from verify.known.formulas.collectives import ring_send; print(ring_send(op='all_reduce', n=4, m=1))"

Sources: Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations"
(JPDC 2009) for the ring; Thakur, Rabenseifner & Gropp, "Optimization of collective communication
operations in MPICH" (IJHPCA 2005) for the α-β costs and the binomial-tree broadcast. ``m`` is the
payload: all-reduce its tensor, reduce-scatter its input, all-gather its output, all-to-all a rank's
input, broadcast the root's tensor. Each takes numbers or sympy symbols (``verify.known.vocabulary`` judges
claims against these functions over symbols).
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.symbolic import ceil_log2

RING_OPS = ("reduce_scatter", "all_gather", "all_reduce", "all_to_all")
# Ring passes per op: all-reduce = reduce-scatter + all-gather.
_PASSES = {"reduce_scatter": 1, "all_gather": 1, "all_reduce": 2, "all_to_all": 1}


def _n(n: Any) -> None:
    if n < 1:
        raise ValueError(f"world size must be >= 1, got {n}")


def ring_send(*, op: str, n: Any, m: Any) -> Any:
    """Elements one rank sends: (N−1)/N·M per pass; all-reduce makes two passes, 2(N−1)/N·M."""
    _n(n)
    if op not in _PASSES:
        raise ValueError(f"unknown op {op!r}; expected one of {RING_OPS}")
    return _PASSES[op] * (n - 1) / n * m


def ring_steps(*, op: str, n: Any) -> Any:
    """Communication steps: N−1 per pass (2(N−1) for all-reduce)."""
    _n(n)
    return _PASSES[op] * (n - 1)


def ring_time(*, op: str, n: Any, m_bytes: Any, alpha_s: Any, beta_bytes_per_s: Any) -> Any:
    """α-β time: steps·α + bytes sent per rank / β, e.g. 2(N−1)α + 2(N−1)/N·M/β for all-reduce."""
    return ring_steps(op=op, n=n) * alpha_s + ring_send(op=op, n=n, m=m_bytes) / beta_bytes_per_s


def tree_broadcast_rounds(*, n: Any) -> Any:
    """Rounds of a binomial-tree broadcast: ⌈log2 N⌉ (the holders double every round; 0 for one rank)."""
    _n(n)
    return ceil_log2(n)


def tree_broadcast_root_send(*, n: Any, m: Any) -> Any:
    """The root sends the whole message once per round: ⌈log2 N⌉·M."""
    return tree_broadcast_rounds(n=n) * m


def tree_broadcast_total_send(*, n: Any, m: Any) -> Any:
    """All ranks together: every rank but the root receives M exactly once, (N−1)·M."""
    _n(n)
    return (n - 1) * m


def tree_broadcast_time(*, n: Any, m_bytes: Any, alpha_s: Any, beta_bytes_per_s: Any) -> Any:
    """⌈log2 N⌉(α + M/β)."""
    return tree_broadcast_rounds(n=n) * (alpha_s + m_bytes / beta_bytes_per_s)


def gloo_send(*, op: str, n: Any, m: Any) -> Any:
    """What Gloo sends per rank (a model of the backend; the root, for broadcast): its reduce-scatter is a full
    all-reduce, its broadcast a binomial tree."""
    if op == "broadcast":
        return tree_broadcast_root_send(n=n, m=m)
    if op == "reduce_scatter":
        return ring_send(op="all_reduce", n=n, m=m)
    return ring_send(op=op, n=n, m=m)


def gloo_total_send(*, op: str, n: Any, m: Any) -> Any:
    """What all of Gloo's ranks send together: N times a rank's share; for broadcast every rank but the root
    receives M once, (N−1)·M."""
    if op == "broadcast":
        return tree_broadcast_total_send(n=n, m=m)
    return n * gloo_send(op=op, n=n, m=m)

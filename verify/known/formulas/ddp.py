"""DDP: gradient volume per step and the reducer's bucket sizes.

    python -c "from verify.known.formulas.ddp import allreduce_example; print(allreduce_example())"

Sources: Li et al., "PyTorch Distributed: Experiences on Accelerating Data Parallel Training"
(VLDB 2020) for bucketing; ``torch.nn.parallel.DistributedDataParallel`` (bucket_cap_mb default 25 MiB,
``torch.distributed._DEFAULT_FIRST_BUCKET_BYTES`` = 1 MiB).
"""

from __future__ import annotations

from verify.known.formulas.collectives import ring_send, ring_steps

MIB = 1024 * 1024
DEFAULT_BUCKET_CAP_BYTES = 25 * MIB
DEFAULT_FIRST_BUCKET_BYTES = 1 * MIB


def bucket_sizes(
    *,
    grad_bytes: list[int],
    cap_bytes: int = DEFAULT_BUCKET_CAP_BYTES,
    first_cap_bytes: int = DEFAULT_FIRST_BUCKET_BYTES,
) -> list[int]:
    """Bucket byte sizes for gradients listed in the order the reducer fills them (reverse parameter order).

    A bucket closes as soon as it reaches its cap (the first bucket's cap is ``first_cap_bytes``); the
    total over buckets is every gradient once.
    """
    out: list[int] = []
    cur = 0
    for b in grad_bytes:
        cur += b
        if cur >= (first_cap_bytes if not out else cap_bytes):
            out.append(cur)
            cur = 0
    if cur:
        out.append(cur)
    return out


def allreduce_example(
    *, psi: float = 1e9, bytes_per_element: int = 2, n: int = 8, beta_bytes_per_s: float = 100e9
) -> dict[str, float]:
    """The card's example: per-rank bytes sent, bandwidth seconds, α multiplier of a ring all-reduce."""
    m = psi * bytes_per_element
    sent = ring_send(op="all_reduce", n=n, m=m)
    return {
        "payload_bytes": m,
        "sent_bytes": sent,
        "bandwidth_s": sent / beta_bytes_per_s,
        "latency_alphas": ring_steps(op="all_reduce", n=n),
    }

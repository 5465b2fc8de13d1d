"""FSDP2 ``reshard_after_forward``: collectives per FSDP unit per step and what stays after forward.

    python -c "from verify.known.formulas.fsdp import per_unit; print(per_unit(mode=True, n=8))"

Source: the ``torch.distributed.fsdp.fully_shard`` docstring (True: reshard after forward and
re-all-gather in backward; False: keep unsharded, no backward all-gather; int k: reshard to world size
k, backward all-gather within k ranks; None: True for non-root modules, False for the root).
"""

from __future__ import annotations

from fractions import Fraction


def per_unit(*, mode: bool | int | None, n: int, root: bool = False) -> dict[str, object]:
    """Collective counts (with group sizes), the fraction of Ψ_unit held after forward and the ring volume."""
    if mode is None:
        mode = not root
    if mode is True:
        bwd_group, held = n, Fraction(1, n)
    elif mode is False:
        bwd_group, held = 0, Fraction(1)
    else:
        k = int(mode)
        if not 1 < k < n or n % k:
            raise ValueError(f"reshard_after_forward={k} must be a non-trivial divisor of {n}")
        bwd_group, held = k, Fraction(1, k)
    volume = Fraction(n - 1, n) * 2 + (Fraction(bwd_group - 1, bwd_group) if bwd_group else 0)
    return {
        "forward_all_gather": [n],
        "backward_all_gather": [bwd_group] if bwd_group else [],
        "backward_reduce_scatter": [n],
        "held_after_forward": held,
        "ring_volume_per_psi": volume,
    }

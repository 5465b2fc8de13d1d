"""FSDP2 ``reshard_after_forward``: collectives per FSDP unit per step and what stays after forward.

    python -c "from verify.known.formulas.fsdp import per_unit; print(per_unit(mode=True, n=8))"

Source: the ``torch.distributed.fsdp.fully_shard`` docstring (True: reshard after forward and
re-all-gather in backward; False: keep unsharded, no backward all-gather; int k: reshard to world size
k, backward all-gather within k ranks; None: True for non-root modules, False for the root). Numbers or sympy
symbols alike (exact fractions for ints; the divisor k is checked on numbers).
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.symbolic import is_int, ratio

_CALLS = {("all_gather", "forward"): "forward_all_gather", ("all_gather", "backward"): "backward_all_gather",
          ("reduce_scatter", "backward"): "backward_reduce_scatter"}


def per_unit(*, mode: Any, n: Any, root: bool = False) -> dict[str, Any]:
    """Collective counts (with group sizes), the fraction of Ψ_unit held after forward and the ring volume."""
    if mode is None:
        mode = not root
    if mode is True:
        bwd_group, held = n, ratio(1, n)
    elif mode is False:
        bwd_group, held = 0, ratio(1, 1)
    else:
        k = mode
        if is_int(k, n) and (not 1 < k < n or n % k):
            raise ValueError(f"reshard_after_forward={k} must be a non-trivial divisor of {n}")
        bwd_group, held = k, ratio(1, k)
    volume = ratio(2 * (n - 1), n) + (ratio(bwd_group - 1, bwd_group) if bwd_group else 0)
    return {
        "forward_all_gather": [n],
        "backward_all_gather": [bwd_group] if bwd_group else [],
        "backward_reduce_scatter": [n],
        "held_after_forward": held,
        "ring_volume_per_psi": volume,
    }


def ring_volume(*, mode: Any, n: Any, psi: Any) -> Any:
    """Elements a rank sends per step for a (non-root) unit of ``psi`` parameters with ideal ring collectives."""
    return per_unit(mode=mode, n=n)["ring_volume_per_psi"] * psi


def calls_per_step(*, mode: Any, n: Any, units: Any, collective: str, phase: str) -> Any:
    """Collective calls of one kind in one phase of a step over a model of ``units`` FSDP units, one of them the
    root (which follows False under ``mode=None``); 0 for a collective FSDP2 does not call then."""
    key = _CALLS.get((collective, phase))
    if key is None:
        return 0
    root = len(per_unit(mode=mode, n=n, root=True)[key])
    other = len(per_unit(mode=mode, n=n)[key])
    return root + (units - 1) * other

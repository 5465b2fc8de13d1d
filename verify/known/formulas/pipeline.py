"""Pipeline parallelism: step time, bubble and micro-batches in flight for GPipe and 1F1B.

    python -c "from verify.known.formulas.pipeline import bubble_fraction; print(bubble_fraction(p=4, m=8))"

Sources: Huang et al., "GPipe" (NeurIPS 2019); Narayanan et al., "Efficient Large-Scale Language Model
Training on GPU Clusters Using Megatron-LM" (SC'21) §2.2 (1F1B / PipeDream-Flush, bubble (p−1)/m over
ideal time, interleaving with v chunks: (p−1)/(v·m)). ``verify.measure.sim.pipeline`` runs the schedules.
Numbers or sympy symbols alike.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.symbolic import minimum


def step_time(*, p: int, m: int, t_f: float = 1.0, t_b: float = 2.0) -> float:
    """(m + p − 1)(t_f + t_b) for GPipe and 1F1B alike."""
    return (m + p - 1) * (t_f + t_b)


def bubble_fraction(*, p: int, m: int) -> float:
    """Idle share of the total step: (p − 1)/(m + p − 1)."""
    return (p - 1) / (m + p - 1)


def bubble_over_ideal(*, p: int, m: int, v: int = 1) -> float:
    """Idle time over ideal compute time (Narayanan et al.): (p − 1)/(v·m)."""
    return (p - 1) / (v * m)


def peak_in_flight(*, schedule: str, p: Any, m: Any, stage: Any) -> Any:
    """Micro-batches whose activations a stage holds at once: GPipe m; 1F1B min(p − stage, m)."""
    if schedule == "gpipe":
        return m
    if schedule == "1f1b":
        return minimum(p - stage, m)
    raise ValueError(f"unknown schedule {schedule!r}; expected 'gpipe' or '1f1b'")

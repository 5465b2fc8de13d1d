"""3D parallelism: how t (tensor), p (pipeline) and d (data) split a model and a cluster.

    python -c "from verify.known.formulas.parallel_3d import *; print(state_bytes_per_gpu(psi=175e9, t=8, p=16, d=8))"

Source: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"
(SC'21), §3: N = t·p·d GPUs; t inside a node (its all-reduces are on the critical path twice per layer and
pass), p across nodes (point-to-point), d outermost; global batch B = b·m·d.
"""

from __future__ import annotations


def gpus(*, t: int, p: int, d: int) -> int:
    return t * p * d


def params_per_gpu(*, psi: float, t: int, p: int) -> float:
    """Each GPU holds 1/(t·p) of the weights: Ψ/(tp)."""
    return psi / (t * p)


def state_bytes_per_gpu(*, psi: float, t: int, p: int, d: int) -> float:
    """Mixed-precision Adam with ZeRO-1 over the d replicas: (2 + 2)Ψ/(tp) + 12Ψ/(tpd)."""
    return 4 * psi / (t * p) + 12 * psi / (t * p * d)

"""The starter deck's checks (eight cards around the ZeRO seed), registered on import.

    python -m verify   # judges every card's claims; these ids are named by cards/*.md

Measured: collectives and DDP buckets on Gloo ranks, FSDP2 modes, a tensor-parallel layer, activation
checkpointing, mixed-precision state. Simulated: the ring and the pipeline schedules. Calculated (and
marked so): PCIe, offload and the cards' worked examples.
"""

from verify.checks import (  # importing a check module registers its checks
    collectives,
    ddp_buckets,
    fsdp2_modes,
    mixed_precision,
    offload,
    tensor_parallel,
)
from verify.checks.registry import CHECKS

_MODULES = (collectives, ddp_buckets, fsdp2_modes, mixed_precision, offload,
            tensor_parallel)

# These checks run their own probes (Gloo ranks, profiler, simulators) instead of reading the ZeRO
# sweep's evidence, so they give verdicts even when the sweep produced no runs.
STARTER_CHECKS = frozenset(k for k, fn in CHECKS.items() if fn.__module__ in {m.__name__ for m in _MODULES})

"""The bundled deck as the starter-deck tests see it: the seed and the eight cards around it."""

from __future__ import annotations

from pathlib import Path

CARDS = Path(__file__).resolve().parents[2] / "cards"
SEED = "zero-sharding"
STARTER = (
    "ddp-ring-allreduce",
    "mixed-precision-memory",
    "fsdp-zero",
    "zero-offload-infinity",
    "activation-checkpointing",
    "tensor-parallelism",
    "pipeline-parallelism",
    "collectives",
)

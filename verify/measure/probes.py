"""Where the starter deck's quantities read their measurements: the Gloo probe and single-process runs.

    python -m verify   # every claim naming a starter quantity triggers these runs (once per process)

``verify.known.vocabulary`` calls these (torch imported on first use, never at import time): the Gloo probe at
world size N (collectives' socket bytes, DDP buckets, a tensor-parallel layer, FSDP2 modes) and the
single-process runs of ``verify.measure.experiments.local`` (mixed-precision state, number formats, loss scaling,
GradScaler, saved activations, activation checkpointing).
"""

from __future__ import annotations

from typing import Any


def probe(n: int) -> dict[str, Any]:
    """The Gloo probe at world size n (imports torch on first use, never at import time)."""
    from verify.measure.experiments.dist_probe import probe as run

    return run(n)


def local_run(name: str, *args: Any, module: str = "local") -> Any:
    """One single-process measurement from ``verify.measure.experiments.<module>`` (torch imported on first use)."""
    import importlib

    return getattr(importlib.import_module(f"verify.measure.experiments.{module}"), name)(*args)

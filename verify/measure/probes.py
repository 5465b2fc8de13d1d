"""Where the vocabulary's quantities read their measurements: the Gloo probe and single-process runs.

    python -m verify   # every claim naming such a quantity triggers these runs (once per process)

``verify.known.vocabulary`` calls these (torch imported on first use, never at import time): the Gloo probe at
world size N (collectives' socket bytes, DDP buckets, a tensor-parallel layer, FSDP2 modes) and the
single-process runs of ``verify.measure.experiments.local`` (mixed-precision state, number formats, loss scaling,
GradScaler, saved activations, activation checkpointing), kept in ``LOCAL_RUNS``: ``verify.judge.ahead`` runs
them in forked children while the ranks run, and the parent adopts what the children measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def probe(n: int) -> dict[str, Any]:
    """The Gloo probe at world size n (imports torch on first use, never at import time)."""
    from verify.measure.experiments.dist_probe import probe as run

    return run(n)


def local_run(name: str, *args: Any, module: str = "local") -> Any:
    """One single-process measurement from ``verify.measure.experiments.<module>`` (torch imported on first use)."""
    import importlib

    return getattr(importlib.import_module(f"verify.measure.experiments.{module}"), name)(*args)


class LocalRuns:
    """The runs of ``verify.measure.experiments.local`` this process has, once per name and arguments (they are
    deterministic on CPU): measured on first ``get``, or adopted from a child that measured them."""

    def __init__(self) -> None:
        self._runs: dict[tuple[Any, ...], Any] = {}

    def get(self, name: str, *args: Any) -> Any:
        """``verify.measure.experiments.local.<name>(*args)``, run once per process."""
        key = (name, *args)
        if key not in self._runs:
            self._runs[key] = local_run(name, *args)
        return self._runs[key]

    def export(self) -> dict[tuple[Any, ...], Any]:
        """Every run so far, keyed by (name, *args): what a child hands back to its parent."""
        return dict(self._runs)

    def adopt(self, runs: Mapping[tuple[Any, ...], Any]) -> None:
        """Take the runs another process measured (those this one has already are kept)."""
        for key, value in runs.items():
            self._runs.setdefault(key, value)

    def clear(self) -> None:
        self._runs.clear()


LOCAL_RUNS = LocalRuns()

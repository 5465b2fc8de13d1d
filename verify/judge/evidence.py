"""The sweep's runs a claim is judged on (one per implementation, stage and world size).

    python -m verify   # builds it from the ranks' measurements, then judges every claim on it
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class MissingEvidence(LookupError):
    """The sweep did not produce the run a quantity needs (e.g. PyTorch runs were skipped)."""


@dataclass
class Evidence:
    runs: list[dict[str, Any]]
    backend: str = "gloo"

    @property
    def world_sizes(self) -> list[int]:
        """World sizes with runs; raises when there are none (an empty ``all()`` must not confirm)."""
        sizes = sorted({r["world_size"] for r in self.runs})
        if not sizes:
            raise MissingEvidence("no runs: nothing was measured")
        return sizes

    def run(self, stage: str, n: int, impl: str = "reference") -> dict[str, Any]:
        for r in self.runs:
            if r["impl"] == impl and r["stage"] == stage and r["world_size"] == n:
                return r
        raise MissingEvidence(f"no run impl={impl!r} stage={stage!r} world_size={n}")

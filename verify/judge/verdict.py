"""A verdict and the sweep's evidence it is judged on (``verify.judge.claim`` judges from a claim's asserts).

    python -m verify          # judges every claim of every card

``missing-check`` stays a verdict for reports stored before claims stated what they assert.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# mismatch: the quoted text states a number its asserts does not; stale: the quoted text left the card
VERDICTS = ("confirmed", "refuted", "conditional", "unverifiable", "mismatch", "stale", "error", "missing-check")


@dataclass
class Verdict:
    verdict: str
    predicted: Any
    measured: Any
    reason_en: str
    reason_zh: str
    condition: str = ""
    # "algorithmic" (payloads → ideal ring), "wire" (socket bytes), "memory", "arithmetic", "none"
    judged: str = "algorithmic"
    extra: dict[str, Any] = field(default_factory=dict)
    asserts: str = ""  # the claim's assertion (judged by verify.judge.core)
    evaluated: list[dict[str, Any]] = field(default_factory=list)  # per measured configuration
    counterexample: str = ""
    reading: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; expected one of {VERDICTS}")

    @property
    def method(self) -> str:
        """How the numbers were obtained: measured (ranks, profiler, sockets), simulated, calculated, or none."""
        if "method" in self.extra:
            return str(self.extra["method"])
        return {"arithmetic": "calculated", "simulated": "simulated", "none": "none",
                "asserts": "none"}.get(self.judged, "measured")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "method": self.method}


class MissingEvidence(LookupError):
    """The sweep did not produce the run a check needs (e.g. PyTorch runs were skipped)."""


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

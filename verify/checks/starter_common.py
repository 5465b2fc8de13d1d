"""Verdict helpers shared by the starter deck's checks (collectives, DDP, mixed precision, FSDP2,
offload, checkpointing, tensor and pipeline parallelism).

    python -m verify   # every claim naming one of these checks is judged with them

``extra["method"]`` says how a number was obtained: "measured" (Gloo ranks, the profiler, real
tensors), "simulated" (a step-by-step simulator in ``verify.sim``) or "calculated" (arithmetic only:
nothing here can run it, e.g. PCIe on a machine without a GPU).
"""

from __future__ import annotations

from typing import Any

from verify.checks.registry import Verdict

WORLD_SIZES = (2, 4)


def probe(n: int) -> dict[str, Any]:
    """The Gloo probe at world size n (imports torch on first use, never at import time)."""
    from verify.experiments.dist_probe import probe as run

    return run(n)


def local_run(name: str, *args: Any, module: str = "local") -> Any:
    """One single-process measurement from ``verify.experiments.<module>`` (torch imported on first use)."""
    import importlib

    return getattr(importlib.import_module(f"verify.experiments.{module}"), name)(*args)


def close(a: float, b: float, *, rel: float = 1e-9, abs_: float = 0.0) -> bool:
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


def judged_verdict(
    ok: bool,
    predicted: Any,
    measured: Any,
    en: str,
    zh: str,
    *,
    method: str,
    judged: str,
    condition: str = "",
    conditional: bool = False,
) -> Verdict:
    """confirmed / conditional when ``ok`` (conditional when the claim needs ``condition``), else refuted."""
    verdict = ("conditional" if conditional else "confirmed") if ok else "refuted"
    return Verdict(
        verdict, predicted, measured, en, zh, condition=condition, judged=judged, extra={"method": method}
    )


def calculated(
    ok: bool, predicted: Any, recomputed: Any, en: str, zh: str, *, condition: str = ""
) -> Verdict:
    """An arithmetic re-derivation: confirmed when the card's numbers follow from the formula, else refuted.

    Marked ``method: calculated`` so nobody mistakes it for a measurement.
    """
    return Verdict(
        "confirmed" if ok else "refuted",
        predicted,
        recomputed,
        "Calculated, not measured: " + en,
        "计算所得，非实测：" + zh,
        condition=condition,
        judged="arithmetic",
        extra={"method": "calculated"},
    )

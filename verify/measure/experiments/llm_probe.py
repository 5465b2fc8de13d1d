"""The LLM-systems cards' measurements on Gloo ranks, in one launch per world size (cached per process).

    python -c "from verify.measure.experiments.llm_probe import probe; print(probe(2))"

Per rank: an expert-parallel MoE layer (``all_to_all``), ring attention and Ulysses (``ring_attention``);
at N = 2 also a DCP checkpoint of an FSDP2 model (``dcp_checkpoint``) and DDP's no_sync accumulation
(``grad_accumulation``). ``python -m verify`` runs it in the sweep's own ranks at the sizes the cards ask for
(``WORLD_SIZES``) and stores the results (``store``); otherwise it has a launch of its own with
``verify.measure.launch``
(fork, file rendezvous, OMP/torch threads = 1, the process group always destroyed, every rank killed on failure
or timeout).
"""

from __future__ import annotations

from functools import cache
from typing import Any

ACCUM_K = 4
WORLD_SIZES = (2, 4)  # the ranks the LLM cards' configurations ask for (N = 2 only for dcp and no_sync)


def probe_rank(n: int) -> dict[str, Any]:
    """This rank's results (inside an initialised Gloo group of n ranks: its own launch or the sweep's)."""
    return _rank(n)


def _rank(n: int) -> dict[str, Any]:
    from verify.measure.experiments.all_to_all import moe
    from verify.measure.experiments.ring_attention import ring_attention, ulysses

    out: dict[str, Any] = {"moe": moe(n), "ring_attention": ring_attention(n), "ulysses": ulysses(n)}
    if n == 2:
        from verify.measure.experiments.dcp_checkpoint import dcp
        from verify.measure.experiments.grad_accumulation import ddp_no_sync

        out["dcp"] = dcp(n)
        out["ddp_no_sync"] = ddp_no_sync(ACCUM_K)
    return out


_FROM_SWEEP: dict[int, tuple[dict[str, Any], ...]] = {}


def store(n: int, ranks: list[dict[str, Any]]) -> None:
    """Keep the results the sweep's own ranks measured at world size n (no second launch)."""
    _FROM_SWEEP[n] = tuple(ranks)


def forget() -> None:
    """Drop the sweep's results (a new run measures again)."""
    _FROM_SWEEP.clear()


def probe_ranks(n: int) -> tuple[dict[str, Any], ...]:
    """Every rank's result at world size n: from the sweep's ranks when it ran them at n, else one launch of its
    own (once per process)."""
    if n in _FROM_SWEEP:
        return _FROM_SWEEP[n]
    return _launched(n)


@cache
def _launched(n: int) -> tuple[dict[str, Any], ...]:
    import os

    import torch._dynamo  # noqa: F401  DDP and FSDP2 import it on first use: ~10 s per forked rank, once here

    from verify.measure.launch import launch

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    return tuple(launch(_rank, n, args=(n,), timeout_s=120.0))


def probe(n: int) -> dict[str, Any]:
    """Rank 0's result, with every rank's under "by_rank"."""
    ranks = probe_ranks(n)
    return {**ranks[0], "by_rank": list(ranks)}

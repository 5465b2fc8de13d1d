"""Data parallelism: DDP's gradient buckets, FSDP2's reshard_after_forward, gradient accumulation.

    python -c "from verify.measure.probes import probe; print(probe(2)['fsdp2'].keys())"   # Gloo ranks, torch

Ledger formulas: ``verify.known.formulas`` fsdp, ddp, grad_accumulation and ``verify.known.ledger`` (DDP's
payload). Measured on Gloo ranks (``verify.measure.experiments.dist_probe``: FSDP2 on 2 blocks + a root head,
3 units, at N = 2 and 4; DDP's buckets of 8 Linear(256, 256) on 2 ranks; ``llm_probe``: DDP with no_sync) and in
one CPU process (``verify.measure.experiments.grad_accumulation``: accumulated against full-batch gradients).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import sympy as sp

from verify.known import ledger
from verify.known.formulas import fsdp
from verify.known.formulas import grad_accumulation as ga
from verify.known.formulas.ddp import bucket_sizes
from verify.known.vocabulary.activations import k
from verify.known.vocabulary.readers import exact, simulated
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import b
from verify.known.vocabulary.zero import N, Psi

SYMBOLS = (
    SymbolSpec("Psi_u", "Ψ_u, parameters of one FSDP unit", grows=True),
    SymbolSpec("U", "FSDP units of a model (the root included)"),
    SymbolSpec("C", "DDP bucket cap (bytes)"),
    SymbolSpec("C_1", "DDP first-bucket cap (bytes)"),
    SymbolSpec("d", "data-parallel degree in 3D parallelism"),
)
Psi_u, U, C, C_1, d = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "reshard": ("reshard_true", "reshard_false", "reshard_default", "reshard_k"),  # FSDP2 reshard_after_forward
    "accum": ("scaled", "unscaled"),  # micro-batch losses divided by k, or not
    "sync": ("no_sync", "every_micro_step"),  # DDP's no_sync on the first k − 1 micro-batches, or not
}

ACCUM_KS = (2, 4, 8)
_RESHARD = {"reshard_true": "True", "reshard_false": "False", "reshard_default": "None", "reshard_k": "2"}  # runs
_MODE = {"reshard_true": True, "reshard_false": False, "reshard_default": None, "reshard_k": k}  # the formula's


# ---- FSDP2: 2 blocks + a root head (3 units) on Gloo
def _fsdp_configs(_ev: Any) -> list[Config]:
    return [Config(f"Gloo N={n_}", {"N": n_, "U": 3, "k": 2}) for n_ in (2, 4)]


def _fsdp_measure(read: Callable[[dict[str, Any], tuple[str, ...], int], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.probes import probe

        run: dict[str, Any] | None = probe(int(cfg.values["N"]))["fsdp2"].get(_RESHARD[args[0]])
        if run is None:
            return None  # this mode did not run at this N (k = 2 needs N = 4)
        psi = run["model_elements"] if "model_elements" in run else 2 * (16 * 16 + 16) + 16 * 8 + 8
        return sp.nsimplify(read(run, args, int(cfg.values["N"])), rational=True), {"Psi": psi}
    return measure


def _fsdp_calls(run: dict[str, Any], args: tuple[str, ...], _n: int) -> int:
    return sum(1 for r in run["records"] if (r["kind"], r["phase"]) == (args[1], args[2]))


def _fsdp_volume(run: dict[str, Any], _args: tuple[str, ...], _n: int) -> Any:
    """Σ over the step's all-gathers and reduce-scatters of what one rank sends when the ring simulator runs that
    call (its measured payload, its group), in elements (fp32: 4 bytes an element)."""
    return sum(_ring_phase_send(r["kind"], int(r["group"]), r["bytes"] // 4) for r in run["records"]
               if r["kind"] in ("all_gather", "reduce_scatter"))


@cache
def _ring_phase_send(kind: str, group: int, elements: int) -> sp.Expr:
    """Elements one rank sends, on average over the ranks, in that phase of a simulated ring of ``group`` ranks over
    ``elements`` (``verify.measure.sim.ring``; the mean, so a payload the ranks cannot split evenly counts exactly)."""
    from verify.measure.sim.ring import ring_allreduce

    run = ring_allreduce([[float(r)] * elements for r in range(group)])
    return sp.Rational(sum(run.sent_by_phase[kind]), group)


def _fsdp_backward_group(run: dict[str, Any], _args: tuple[str, ...], _n: int) -> Any:
    return max([0, *(x["group"] for x in run["records"]
                     if (x["kind"], x["phase"]) == ("all_gather", "backward") and x["group"] is not None)])


def _per_unit(reshard: str, key: str) -> Any:
    """``formulas.fsdp.per_unit`` of a non-root unit over symbols (reshard_k: k ranks)."""
    return fsdp.per_unit(mode=_MODE[reshard], n=N)[key]


def _ring_volume(reshard: str) -> Any:
    if reshard == "reshard_default":
        raise ValueError("reshard_default mixes True (blocks) and False (root): no single volume")
    return fsdp.ring_volume(mode=_MODE[reshard], n=N, psi=Psi)


def _backward_group(reshard: str) -> Any:
    group = _per_unit(reshard, "backward_all_gather")
    return group[0] if group else 0


# ---- DDP's buckets on 2 Gloo ranks (verify.measure.experiments.dist_probe.ddp_buckets; caps C, first C_1 in bytes)
def _ddp_configs(_ev: Any) -> list[Config]:
    return [Config("Gloo N=2", {"N": 2})]


def _ddp(read: Callable[[dict[str, Any], Config], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.probes import probe

        runs = probe(2)["ddp"]
        return sp.Integer(read(runs, cfg)), {"Psi": sum(runs["None"]["grad_bytes_reverse_order"]) // 4}
    return measure


def _ddp_elements(runs: dict[str, Any], _cfg: Config) -> int:
    return int(sum(runs["None"]["allreduce_bytes"]) // 4)


def _ddp_unexplained(runs: dict[str, Any], cfg: Config) -> int:
    """All-reduce calls (and other collectives) that the cap rule does not predict: the default run at (C, C_1),
    every other run at its explicit cap for every bucket."""
    bad = 0
    for cap, run in runs.items():
        if cap == "None":
            caps = {"cap_bytes": int(cfg.values["C"]), "first_cap_bytes": int(cfg.values["C_1"])}
        else:
            caps = {"cap_bytes": int(float(cap) * 2**20), "first_cap_bytes": int(float(cap) * 2**20)}
        want = Counter(bucket_sizes(grad_bytes=run["grad_bytes_reverse_order"], **caps))
        got = Counter(run["allreduce_bytes"])
        bad += sum(((want - got) + (got - want)).values()) + len(run["other_collectives"])
    return bad


# ---- gradient accumulation: one CPU process at k = 2, 4, 8; DDP's no_sync on 2 Gloo ranks
def _accum_configs(_ev: Any) -> list[Config]:
    return [Config(f"CPU k={k_}", {"k": k_}) for k_ in ACCUM_KS]


def _ddp_accum_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.llm_probe import ACCUM_K

    return [Config(f"Gloo N=2 k={ACCUM_K}", {"N": 2, "k": ACCUM_K})]


@cache
def _equivalence(k_: int) -> dict[str, Any]:
    from verify.measure.experiments.grad_accumulation import equivalence

    return dict(equivalence(k_))


def _accum_read(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        return exact(read(_equivalence(int(cfg.values["k"])), args)), {}
    return measure


def _ddp_accum(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    from verify.measure.experiments.llm_probe import ACCUM_K, probe

    if int(cfg.values.get("k", 0)) != ACCUM_K or int(cfg.values.get("N", 2)) != 2:
        return None
    return sp.Integer(max(r["ddp_no_sync"][args[0]]["all_reduce_calls"] for r in probe(2)["by_rank"])), {}


# (b, k, d) of the simulated training loops; m (a pipeline's micro-batches per step) is k there
BATCH_CASES = ((4, 8, 2), (2, 4, 4), (1, 2, 8), (3, 1, 5))


def _batch_configs(_ev: Any) -> list[Config]:
    return [Config(f"sim b={b_} k={k_} d={d_}", {"b": b_, "k": k_, "d": d_, "m": k_}) for b_, k_, d_ in BATCH_CASES]


def _samples_per_step(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    """Distinct samples whose gradient reaches one optimizer step of the simulated loop
    (``verify.measure.sim.global_batch``)."""
    from verify.measure.sim.global_batch import run

    if not {"b", "k", "d"} <= set(at) or not all(sp.sympify(at[x]).is_Integer for x in "bkd"):
        return None
    return run(b=int(at["b"]), k=int(at["k"]), d=int(at["d"])).samples_per_step  # what rank 0 stepped on


FAMILIES = (
    Family("batch", _batch_configs, "simulated data-parallel loops with accumulation", rerunnable=True,
           needs=("b", "k", "d")),
    Family("fsdp", _fsdp_configs, "FSDP2 on 2 and 4 Gloo ranks", gloo_probe=True),
    Family("ddp", _ddp_configs, "DDP on 2 Gloo ranks", rerunnable=True, gloo_probe=True),
    Family("accum", _accum_configs, "one CPU process", rerunnable=True),
    Family("ddp_accum", _ddp_accum_configs, "DDP on 2 Gloo ranks", gloo_probe=True),
)

QUANTITIES = (
    # ---- FSDP2 reshard_after_forward (verify.known.formulas.fsdp), 3 units on Gloo
    Quantity("fsdp_calls", ("reshard", "collective", "phase"), "calls", "measured",
             "FSDP2 collective calls per step over the model's U units (the root follows False under None)",
             lambda r, coll, ph: fsdp.calls_per_step(mode=_MODE[r], n=N, units=U, collective=coll, phase=ph),
             "fsdp", _fsdp_measure(_fsdp_calls)),
    Quantity("fsdp_held_after_forward", ("reshard",), "fraction", "measured",
             "share of a (non-root) unit's parameters a rank holds between forward and backward",
             lambda r: _per_unit(r, "held_after_forward"), "fsdp",
             _fsdp_measure(lambda r, _a, _n: sp.Rational(r["block_held_after_forward"], r["block_unsharded"]))),
    Quantity("fsdp_ring_volume", ("reshard",), "elements", "simulated",
             "elements a rank would send per step with ideal rings: FSDP2's measured payloads (each all-gather and "
             "reduce-scatter it called, with its group), each run through the ring simulator (verify.measure.sim"
             ".ring); simulated, not measured on the wire (FSDP2 calls the backend's collectives; its socket bytes "
             "are Gloo's)",
             _ring_volume, "fsdp", _fsdp_measure(_fsdp_volume)),
    Quantity("fsdp_backward_group", ("reshard",), "ranks", "measured",
             "ranks in a unit's backward all-gather (0: none)", _backward_group, "fsdp",
             _fsdp_measure(_fsdp_backward_group)),
    # ---- DDP's gradient buckets (verify.known.formulas.ddp), 8 Linear(256, 256) on 2 Gloo ranks
    Quantity("ddp_allreduced_elements", (), "elements", "measured",
             "gradient elements DDP all-reduces in one step (after the bucket rebuild): Ψ",
             lambda: ledger.comm_payload_elements(stage="ddp", psi=Psi, n=N)["all_reduce/backward"], "ddp",
             _ddp(_ddp_elements)),
    Quantity("ddp_buckets_unexplained", (), "calls", "measured",
             "all-reduce calls whose size the cap rule does not predict (a bucket closes once it reaches its cap: "
             "C_1 for the first, C after; an explicit bucket_cap_mb run with its own cap), plus other collectives",
             lambda: sp.Integer(0), "ddp", _ddp(_ddp_unexplained)),
    # ---- gradient accumulation (verify.known.formulas.grad_accumulation)
    Quantity("accum_grad_error", ("accum",), "value", "measured",
             "largest |difference| between the accumulated gradient of k micro-batches and the k·b-sample batch's "
             "(fp64 MLP); measured only", None, "accum", _accum_read(lambda r, a: r[a[0]]["max_abs_diff"])),
    Quantity("accum_grad_ratio", ("accum",), "ratio", "measured",
             "norm of the accumulated gradient over the full batch's: 1 with losses divided by k, k without",
             lambda a: ga.gradient_ratio(k=k, scaled=a == "scaled"), "accum",
             _accum_read(lambda r, a: r[a[0]]["norm_ratio"]), tolerance=sp.Rational(1, 10**9)),
    Quantity("accum_token_mean_error", (), "relative error", "measured",
             "relative error of averaging a token-level loss per micro-batch (unequal token counts) against the "
             "global token mean; measured only", None, "accum", _accum_read(lambda r, _a: r["token_mean_rel_error"])),
    Quantity("ddp_accum_allreduces", ("sync",), "all-reduces", "measured",
             "DDP gradient all-reduces (one bucket) per optimizer step of k micro-batches: 1 with no_sync, k without "
             "(comm meter)", lambda mode: ga.allreduces_per_step(k=k, no_sync=mode == "no_sync"), "ddp_accum",
             _ddp_accum),
    # simulated: the samples a data-parallel loop with accumulation feeds one optimizer step, counted
    Quantity("global_batch", (), "samples", "simulated", "samples per optimizer step: b·k·d (simulated: the "
             "distinct samples of one optimizer step of d ranks accumulating k micro-batches of b)",
             lambda: ga.global_batch(b=b, k=k, d=d), "batch", simulated(_samples_per_step)),
)

"""ZeRO's memory and communication, measured on the sweep's reference stages and on PyTorch's implementations.

    python -m verify   # the sweep: DDP and ZeRO-1/2/3 (and PyTorch's own) at each N, Ψ = 1M

Ledger formulas: ``verify.known.ledger`` (per-rank bytes, payloads, ring volumes, Gloo's wire bytes, calls per
step). Each N of the sweep is one configuration, with that run's Ψ_pad (flat buffers rounded up to N). PyTorch's
implementations (torch-ddp, torch-ddp-default, torch-zero-redundancy, torch-fsdp2-no-reshard / -reshard) are
measured only (formula None): PyTorch is not the ledger; claims compare them with the reference stages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known import ledger
from verify.known.vocabulary.records import Config, Family, Measure, MeterUnavailable, Quantity, SymbolSpec, symbols
from verify.measure.meters import wire

SYMBOLS = (
    SymbolSpec("Psi", "Ψ, parameters of the model (Ψ_pad in a sharded run: flat buffers rounded up to N)",
               grows=True),
    SymbolSpec("N", "data-parallel ranks (world size)", lower=2, grows=True),
    SymbolSpec("L", "layers", grows=True),
)
Psi, N, L = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "stage": ledger.STAGES,
    "phase": ("forward", "backward", "step"),
    "impl": ("torch_ddp", "ddp_default", "zero_redundancy", "fsdp2_reshard", "fsdp2_no_reshard"),  # PyTorch's own
}


def _zero_configs(ev: Any) -> list[Config]:
    return [Config(f"N={n}", {"N": n}, {"n": n}) for n in ev.world_sizes]


FAMILIES = (Family("zero", _zero_configs, "ZeRO sweep runs"),)


def _run_symbols(run: dict[str, Any]) -> dict[str, Any]:
    return {"Psi": run["psi_padded"], "psi": run["psi"], "L": run["layers"]}


def _zero_measure(read: Callable[[dict[str, Any], str], Any]) -> Measure:
    """A reader of one ZeRO-sweep run: ``read(run, stage)`` → the value; Ψ is that run's Ψ_pad."""
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = ev.run(args[0], cfg.where["n"])
        value = read(run, args[0] if len(args) == 1 else ",".join(args))
        if value is None:
            return None
        return sp.nsimplify(value, rational=True), _run_symbols(run)
    return measure


def _ring_measured(run: dict[str, Any], _stage: str) -> Any:
    """Elements one rank sent in the step run on send/recv ring collectives (``verify.measure.stages.collectives``):
    the mean over ranks of the bytes handed to ``isend`` (exact when N does not divide a buffer and ranks'
    chunks differ by an element), over the element size. No factor is assumed anywhere."""
    sent = run["measured"].get("ring_sent_bytes_per_rank")
    if not sent:
        raise MeterUnavailable("the ring step did not run (--collectives native): no ideal-ring volume was measured")
    return sp.Rational(sum(sent), len(sent) * run["bytes_per_element"])


def _wire_measured(run: dict[str, Any], _stage: str) -> Any:
    backend = run.get("backend", "gloo")
    if backend != "gloo":
        raise MeterUnavailable(f"wire bytes are Gloo's socket bytes; this run's backend is {backend} (NCCL moves data "
                               "over NVLink/PCIe/IB, invisible to TCP socket counters)")
    if run["measured"]["wire_bytes_sent"] is None:
        raise MeterUnavailable(wire.NO_COUNTERS)
    return run["measured"]["wire_bytes_sent"]


def _peak_over_bound(run: dict[str, Any], _stage: str) -> Any:
    """Worst profiled forward/backward pass on ring collectives over the bound built from measured terms."""
    bound = run["predicted"].get("zero3_ring_bound_bytes")
    if bound is None or "ring_peak_transient_bytes" not in run["measured"]:
        raise MeterUnavailable("the ring pass did not run (--collectives native): no deterministic peak to judge")
    return sp.Rational(run["measured"]["ring_peak_transient_bytes"]) / sp.nsimplify(bound, rational=True)


def _calls(run: dict[str, Any], args: str) -> Any:
    _, collective, phase = args.split(",")
    return run["measured"]["comm_calls"].get(f"{collective}/{phase}", 0)


# ---- PyTorch's implementations: torch-ddp (gradient_as_bucket_view=True), torch-ddp-default (PyTorch's default
# False), torch-zero-redundancy (DDP + ZeroRedundancyOptimizer), torch-fsdp2-no-reshard / -reshard (fully_shard
# reshard_after_forward False / True)
def impl_run_name(impl: str) -> str:
    """An ``impl`` argument → its run's name: torch_ddp → torch-ddp, fsdp2_reshard → torch-fsdp2-reshard."""
    return impl.replace("_", "-") if impl.startswith("torch_") else "torch-" + impl.replace("_", "-")


def _impl_calls(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    impl = impl_run_name(args[0])
    run = next((r for r in ev.runs if r["impl"] == impl and r["world_size"] == cfg.where["n"]), None)
    if run is None:
        return None
    calls = run["measured"]["comm_calls"].get(f"{args[1]}/{args[2]}", 0)
    return sp.Integer(calls), _run_symbols(run)


def _impl_run(ev: Any, cfg: Config, impl: str) -> dict[str, Any]:
    name = impl_run_name(impl)
    run = next((r for r in ev.runs if r["impl"] == name and r["world_size"] == cfg.where["n"]), None)
    if run is None:
        raise MeterUnavailable(f"no run of {name} at N={cfg.where['n']} (PyTorch's implementations were skipped: "
                               "drop --no-torch)")
    return dict(run)


def _impl_measure(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _impl_run(ev, cfg, args[0])
        value = read(run, args)
        if value is None:
            return None
        return sp.nsimplify(value, rational=True), _run_symbols(run)
    return measure


def _hidden(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    me = run["measured"]
    if me.get("retained_bytes") is None:
        raise MeterUnavailable("the retained-bytes meter did not run")
    return me["retained_bytes"] - me["persistent_bytes"]


def _impl_payload(run: dict[str, Any], args: tuple[str, ...]) -> Any:
    """Elements as the collectives carried them (counted, not bytes over an assumed element size: FSDP2 stores
    fp32 parameters and all-gathers them in bf16)."""
    elements = run["measured"].get("comm_payload_elements")
    if elements is None:
        raise MeterUnavailable("this run predates the payload element counts (run `python -m verify` again)")
    return sp.Integer(elements.get(args[1], 0))


def _shard_spread(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    per_rank = run["measured"]["optim_bytes_per_rank"]
    return sp.Rational(max(per_rank), min(per_rank))


QUANTITIES = (
    # ---- per-rank persistent bytes, measured on the reference stages (distinct storages)
    Quantity("param_bytes", ("stage",), "bytes", "construction", "per-rank parameter bytes (bf16)",
             lambda st: ledger.param_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(lambda r, _s: r["measured"]["param_bytes"]), per_psi=True),
    Quantity("grad_bytes", ("stage",), "bytes", "construction", "per-rank gradient bytes (bf16)",
             lambda st: ledger.grad_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(lambda r, _s: r["measured"]["grad_bytes"]), per_psi=True),
    Quantity("optim_bytes", ("stage",), "bytes", "construction",
             "per-rank optimizer-state bytes (fp32 master + Adam m + v, K = 12)",
             lambda st: ledger.optim_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(lambda r, _s: r["measured"]["optim_bytes"]), per_psi=True),
    Quantity("model_state_bytes", ("stage",), "bytes", "construction",
             "parameters + gradients + optimizer states per rank",
             lambda st: ledger.model_state_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(lambda r, _s: sum(r["measured"][x] for x in ("param_bytes", "grad_bytes",
                                                                        "optim_bytes"))), per_psi=True),
    # ---- communication per step
    Quantity("comm_volume", ("stage",), "elements", "measured",
             "elements one rank sends per step with ideal ring collectives (the step run on send/recv rings, "
             "bytes handed to isend counted, mean over ranks)",
             lambda st: ledger.ring_volume_elements(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(_ring_measured), per_psi=True),
    Quantity("comm_payload", ("stage", "collective"), "elements", "measured",
             "elements a stage's collectives of one kind carry per step (payload, before the ring factor)",
             lambda st, coll: ledger.collective_payload_elements(stage=st, collective=coll, psi=Psi, n=N), "zero",
             _zero_measure(lambda r, a: sp.Rational(r["measured"]["comm_payload_bytes"].get(a.split(",")[1], 0),
                                                    r["bytes_per_element"])), per_psi=True),
    Quantity("wire_bytes", ("stage",), "bytes", "measured",
             "bytes one rank's Gloo sockets sent per step (Gloo's reduce-scatter is a full all-reduce)",
             lambda st: ledger.gloo_wire_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(_wire_measured), per_psi=True),
    Quantity("collective_calls", ("stage", "collective", "phase"), "calls", "construction",
             "collective calls of one kind in one phase of a step (L = layers)",
             lambda st, coll, ph: ledger.collective_calls(stage=st, collective=coll, phase=ph, layers=L), "zero",
             _zero_measure(_calls)),
    Quantity("peak_over_bound", ("stage",), "ratio", "measured",
             "forward/backward peak above the persistent bytes (worst of the profiled passes on ring collectives, "
             "which no backend thread holds late) over the bound from measured terms: 2 × saved activations "
             "(saved_tensors_hooks) + one gathered layer + its 1/N shard + one reduce-scatter's temporaries "
             "(profiled alone); a second gathered layer exceeds it; measured only",
             None, "zero", _zero_measure(_peak_over_bound)),
    Quantity("impl_collective_calls", ("impl", "collective", "phase"), "calls", "measured",
             "collective calls of one kind in one phase of a step with PyTorch's implementation (measured only: "
             "PyTorch is not the ledger)", None, "zero", _impl_calls),
    # ---- PyTorch's implementations, measured only
    Quantity("impl_model_state_bytes", ("impl",), "bytes", "measured",
             "per-rank bytes of the parameters, gradients and optimizer state PyTorch's implementation keeps between "
             "steps (distinct storages; rescaled to the model's Ψ)", None, "zero",
             _impl_measure(lambda r, _a: r["measured"]["persistent_bytes"]), per_psi=True),
    Quantity("impl_grad_bytes", ("impl",), "bytes", "measured", "per-rank gradient bytes of PyTorch's implementation",
             None, "zero", _impl_measure(lambda r, _a: r["measured"]["grad_bytes"]), per_psi=True),
    Quantity("impl_hidden_bytes", ("impl",), "bytes", "measured",
             "bytes PyTorch's implementation allocated while building and warming up and still holds beyond its "
             "visible tensors (profiler allocations − frees − the state's storages): DDP's bucket copy of the "
             "gradients with the default gradient_as_bucket_view=False", None, "zero",
             _impl_measure(_hidden), per_psi=True),
    Quantity("impl_peak_bytes", ("impl",), "bytes", "measured",
             "forward/backward peak above the persistent bytes with PyTorch's implementation (worst profiled pass)",
             None, "zero", _impl_measure(lambda r, _a: r["measured"]["peak_transient_bytes"]), per_psi=True),
    Quantity("impl_comm_payload", ("impl", "collective"), "elements", "measured",
             "elements PyTorch's collectives of one kind carry per step, counted as elements (payload; "
             "ZeroRedundancyOptimizer's broadcasts, FSDP2's all-gathers, which carry its fp32 parameters "
             "in bf16)", None, "zero", _impl_measure(_impl_payload), per_psi=True),
    Quantity("impl_optim_shard_spread", ("impl",), "ratio", "measured",
             "largest over smallest per-rank optimizer-state bytes (1 = even shards; ZeroRedundancyOptimizer "
             "assigns whole parameters)", None, "zero", _impl_measure(_shard_spread)),
    Quantity("impl_wire_bytes", ("impl",), "bytes", "measured",
             "bytes one rank's Gloo sockets sent per step with PyTorch's implementation", None, "zero",
             _impl_measure(lambda r, _a: _wire_measured(r, "")), per_psi=True),
)

"""The vocabulary claims are written in: every quantity a card's ``asserts:`` may name, its symbols and units.

    python -c "from verify.vocabulary import table; print(table())"

A quantity has a name, arguments (a stage, a collective, a schedule …), a unit, how it is obtained
(``measured`` on ranks, ``simulated`` step by step, ``calculated`` from its formula only), its **ledger
formula** (a sympy expression built from ``verify.ledger`` / ``verify.formulas``: formulas stay there, apart
from any measurement) and, where something measures it, how to read its value in one configuration of
the evidence (each world size N, with that run's Ψ and Ψ_pad). Nothing here holds a claim's number.

Symbols are positive; integer ones have a lower bound (N ≥ 2 ranks, p ≥ 2 stages …) that the symbolic
judge uses for "for every admissible value", the smallest counterexample and limits (``grows``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import sympy as sp

from verify import ledger
from verify.formulas import collectives as coll
from verify.formulas import mixed_precision as mp
from verify.formulas import offload as off
from verify.formulas import pipeline as pipe
from verify.formulas import tensor_parallel as tp


@dataclass(frozen=True)
class SymbolSpec:
    name: str
    meaning: str
    lower: int = 1  # smallest admissible value
    integer: bool = True
    grows: bool = False  # a claim may hold only as this symbol → ∞ (the judge tries that limit)

    @property
    def symbol(self) -> sp.Symbol:
        return sp.Symbol(self.name, positive=True, integer=self.integer or None)


SYMBOL_SPECS = (
    SymbolSpec("Psi", "Ψ, parameters of the model (Ψ_pad in a sharded run: flat buffers rounded up to N)",
               grows=True),
    SymbolSpec("N", "data-parallel ranks (world size)", lower=2, grows=True),
    SymbolSpec("L", "layers", grows=True),
    SymbolSpec("k", "checkpointed segments"),
    SymbolSpec("p", "pipeline stages", lower=2),
    SymbolSpec("m", "micro-batches per step", grows=True),
    SymbolSpec("v", "virtual pipeline stages per device"),
    SymbolSpec("t", "tensor-parallel degree", lower=2),
    SymbolSpec("M", "message size of one collective (elements or bytes, as the claim's unit)", integer=False),
    SymbolSpec("b", "micro-batch size (sequences)"),
    SymbolSpec("s", "sequence length"),
    SymbolSpec("h", "hidden size"),
    SymbolSpec("a", "attention heads"),
    SymbolSpec("r", "PCIe lane rate (GT/s)", integer=False),
    SymbolSpec("t_f", "forward time of one micro-batch on one stage", integer=False),
    SymbolSpec("t_b", "backward time of one micro-batch on one stage", integer=False),
)
SYMBOLS: dict[str, sp.Symbol] = {s.name: s.symbol for s in SYMBOL_SPECS}
SPEC_OF: dict[sp.Symbol, SymbolSpec] = {s.symbol: s for s in SYMBOL_SPECS}
Psi, N, L, k, p, m, v, t, M, b, s, h, a, t_f, t_b = (SYMBOLS[x] for x in ("Psi", "N", "L", "k", "p", "m", "v", "t",
                                                                          "M", "b", "s", "h", "a", "t_f", "t_b"))

# units a claim may multiply by (decimal, as the cards write GB; GiB is 2^30)
UNITS: dict[str, sp.Expr] = {
    "KB": sp.Integer(10**3), "MB": sp.Integer(10**6), "GB": sp.Integer(10**9), "TB": sp.Integer(10**12),
    "GiB": sp.Integer(2**30), "MiB": sp.Integer(2**20), "B": sp.Integer(10**9),  # B: billion (parameters)
    "ms": sp.Rational(1, 1000), "percent": sp.Rational(1, 100),
}

# argument values: stages, collectives, phases, schedules
ARG_VALUES: dict[str, tuple[str, ...]] = {
    "stage": ledger.STAGES,
    "collective": ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast"),
    "phase": ("forward", "backward", "step"),
    "schedule": ("gpipe", "onef1b", "interleaved"),
    "impl": ("torch_ddp", "ddp_default", "zero_redundancy", "fsdp2_reshard", "fsdp2_no_reshard"),  # PyTorch's own
}


class MeterUnavailable(LookupError):
    """A quantity this run cannot measure (no ``ss``, no ring step, another backend): its claims come out
    ``unverifiable`` with this message, never judged from the ledger alone."""


@dataclass(frozen=True)
class Config:
    """One measured configuration: the symbol values the evidence ran with, and where to read it."""

    label: str  # "N=2"
    values: Mapping[str, Any]  # symbol name → value (e.g. {"N": 2})
    where: Mapping[str, Any] = field(default_factory=dict)  # family-specific handles (world size …)


Formula = Callable[..., sp.Expr]
Measure = Callable[[Any, Config, tuple[str, ...]], "tuple[sp.Expr, dict[str, Any]] | None"]
ConfigsFn = Callable[[Any], list[Config]]


@dataclass(frozen=True)
class Quantity:
    name: str
    params: tuple[str, ...]  # argument kinds, e.g. ("stage",)
    unit: str
    method: str  # measured | construction (holds because the reference code is written so) | simulated | calculated
    doc: str
    formula: Formula | None  # (*args) -> sympy expression in SYMBOLS; None: measured only
    family: str = "none"  # whose configurations it is measured in ("zero" = the ZeRO sweep's runs)
    # (evidence, config, args) -> (value, symbol values of that run, e.g. {"Psi": psi_pad}) or None
    measure: Measure | None = None
    # a measurement within this of the ledger agrees (profiler peaks, socket headers); may name symbols (M / 100)
    tolerance: sp.Expr = sp.Integer(0)
    # proportional to Ψ: a run's value is rescaled from its Ψ_pad to the model's Ψ before the assertion is
    # evaluated (so stages with different padding compare); the ledger check uses the raw value and Ψ_pad
    per_psi: bool = False

    def ledger(self, args: tuple[str, ...]) -> sp.Expr | None:
        return None if self.formula is None else _ledger(self.name, args)


@cache
def _ledger(name: str, args: tuple[str, ...]) -> sp.Expr:
    formula = QUANTITIES[name].formula
    assert formula is not None
    return sp.nsimplify(sp.sympify(formula(*args)), rational=True)


def _zero_configs(ev: Any) -> list[Config]:
    return [Config(f"N={n}", {"N": n}, {"n": n}) for n in ev.world_sizes]


def _zero_measure(read: Callable[[dict[str, Any], str], Any]) -> Measure:
    """A reader of one ZeRO-sweep run: ``read(run, stage)`` → the value; Ψ is that run's Ψ_pad."""
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = ev.run(args[0], cfg.where["n"])
        value = read(run, args[0] if len(args) == 1 else ",".join(args))
        if value is None:
            return None
        return sp.nsimplify(value, rational=True), {"Psi": run["psi_padded"], "psi": run["psi"], "L": run["layers"]}
    return measure


def impl_run_name(impl: str) -> str:
    """An ``impl`` argument → its run's name: torch_ddp → torch-ddp, fsdp2_reshard → torch-fsdp2-reshard."""
    return impl.replace("_", "-") if impl.startswith("torch_") else "torch-" + impl.replace("_", "-")


def _impl_calls(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    impl = impl_run_name(args[0])
    run = next((r for r in ev.runs if r["impl"] == impl and r["world_size"] == cfg.where["n"]), None)
    if run is None:
        return None
    calls = run["measured"]["comm_calls"].get(f"{args[1]}/{args[2]}", 0)
    return sp.Integer(calls), {"Psi": run["psi_padded"], "psi": run["psi"], "L": run["layers"]}


# pipeline schedules, run op by op (verify.sim.pipeline): (p, m, v) with t_f = 1, t_b = 2
PIPELINE_CASES = ((4, 8, 2), (4, 32, 2), (4, 16, 4), (2, 4, 2), (8, 16, 2), (3, 9, 3))
_SCHEDULE = {"gpipe": "gpipe", "onef1b": "1f1b", "interleaved": "interleaved"}


def _pipeline_configs(_ev: Any) -> list[Config]:
    return [Config(f"p={p_} m={m_} v={v_}", {"p": p_, "m": m_, "v": v_, "t_f": 1, "t_b": 2}) for p_, m_, v_ in
            PIPELINE_CASES]


def _simulated(read: Callable[[Any], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.sim.pipeline import simulate

        at = cfg.values
        sched = _SCHEDULE[args[0]]
        if sched == "interleaved" and at["m"] % at["p"]:
            return None
        run = simulate(sched, p=int(at["p"]), m=int(at["m"]), t_f=float(at.get("t_f", 1)),
                       t_b=float(at.get("t_b", 2)), **({"v": int(at["v"])} if sched == "interleaved" else {}))
        return sp.nsimplify(read(run), rational=True, tolerance=1e-12), {}
    return measure


# ---- collectives: Gloo ranks (socket bytes around one call of M = 1 MiB fp32) and the ring simulator
def _gloo_configs(ev: Any) -> list[Config]:
    """The world sizes the run asked for (its evidence), or N = 2 and 4 when judged without a sweep."""
    from verify.experiments.sizes import WIRE_ELEMENTS

    sizes = ev.world_sizes if ev is not None and getattr(ev, "runs", None) else (2, 4)
    return [Config(f"Gloo N={n_}", {"N": n_, "M": 4 * WIRE_ELEMENTS}) for n_ in sizes]


def _gloo(total: bool) -> Measure:
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.checks.starter_common import probe

        backend = getattr(ev, "backend", "gloo")
        if backend != "gloo":
            raise MeterUnavailable(f"Gloo's socket bytes cannot be measured on backend {backend}: "
                                   "run with --backend gloo")
        sent = [r[args[0]] for r in probe(int(cfg.values["N"]))["wire_by_rank"]]
        if None in sent:
            raise MeterUnavailable("no socket counters: `ss` (iproute2) is not installed; "
                                   "install it to measure wire bytes")
        value = sum(sent) if total else sent[0] if args[0] == "broadcast" else max(sent)
        return sp.Integer(value), {}
    return measure


def _gloo_send(op: str) -> sp.Expr:
    if op == "broadcast":
        return sp.ceiling(sp.log(N, 2)) * M  # = coll.tree_broadcast_root_send over symbols
    return coll.gloo_send(op=op, n=N, m=M)


def _gloo_total(op: str) -> sp.Expr:
    return (N - 1) * M if op == "broadcast" else N * _gloo_send(op)  # = coll.tree_broadcast_total_send


def _ring_configs(_ev: Any) -> list[Config]:
    return [Config(f"ring N={n_}", {"N": n_, "M": 4 * n_}) for n_ in (2, 3, 4, 8)]


def _ring_sim(read: Callable[[Any, str], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.sim.ring import ring_allreduce

        n_, m_ = int(cfg.values["N"]), int(cfg.values["M"])
        data = [[float((r + 1) * (i + 1)) for i in range(m_)] for r in range(n_)]
        run = ring_allreduce(data)
        want = [sum(col) for col in zip(*data, strict=True)]
        if any(row != want for row in run.result):
            return sp.nan, {}  # a wrong sum: never agrees with anything
        return sp.Integer(read(run, args[0])), {}
    return measure


def _ring_sent(run: Any, op: str) -> int:
    if op == "all_reduce":
        return max(run.sent)
    return max(run.sent_by_phase[op])


def _ring_steps_of(run: Any, op: str) -> int:
    return sum(run.steps.values()) if op == "all_reduce" else run.steps[op]


def _checkpoint_configs(_ev: Any) -> list[Config]:
    from verify.checks.starter_common import local_run

    r = local_run("checkpointing")
    return [Config(f"L={r['layers']} k={seg}", {"L": r["layers"], "k": int(seg)}) for seg in r["runs"] if seg != "None"]


def _checkpoint(read: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Measure:
    """One ``checkpoint_sequential`` run (16 × Linear+ReLU, profiler peak, counted Linear forwards)."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.checks.starter_common import local_run

        r = local_run("checkpointing")
        run = r["runs"].get(str(cfg.values.get("k")))
        if run is None or cfg.values.get("L") != r["layers"]:
            return None
        return sp.nsimplify(read(r, run), rational=True, tolerance=1e-6), {}
    return measure


def _peak_units(r: dict[str, Any], run: dict[str, Any]) -> float:
    """Saved layer activations at the peak: peak bytes over one unit, less the backward constant of the run
    without checkpointing (gradient buffers: the same in every run)."""
    const = r["runs"]["None"]["peak_bytes"] / r["unit_bytes"] - r["layers"]
    return float(run["peak_bytes"] / r["unit_bytes"] - const)


def _in_flight(schedule: str, stage: sp.Expr | int) -> sp.Expr:
    """``formulas.pipeline.peak_in_flight`` over symbols (its ``min`` as sympy's Min)."""
    if schedule == "gpipe":
        return m
    if schedule == "onef1b":
        return sp.Min(p - stage, m)
    raise ValueError(f"no in-flight formula for {schedule!r}")


def _payload(stage: str, collective: str) -> sp.Expr:
    got = ledger.comm_payload_elements(stage=stage, psi=Psi, n=N)  # type: ignore[arg-type]
    return sp.Add(*[e for key, e in got.items() if key.split("/")[0] == collective])


def _ring_measured(run: dict[str, Any], _stage: str) -> Any:
    """Elements one rank sent in the step run on send/recv ring collectives (``verify.stages.collectives``):
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
                          "over NVLink/PCIe/IB, invisible to ss)")
    if run["measured"]["wire_bytes_sent"] is None:
        raise MeterUnavailable("no socket counters: `ss` (iproute2) is not installed; install it to measure wire bytes")
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


def _ag_calls(stage: str, collective: str, phase: str) -> sp.Expr:
    """Collective calls per step and phase: ZeRO-3 gathers each layer before forward and before backward."""
    per_layer = {("zero3", "all_gather", "forward"), ("zero3", "all_gather", "backward"),
                 ("zero3", "reduce_scatter", "backward")}
    if (stage, collective, phase) in per_layer:
        return L
    keys = ledger.comm_payload_elements(stage=stage, psi=Psi, n=N)  # type: ignore[arg-type]
    if f"{collective}/{phase}" not in keys:
        return sp.Integer(0)
    return L if stage == "zero2" and collective == "reduce_scatter" else sp.Integer(1)


def _ring_steps(op: str) -> sp.Expr:
    return sp.Integer(coll._PASSES[op]) * (N - 1)


QUANTITIES: dict[str, Quantity] = {q.name: q for q in (
    # ---- ZeRO: per-rank persistent bytes, measured on the reference stages (distinct storages)
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
    Quantity("comm_volume", ("stage",), "elements", "measured",
             "elements one rank sends per step with ideal ring collectives (the step run on send/recv rings, "
             "bytes handed to isend counted, mean over ranks)",
             lambda st: ledger.ring_volume_elements(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(_ring_measured), per_psi=True),
    Quantity("comm_payload", ("stage", "collective"), "elements", "measured",
             "elements a stage's collectives of one kind carry per step (payload, before the ring factor)",
             _payload, "zero",
             _zero_measure(lambda r, a: sp.Rational(r["measured"]["comm_payload_bytes"].get(a.split(",")[1], 0),
                                                    r["bytes_per_element"])), per_psi=True),
    Quantity("wire_bytes", ("stage",), "bytes", "measured",
             "bytes one rank's Gloo sockets sent per step (Gloo's reduce-scatter is a full all-reduce)",
             lambda st: ledger.gloo_wire_bytes(stage=st, psi=Psi, n=N), "zero",
             _zero_measure(_wire_measured), per_psi=True),
    Quantity("collective_calls", ("stage", "collective", "phase"), "calls", "construction",
             "collective calls of one kind in one phase of a step (L = layers)",
             _ag_calls, "zero", _zero_measure(_calls)),
    Quantity("peak_over_bound", ("stage",), "ratio", "measured",
             "forward/backward peak above the persistent bytes (worst of the profiled passes on ring collectives, "
             "which no backend thread holds late) over the bound from measured terms: 2 × saved activations "
             "(saved_tensors_hooks) + one gathered layer + its 1/N shard + one reduce-scatter's temporaries "
             "(profiled alone); a second gathered layer exceeds it; measured only",
             None, "zero", _zero_measure(_peak_over_bound)),
    Quantity("impl_collective_calls", ("impl", "collective", "phase"), "calls", "measured",
             "collective calls of one kind in one phase of a step with PyTorch's implementation (measured only: "
             "PyTorch is not the ledger)", None, "zero", _impl_calls),
    # ---- collectives (formulas of verify.formulas.collectives; M = payload)
    Quantity("ring_send", ("collective",), "elements", "simulated",
             "what one rank sends in an ideal ring collective of M elements: (N−1)/N·M per pass (ring run step by "
             "step for reduce-scatter, all-gather, all-reduce)",
             lambda op: coll.ring_send(op=op, n=N, m=M), "ring", _ring_sim(_ring_sent)),
    Quantity("ring_steps", ("collective",), "steps", "simulated", "communication steps of a ring collective",
             _ring_steps, "ring", _ring_sim(_ring_steps_of)),
    Quantity("gloo_wire_send", ("collective",), "bytes", "measured",
             "bytes one rank's Gloo sockets send for one collective of M bytes (the root, for broadcast); ± 1% of M",
             _gloo_send, "gloo", _gloo(total=False), tolerance=M / 100),
    Quantity("gloo_wire_total", ("collective",), "bytes", "measured",
             "bytes all ranks' Gloo sockets send together for one collective of M bytes; ± 1% of M per rank",
             _gloo_total, "gloo", _gloo(total=True), tolerance=N * M / 100),
    # ---- pipeline parallelism (verify.formulas.pipeline), simulated op by op (verify.sim.pipeline)
    Quantity("pipeline_step_time", ("schedule",), "time", "simulated", "one step's makespan: (m+p−1)(t_f+t_b)",
             lambda _sch: pipe.step_time(p=p, m=m, t_f=t_f, t_b=t_b), "pipeline",
             _simulated(lambda run: run.makespan)),
    Quantity("bubble_fraction", ("schedule",), "fraction", "simulated", "idle share of a step: (p−1)/(m+p−1)",
             lambda _sch: pipe.bubble_fraction(p=p, m=m), "pipeline",
             _simulated(lambda run: run.bubble_fraction)),
    Quantity("bubble_over_ideal", ("schedule",), "fraction", "simulated",
             "idle time over ideal compute time (Narayanan et al.): (p−1)/(v·m), v = 1 unless interleaved",
             lambda sch: pipe.bubble_over_ideal(p=p, m=m, v=v if sch == "interleaved" else 1),
             "pipeline", _simulated(lambda run: run.bubble_over_ideal)),
    Quantity("in_flight_first_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches whose activations the first stage holds at its peak: GPipe m, 1F1B min(p, m)",
             lambda sch: _in_flight(sch, 0),
             "pipeline", _simulated(lambda run: run.peak_in_flight[0])),
    Quantity("in_flight_last_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches the last stage holds at its peak: GPipe m, 1F1B min(1, m)",
             lambda sch: _in_flight(sch, p - 1),
             "pipeline", _simulated(lambda run: run.peak_in_flight[-1])),
    # ---- activation checkpointing (verify.formulas.checkpointing; units = one layer's saved activation)
    Quantity("checkpoint_peak_units", (), "layer activations", "measured",
             "saved activations at the peak with k segments over L layers: (k−1) + L/k (profiler, ± ½ unit)",
             lambda: (k - 1) + L / k, "checkpoint",  # = formulas.checkpointing.peak_units (tested)
             _checkpoint(_peak_units), tolerance=sp.Rational(1, 2)),
    Quantity("checkpoint_layer_forwards", (), "layer forwards", "measured",
             "layer forwards per step with k segments: 2L − L/k (Linear forwards counted by hooks)",
             lambda: 2 * L - L / k, "checkpoint",  # = formulas.checkpointing.layer_forwards (tested)
             _checkpoint(lambda _r, run: run["linear_forwards"])),
    Quantity("recompute_overhead", (), "fraction", "calculated",
             "extra compute of recomputation over forward + backward, backward = 2 × forward: (1 − 1/k)/3",
             lambda: (1 - 1 / k) / 3),  # = formulas.checkpointing.compute_overhead, r = 2 (tested)
    Quantity("layer_activation_bytes", (), "bytes", "calculated",
             "bytes a transformer layer saves for backward (16-bit, no parallelism): sbh(34 + 5as/h)",
             lambda: mp.transformer_layer_activation_bytes(s=s, b=b, h=h, a=a)),
    Quantity("selective_activation_bytes", (), "bytes", "calculated",
             "the same with selective recomputation of the attention core: 34sbh",
             lambda: mp.transformer_layer_activation_bytes(s=s, b=b, h=h, a=a, selective=True)),
    # ---- ZeRO-Offload / Infinity (verify.formulas.offload): arithmetic, nothing here has a GPU or NVMe
    Quantity("offload_gpu_bytes", (), "bytes", "calculated", "model state ZeRO-Offload keeps on the GPU: 2Ψ",
             lambda: off.offload_memory_split(psi=SYMBOLS["Psi"])["gpu"]),
    Quantity("offload_cpu_bytes", (), "bytes", "calculated",
             "model state ZeRO-Offload keeps on the CPU: 2Ψ gradients + 12Ψ optimizer state",
             lambda: off.offload_memory_split(psi=SYMBOLS["Psi"])["cpu"]),
    Quantity("offload_pcie_bytes", (), "bytes", "calculated", "PCIe bytes per step: 2Ψ down + 2Ψ up",
             lambda: off.offload_pcie_bytes(psi=SYMBOLS["Psi"])["total"]),
    Quantity("pcie_x16_bandwidth", (), "GB/s", "calculated",
             "PCIe x16 bandwidth per direction after 128b/130b encoding at r GT/s per lane: 16·r·128/130/8",
             lambda: 16 * SYMBOLS["r"] * off.ENCODING / 8),
    Quantity("cpu_adam_bytes_per_param", (), "bytes", "calculated",
             "CPU Adam memory traffic per parameter: master, m, v read and written (24) + gradient + parameter",
             lambda: sp.Integer(off.cpu_adam_bytes_per_param())),
    Quantity("nvme_optimizer_bytes", (), "bytes", "calculated",
             "ZeRO-Infinity NVMe traffic per step with the optimizer state on NVMe: 12Ψ read + 12Ψ written",
             lambda: off.nvme_optimizer_bytes(psi=SYMBOLS["Psi"])),
    # ---- tensor parallelism (verify.formulas.tensor_parallel)
    Quantity("tp_allreduces_per_layer", ("phase",), "all-reduces", "construction",
             "Megatron's f/g all-reduces per transformer layer and pass",
             lambda ph: sp.Integer(tp.allreduces_per_layer().get(ph, 0))),
    Quantity("tp_weights_per_rank", (), "elements", "calculated", "matmul weights per rank: 12h²/t",
             lambda: tp.matmul_weights(h=h)["total"] / t),
)}

# ==== measuring side (issue 12, branch measure): PyTorch's own implementations, measured as they come ====
# torch-ddp (gradient_as_bucket_view=True), torch-ddp-default (PyTorch's default False), torch-zero-redundancy
# (DDP + ZeroRedundancyOptimizer), torch-fsdp2-no-reshard / -reshard (fully_shard reshard_after_forward False /
# True). Measured only (formula None): PyTorch is not the ledger; claims compare them with the reference stages.

def _impl_run(ev: Any, cfg: Config, impl: str) -> dict[str, Any]:
    name = impl_run_name(impl)
    run = next((r for r in ev.runs if r["impl"] == name and r["world_size"] == cfg.where["n"]), None)
    if run is None:
        raise MeterUnavailable(f"no run of {name} at N={cfg.where['n']} (PyTorch's implementations were skipped: "
                          "drop --no-torch)")
    return run


def _impl_measure(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _impl_run(ev, cfg, args[0])
        value = read(run, args)
        if value is None:
            return None
        return sp.nsimplify(value, rational=True), {"Psi": run["psi_padded"], "psi": run["psi"], "L": run["layers"]}
    return measure


def _hidden(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    me = run["measured"]
    if me.get("retained_bytes") is None:
        raise MeterUnavailable("the retained-bytes meter did not run")
    return me["retained_bytes"] - me["persistent_bytes"]


def _impl_payload(run: dict[str, Any], args: tuple[str, ...]) -> Any:
    return sp.Rational(run["measured"]["comm_payload_bytes"].get(args[1], 0), run["bytes_per_element"])


def _shard_spread(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    per_rank = run["measured"]["optim_bytes_per_rank"]
    return sp.Rational(max(per_rank), min(per_rank))


def _impl_wire(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    return _wire_measured(run, "")


MEASURED_IMPL_QUANTITIES = (
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
             "elements PyTorch's collectives of one kind carry per step (payload; ZeroRedundancyOptimizer's "
             "broadcasts, FSDP2's all-gathers)", None, "zero", _impl_measure(_impl_payload), per_psi=True),
    Quantity("impl_optim_shard_spread", ("impl",), "ratio", "measured",
             "largest over smallest per-rank optimizer-state bytes (1 = even shards; ZeroRedundancyOptimizer "
             "assigns whole parameters)", None, "zero", _impl_measure(_shard_spread)),
    Quantity("impl_wire_bytes", ("impl",), "bytes", "measured",
             "bytes one rank's Gloo sockets sent per step with PyTorch's implementation", None, "zero",
             _impl_measure(_impl_wire), per_psi=True),
)
QUANTITIES.update({q.name: q for q in MEASURED_IMPL_QUANTITIES})
# ==== end of the measuring side's block ====

# where each family's configurations come from; a re-runnable family also runs at a claim's fixed values
FAMILIES: dict[str, ConfigsFn] = {"zero": _zero_configs, "pipeline": _pipeline_configs,
                                   "checkpoint": _checkpoint_configs, "gloo": _gloo_configs, "ring": _ring_configs}
RERUNNABLE = frozenset({"pipeline"})

HELPERS = ("approx", "reduction", "sqrt", "ceiling", "floor", "log", "Min", "Max")


def _example(q: Quantity) -> tuple[tuple[str, ...], str]:
    """The first arguments the quantity's formula accepts, and the formula there."""
    import itertools

    first = {"stage": "zero3", "collective": "all_gather", "phase": "forward", "schedule": "onef1b",
             "impl": "fsdp2_reshard"}
    choices = [[first[kind], *(x for x in ARG_VALUES[kind] if x != first[kind])] for kind in q.params]
    for args in itertools.product(*choices):
        try:
            return args, "measured only" if q.formula is None else sp.sstr(q.ledger(args))
        except (ValueError, KeyError, TypeError):
            continue
    return (), ""


def table() -> str:
    """The vocabulary as one Markdown table (``verify/README.md`` embeds it)."""
    rows = ["| quantity | arguments | unit | obtained | example: ledger formula | what |", "|---|---|---|---|---|---|"]
    for q in QUANTITIES.values():
        args, formula = _example(q)
        where = {"zero": "ZeRO sweep runs", "pipeline": "simulated schedules", "checkpoint": "checkpoint_sequential "
                 "runs", "gloo": "Gloo ranks", "ring": "ring simulator"}.get(q.family, "formula only")
        rows.append(f"| `{q.name}` | {', '.join(q.params) or '—'} | {q.unit} | {q.method} ({where}) | "
                    f"`{q.name}({', '.join(args)})` = `{formula}` | {q.doc} |")
    return "\n".join(rows)

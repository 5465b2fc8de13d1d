"""The vocabulary claims are written in: every quantity a card's ``asserts:`` may name, its symbols and units.

    python -c "from verify.known.vocabulary import table; print(table())"

A quantity has a name, arguments (a stage, a collective, a schedule …), a unit, how it is obtained
(``measured`` on ranks, ``simulated`` step by step, ``calculated`` from its formula only), its **ledger
formula** (a sympy expression built from ``verify.known.ledger`` / ``verify.known.formulas``: formulas stay there, apart
from any measurement) and, where something measures it, how to read its value in one configuration of
the evidence (each world size N, with that run's Ψ and Ψ_pad). Nothing here holds a claim's number.

Symbols are positive; integer ones have a lower bound (N ≥ 2 ranks, p ≥ 2 stages …) that the symbolic
judge uses for "for every admissible value", the smallest counterexample and limits (``grows``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import sympy as sp

from verify.known import ledger
from verify.known.formulas import collectives as coll
from verify.known.formulas import mixed_precision as mp
from verify.known.formulas import offload as off
from verify.known.formulas import pipeline as pipe
from verify.known.formulas import tensor_parallel as tp
from verify.measure.meters import wire


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
    SymbolSpec("k", "checkpointed segments", grows=True),
    SymbolSpec("p", "pipeline stages", lower=2),
    SymbolSpec("m", "micro-batches per step", grows=True),
    SymbolSpec("v", "virtual pipeline stages per device"),
    SymbolSpec("t", "tensor-parallel degree", lower=2),
    SymbolSpec("M", "message size of one collective (elements or bytes, as the claim's unit); FlashAttention's SRAM "
               "size in elements", integer=False),
    SymbolSpec("b", "micro-batch size (sequences)"),
    SymbolSpec("s", "sequence length"),
    SymbolSpec("h", "hidden size"),
    SymbolSpec("a", "attention heads"),
    SymbolSpec("r", "PCIe lane rate (GT/s)", integer=False),
    SymbolSpec("t_f", "forward time of one micro-batch on one stage", integer=False),
    SymbolSpec("t_b", "backward time of one micro-batch on one stage", integer=False),
    SymbolSpec("Psi_u", "Ψ_u, parameters of one FSDP unit", grows=True),
    SymbolSpec("U", "FSDP units of a model (the root included)"),
    SymbolSpec("S", "loss scale", integer=False),
    SymbolSpec("w", "a weight's value", integer=False),
    SymbolSpec("u", "an update added to a weight", integer=False),
    SymbolSpec("alpha", "α, latency of one communication step (s)", integer=False),
    SymbolSpec("beta", "β, link bandwidth (bytes/s) in the α-β model", integer=False),
    SymbolSpec("F", "achieved compute (FLOP/s)", integer=False),
    SymbolSpec("B", "PCIe bandwidth (bytes/s)", integer=False),
    SymbolSpec("T", "tokens per GPU per step", integer=False),
    SymbolSpec("C", "DDP bucket cap (bytes)"),
    SymbolSpec("C_1", "DDP first-bucket cap (bytes)"),
    # ---- LLM arithmetic (canon-a): decoder shapes, KV cache, roofline, FlashAttention, LoRA, quantization
    SymbolSpec("V", "vocabulary size"),
    SymbolSpec("g", "key/value heads (GQA groups; g = a is MHA, g = 1 MQA)"),
    SymbolSpec("e", "bytes per element (2 for bf16/fp16)"),
    SymbolSpec("d", "head dimension (h/a)"),
    SymbolSpec("f", "a second width: the SwiGLU MLP width, or an adapted weight's output features"),
    SymbolSpec("R", "LoRA rank"),
    SymbolSpec("D", "training tokens", integer=False),
    SymbolSpec("G", "quantization group (block) size"),
    SymbolSpec("F_peak", "peak compute of an accelerator (FLOP/s)", integer=False),
    SymbolSpec("B_mem", "memory (HBM) bandwidth (bytes/s)", integer=False),
)
SYMBOLS: dict[str, sp.Symbol] = {s.name: s.symbol for s in SYMBOL_SPECS}
SPEC_OF: dict[sp.Symbol, SymbolSpec] = {s.symbol: s for s in SYMBOL_SPECS}
Psi, N, L, k, p, m, v, t, M, b, s, h, a, t_f, t_b = (SYMBOLS[x] for x in ("Psi", "N", "L", "k", "p", "m", "v", "t",
                                                                          "M", "b", "s", "h", "a", "t_f", "t_b"))

# units a claim may multiply by (decimal, as the cards write GB; GiB is 2^30)
UNITS: dict[str, sp.Expr] = {
    "KB": sp.Integer(10**3), "MB": sp.Integer(10**6), "GB": sp.Integer(10**9), "TB": sp.Integer(10**12),
    "GiB": sp.Integer(2**30), "MiB": sp.Integer(2**20), "billion": sp.Integer(10**9),  # "7.5B parameters"
    "ms": sp.Rational(1, 1000), "percent": sp.Rational(1, 100), "TFLOP": sp.Integer(10**12),
}

# argument values: stages, collectives, phases, schedules
ARG_VALUES: dict[str, tuple[str, ...]] = {
    "stage": ledger.STAGES,
    "collective": ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast"),
    "phase": ("forward", "backward", "step"),
    "schedule": ("gpipe", "onef1b", "interleaved"),
    "impl": ("torch_ddp", "ddp_default", "zero_redundancy", "fsdp2_reshard", "fsdp2_no_reshard"),  # PyTorch's own
    "recipe": ("mixed_adam", "fp32_adam", "adam_8bit", "megatron_bf16", "megatron_fp16"),  # training state layouts
    "part": ("param", "grad", "master", "m_v", "optimizer", "total"),
    "format": ("fp32", "fp16", "bf16"),
    "limit": ("max", "smallest_normal", "smallest_subnormal", "eps"),
    "scaler": ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "after_overflow",
               "after_interval_minus_one", "after_interval"),
    "pcie": ("serial", "overlapped"),  # PCIe directions one after the other, or both at once
    "reshard": ("reshard_true", "reshard_false", "reshard_default", "reshard_k"),  # FSDP2 reshard_after_forward
    # LLM arithmetic (canon-a)
    "attn": ("mha", "gqa", "mqa"),  # KV heads: a, g, 1
    "recomp": ("none", "selective", "full"),  # activation recomputation
    "infer": ("prefill", "decode"),  # inference phases: bs tokens at once, or b
    "attn_algo": ("standard", "flash"),  # Dao et al.'s Algorithms 0 and 1
    "attn_kernel": ("naive", "fused"),  # explicit softmax(QKᵀ)V, or F.scaled_dot_product_attention
    "opt": ("sgd_momentum", "adam", "adamw", "lion", "adam_8bit", "adafactor"),
    "fp8": ("fp8_e4m3", "fp8_e5m2"),
    "quant": ("int8", "int4"),  # symmetric absmax, one fp16 scale per group of G
    "nf4": ("nf4", "nf4_dq"),  # QLoRA's 4-bit store, without and with double quantization
    "layer_part": ("qkv", "attn_out", "mlp_up", "mlp_down", "norms", "attn_weights", "mlp_weights"),
}


class MeterUnavailable(LookupError):
    """A quantity this run cannot measure (no socket counters, no ring step, another backend): its claims come out
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
    expr = sp.sympify(formula(*args))
    return expr if expr.is_Rational else sp.nsimplify(expr, rational=True)  # nsimplify rounds 2^-126 to 0


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


# pipeline schedules, run op by op (verify.measure.sim.pipeline): (p, m, v) with t_f = 1, t_b = 2
PIPELINE_CASES = ((4, 8, 2), (4, 32, 2), (4, 16, 4), (2, 4, 2), (8, 16, 2), (3, 9, 3))
_SCHEDULE = {"gpipe": "gpipe", "onef1b": "1f1b", "interleaved": "interleaved"}


def _pipeline_configs(_ev: Any) -> list[Config]:
    return [Config(f"p={p_} m={m_} v={v_}", {"p": p_, "m": m_, "v": v_, "t_f": 1, "t_b": 2}) for p_, m_, v_ in
            PIPELINE_CASES]


def _stage_configs(_ev: Any) -> list[Config]:
    """Every stage s (0 = the first) of every simulated schedule case."""
    return [Config(f"p={p_} m={m_} v={v_} s={st}", {"p": p_, "m": m_, "v": v_, "t_f": 1, "t_b": 2, "s": st})
            for p_, m_, v_ in PIPELINE_CASES for st in range(p_)]


def _stage_in_flight(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    from verify.measure.sim.pipeline import simulate

    at = cfg.values
    if "s" not in at or args[0] == "interleaved":
        return None
    run = simulate(_SCHEDULE[args[0]], p=int(at["p"]), m=int(at["m"]))
    return sp.Integer(run.peak_in_flight[int(at["s"])]), {}


def _simulated(read: Callable[[Any], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.sim.pipeline import simulate

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
    from verify.measure.experiments.sizes import WIRE_ELEMENTS

    sizes = ev.world_sizes if ev is not None and getattr(ev, "runs", None) else (2, 4)
    return [Config(f"Gloo N={n_}", {"N": n_, "M": 4 * WIRE_ELEMENTS}) for n_ in sizes]


def _gloo(total: bool) -> Measure:
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.probes import probe

        backend = getattr(ev, "backend", "gloo")
        if backend != "gloo":
            raise MeterUnavailable(f"Gloo's socket bytes cannot be measured on backend {backend}: "
                                   "run with --backend gloo")
        sent = [r[args[0]] for r in probe(int(cfg.values["N"]))["wire_by_rank"]]
        if None in sent:
            raise MeterUnavailable(wire.NO_COUNTERS)
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
        from verify.measure.sim.ring import ring_allreduce

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
        return int(max(run.sent))
    return int(max(run.sent_by_phase[op]))


def _ring_steps_of(run: Any, op: str) -> int:
    return sum(run.steps.values()) if op == "all_reduce" else run.steps[op]


def _checkpoint_configs(_ev: Any) -> list[Config]:
    r = _local("checkpointing")
    return [Config(f"L={r['layers']} k={seg}", {"L": r["layers"], "k": int(seg)}) for seg in r["runs"] if seg != "None"]


def _checkpoint(read: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Measure:
    """One ``checkpoint_sequential`` run (16 × Linear+ReLU, profiler peak, counted Linear forwards)."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        r = _local("checkpointing")
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


# ---- mixed precision: one CPU process (verify.measure.experiments.local), exact storage bytes and torch.finfo
def _numerics_configs(_ev: Any) -> list[Config]:
    """One CPU process; the saved-activation runs at b = 8, 16, 32 give one configuration each."""
    return [Config(f"CPU b={b_}", {"b": int(b_), "S": 2**16, "w": 1, "u": sp.Rational(1, 1000)}) for b_ in _saved()]


LOCAL_RUNS: dict[tuple[Any, ...], Any] = {}  # (name, *args) -> result; ``verify.judge.ahead`` fills it ahead


def _local(name: str, *args: Any) -> Any:
    """One run of ``verify.measure.experiments.local.<name>`` per process and arguments (deterministic on CPU)."""
    from verify.measure.probes import local_run

    key = (name, *args)
    if key not in LOCAL_RUNS:
        LOCAL_RUNS[key] = local_run(name, *args)
    return LOCAL_RUNS[key]


def _state_parts(parts: Mapping[str, int]) -> dict[str, int]:
    out = {k: parts[k] for k in ("param", "grad", "master")}
    out["m_v"] = parts["m"] + parts["v"] if "m" in parts else parts["m_v"]
    out["optimizer"] = out["master"] + out["m_v"]
    out["total"] = out["param"] + out["grad"] + out["optimizer"]
    return out


def _bytes_per_param(recipe: str, part: str) -> sp.Expr:
    """``verify.known.formulas.mixed_precision``: 2+2+4+4+4 (mixed), 4+4+0+4+4 (fp32), 8-bit m and v;
    Megatron's totals."""
    if recipe.startswith("megatron"):
        if part != "total":
            raise ValueError("Megatron's table gives totals only (part = total)")
        bf16 = recipe == "megatron_bf16"
        return sp.Integer(mp.megatron_bytes_per_param(param_dtype="bf16" if bf16 else "fp16",
                                                      grad_dtype="fp32" if bf16 else "fp16"))
    layout = {"mixed_adam": mp.state_bytes_per_param(), "fp32_adam": mp.fp32_adam_bytes_per_param(),
              "adam_8bit": mp.state_bytes_per_param(m=1, v=1)}[recipe]
    return sp.Integer(_state_parts(layout)[part])


def _state_measure(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """Distinct storages after one real Adam step, over the model's parameter count."""
    name = {"mixed_adam": "mixed_precision_state", "fp32_adam": "fp32_adam_state"}.get(args[0])
    if name is None:
        return None  # 8-bit and Megatron layouts are not run here: calculated
    run = _local(name)
    got = _state_parts({**run["bytes"], "m_v": run["bytes"]["adam_m_v"]})
    return sp.Rational(got[args[1]], run["psi"]), {}


def _float_limit(fmt: str, limit: str) -> sp.Expr:
    return sp.Rational(getattr(mp.format_limits(fmt=fmt), limit))  # binary floats are exact rationals


def _finfo(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    return sp.Rational(_local("format_limits")[args[0]][args[1]]), {}


def _loss_scaling(read: Callable[[dict[str, Any]], Any]) -> Measure:
    """The probe gradients (all ≤ 2^-25) cast to fp16 as they are, and scaled by S first
    (verify.measure.experiments.local)."""
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        if args[0] != "fp16":
            return None
        r = _local("loss_scaling", float(cfg.values.get("S", 2**16)))
        return sp.nsimplify(sp.Rational(read(r))), {}
    return measure


def _scaler(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    return sp.nsimplify(sp.Rational(_local("grad_scaler")[args[0]])), {}


def _float_sum(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    if args[0] == "fp16":
        return None
    r = _local("bf16_stagnation", float(cfg.values["w"]), float(cfg.values["u"]))
    return sp.Rational(r[args[0]]), {}


# ---- saved activations against the batch size (verify.measure.experiments.local, b = 8, 16, 32)
@cache
def _saved() -> dict[str, Any]:
    return dict(_local("saved_activation_bytes"))


def _batch(read: Callable[[dict[str, Any], int], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _saved().get(str(cfg.values.get("b")))
        return None if run is None else (sp.Rational(read(run, int(cfg.values["b"]))), {})
    return measure


# ---- tensor parallelism: one Megatron layer on 2 Gloo ranks, fp64 (verify.measure.experiments.dist_probe)
def _tp() -> dict[str, Any]:
    from verify.measure.probes import probe

    return dict(probe(2)["tp"])


def _tp_configs(_ev: Any) -> list[Config]:
    sh = _tp()["shape"]
    return [Config("Gloo t=2", {"t": 2, "b": sh["b"], "s": sh["s"], "h": sh["h"], "a": sh["heads"]})]


def _tp_measure(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _tp()
        if any(cfg.values.get(x) != run["shape"][x] for x in ("b", "s", "h")):
            return None  # a worked example at other sizes: calculated
        return sp.nsimplify(read(run, args), rational=True), {}
    return measure


def _tp_allreduce_elements(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    sizes = {r["bytes"] // run["element_size"] for r in run["records"] if r["kind"] == "all_reduce"}
    return sizes.pop() if len(sizes) == 1 else sp.nan  # calls of different sizes: no single value


# ---- FSDP2 reshard_after_forward: 2 blocks + a root head (3 units), Gloo (verify.measure.experiments.dist_probe)
_RESHARD = {"reshard_true": "True", "reshard_false": "False", "reshard_default": "None", "reshard_k": "2"}


def _fsdp_configs(_ev: Any) -> list[Config]:
    return [Config(f"Gloo N={n_}", {"N": n_, "U": 3, "k": 2}) for n_ in (2, 4)]


def _fsdp_run(cfg: Config, reshard: str) -> dict[str, Any] | None:
    from verify.measure.probes import probe

    run: dict[str, Any] | None = probe(int(cfg.values["N"]))["fsdp2"].get(_RESHARD[reshard])
    return run


def _fsdp_measure(read: Callable[[dict[str, Any], tuple[str, ...], int], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _fsdp_run(cfg, args[0])
        if run is None:
            return None  # this mode did not run at this N (k = 2 needs N = 4)
        psi = run["model_elements"] if "model_elements" in run else 2 * (16 * 16 + 16) + 16 * 8 + 8
        return sp.nsimplify(read(run, args, int(cfg.values["N"])), rational=True), {"Psi": psi}
    return measure


def _fsdp_calls(run: dict[str, Any], args: tuple[str, ...], _n: int) -> int:
    return sum(1 for r in run["records"] if (r["kind"], r["phase"]) == (args[1], args[2]))


def _fsdp_volume(run: dict[str, Any], _args: tuple[str, ...], _n: int) -> Any:
    """Σ payload × (g−1)/g over the step's all-gathers and reduce-scatters (g = the call's group), in elements."""
    return sum(sp.Rational(r["bytes"] * (r["group"] - 1), 4 * r["group"]) for r in run["records"]
               if r["kind"] in ("all_gather", "reduce_scatter"))


def _fsdp_calls_formula(reshard: str, collective: str, phase: str) -> sp.Expr:
    U = SYMBOLS["U"]
    if (collective, phase) in (("all_gather", "forward"), ("reduce_scatter", "backward")):
        return U
    if (collective, phase) != ("all_gather", "backward"):
        return sp.Integer(0)
    return {"reshard_true": U, "reshard_false": sp.Integer(0), "reshard_default": U - 1, "reshard_k": U}[reshard]


def _fsdp_formula(key: str) -> Callable[[str], sp.Expr]:
    """``verify.known.formulas.fsdp.per_unit`` over symbols: a non-root unit's held share and ring volume (× Ψ)."""
    def formula(reshard: str) -> sp.Expr:
        if reshard == "reshard_default" and key == "ring_volume_per_psi":
            raise ValueError("reshard_default mixes True (blocks) and False (root): no single volume")
        held = {"reshard_true": 1 / N, "reshard_false": sp.Integer(1), "reshard_default": 1 / N,
                "reshard_k": 1 / k}[reshard]
        if key == "held_after_forward":
            return held
        bwd = {"reshard_true": (N - 1) / N, "reshard_false": sp.Integer(0), "reshard_k": (k - 1) / k}[reshard]
        return (2 * (N - 1) / N + bwd) * Psi
    return formula


# ---- DDP buckets on 2 Gloo ranks (verify.measure.experiments.dist_probe.ddp_buckets; caps C, first C_1 in bytes)
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
    from collections import Counter

    from verify.known.formulas.ddp import bucket_sizes

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


def _alpha_beta(op: str) -> sp.Expr:
    """``verify.known.formulas.collectives.ring_time`` / ``tree_broadcast_time`` over symbols."""
    alpha, beta = SYMBOLS["alpha"], SYMBOLS["beta"]
    if op == "broadcast":
        return sp.ceiling(sp.log(N, 2)) * (alpha + M / beta)
    if op == "all_to_all":
        raise ValueError("the α-β table has no all-to-all row")
    return _ring_steps(op) * alpha + coll.ring_send(op=op, n=N, m=M) / beta


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
    # ---- collectives (formulas of verify.known.formulas.collectives; M = payload)
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
    # ---- pipeline parallelism (verify.known.formulas.pipeline), simulated op by op (verify.measure.sim.pipeline)
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
    Quantity("in_flight_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches whose activations stage s (0 = the first) holds at its peak: GPipe m, 1F1B min(p − s, m)",
             lambda sch: _in_flight(sch, s), "pipeline_stage", _stage_in_flight),
    # ---- activation checkpointing (verify.known.formulas.checkpointing; units = one layer's saved activation)
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
    # ---- ZeRO-Offload / Infinity (verify.known.formulas.offload): arithmetic, nothing here has a GPU or NVMe
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
    # ---- tensor parallelism (verify.known.formulas.tensor_parallel), measured on one Megatron layer over 2 Gloo ranks
    Quantity("tp_allreduces_per_layer", ("phase",), "all-reduces", "construction",
             "Megatron's f/g all-reduces per transformer layer and pass (counted on the ranks; our TP operators "
             "call them, so the count holds by construction)",
             lambda ph: sp.Integer(tp.allreduces_per_layer().get(ph, 0)), "tp",
             _tp_measure(lambda r, a: sum(1 for x in r["records"] if (x["kind"], x["phase"]) == ("all_reduce", a[0])))),
    Quantity("tp_collectives_other", (), "calls", "measured",
             "collective calls of a TP layer's step that are not all-reduces", lambda: sp.Integer(0), "tp",
             _tp_measure(lambda r, _a: sum(1 for x in r["records"] if x["kind"] != "all_reduce"))),
    Quantity("tp_allreduce_elements", (), "elements", "measured", "elements of each of a TP layer's all-reduces: bsh",
             lambda: tp.allreduce_elements(b=b, s=s, h=h), "tp", _tp_measure(_tp_allreduce_elements)),
    Quantity("tp_weights", (), "elements", "measured", "a layer's matmul weights, unsharded: 4h² attention + 8h² MLP",
             lambda: tp.matmul_weights(h=h)["total"], "tp",
             _tp_measure(lambda r, _a: r["unsharded_matmul_weight_elements"])),
    Quantity("tp_weights_per_rank", (), "elements", "measured", "matmul weights per rank: 12h²/t",
             lambda: tp.matmul_weights(h=h)["total"] / t, "tp", _tp_measure(lambda r, _a: r["matmul_weight_elements"])),
    Quantity("tp_max_abs_error", (), "value", "measured",
             "largest |difference| of the TP layer's output, input gradient and weight gradients from the unsharded "
             "layer's (fp64); measured only", None, "tp", _tp_measure(lambda r, _a: max(r["max_abs_diff"].values()))),
    # ---- mixed precision (verify.known.formulas.mixed_precision), one CPU process (verify.measure.experiments.local)
    Quantity("bytes_per_param", ("recipe", "part"), "bytes", "measured",
             "model-state bytes per parameter by part (m_v = Adam m + v; optimizer = master + m + v); measured "
             "after a real Adam step for mixed_adam and fp32_adam, calculated for adam_8bit and Megatron's totals",
             _bytes_per_param, "numerics", _state_measure),
    Quantity("float_limit", ("format", "limit"), "value", "measured",
             "largest finite, smallest normal / subnormal, machine epsilon, from the format's exponent and mantissa "
             "bits; measured with torch.finfo and nextafter", _float_limit, "numerics", _finfo),
    Quantity("underflow_share", ("format",), "fraction", "measured",
             "share of the probe gradients (2^-25, 2^-26, 1e-8, 3e-9) that become 0 cast to the format; measured only",
             None, "numerics", _loss_scaling(lambda r: sum(1 for x in r["plain_fp16"] if x == 0) / len(r["values"]))),
    Quantity("scaled_cast_error", ("format",), "relative error", "measured",
             "largest relative error of the probe gradients scaled by S, cast, and divided by S in fp32; measured only",
             None, "numerics", _loss_scaling(lambda r: r["max_rel_error_scaled"])),
    Quantity("grad_scaler", ("scaler",), "value", "measured",
             "torch.amp.GradScaler's defaults and its scale after one overflow and after growth_interval (− 1) clean "
             "steps; measured only (PyTorch's choice, no formula)", None, "numerics", _scaler),
    Quantity("float_sum", ("format",), "value", "measured", "w + u computed in the format; measured only",
             None, "numerics", _float_sum),
    Quantity("saved_bytes_per_sample", (), "bytes", "measured",
             "bytes autograd saves for backward (parameters excluded) over the batch size, MLP with GELU and "
             "LayerNorm at b = 8, 16, 32; measured only", None, "numerics",
             _batch(lambda run, b_: sp.Rational(run["saved_bytes"], b_))),
    Quantity("state_bytes_at_batch", (), "bytes", "measured",
             "the same MLP's parameter + gradient bytes at batch size b; measured only", None, "numerics",
             _batch(lambda run, _b: run["model_state_bytes"])),
    # ---- FSDP2 reshard_after_forward (verify.known.formulas.fsdp), 3 units on Gloo
    Quantity("fsdp_calls", ("reshard", "collective", "phase"), "calls", "measured",
             "FSDP2 collective calls per step over the model's U units (the root follows False under None)",
             _fsdp_calls_formula, "fsdp", _fsdp_measure(_fsdp_calls)),
    Quantity("fsdp_held_after_forward", ("reshard",), "fraction", "measured",
             "share of a (non-root) unit's parameters a rank holds between forward and backward",
             _fsdp_formula("held_after_forward"), "fsdp",
             _fsdp_measure(lambda r, _a, _n: sp.Rational(r["block_held_after_forward"], r["block_unsharded"]))),
    Quantity("fsdp_ring_volume", ("reshard",), "elements", "calculated",
             "elements a rank would send per step with ideal rings: FSDP2's measured payloads (each all-gather and "
             "reduce-scatter it called) × the ideal ring's (g−1)/g, g = each call's group; calculated, not measured "
             "(FSDP2 calls the backend's collectives, not our send/recv rings; its socket bytes are Gloo's)",
             _fsdp_formula("ring_volume_per_psi"), "fsdp", _fsdp_measure(_fsdp_volume)),
    Quantity("fsdp_backward_group", ("reshard",), "ranks", "measured",
             "ranks in a unit's backward all-gather (0: none)",
             lambda r: {"reshard_true": N, "reshard_false": sp.Integer(0), "reshard_default": N, "reshard_k": k}[r],
             "fsdp", _fsdp_measure(lambda r, _a, _n: max([0, *(x["group"] for x in r["records"]
                                                              if (x["kind"], x["phase"]) == ("all_gather", "backward")
                                                              and x["group"] is not None)]))),
    # ---- DDP's gradient buckets (verify.known.formulas.ddp), 8 Linear(256, 256) on 2 Gloo ranks
    Quantity("ddp_allreduced_elements", (), "elements", "measured",
             "gradient elements DDP all-reduces in one step (after the bucket rebuild): Ψ", lambda: Psi, "ddp",
             _ddp(_ddp_elements)),
    Quantity("ddp_buckets_unexplained", (), "calls", "measured",
             "all-reduce calls whose size the cap rule does not predict (a bucket closes once it reaches its cap: "
             "C_1 for the first, C after; an explicit bucket_cap_mb run with its own cap), plus other collectives",
             lambda: sp.Integer(0), "ddp", _ddp(_ddp_unexplained)),
    # ---- the α-β cost model and ZeRO-Offload's break-even (arithmetic)
    Quantity("alpha_beta_time", ("collective",), "s", "calculated",
             "α-β time: ring steps·α + ring bytes/β; binomial-tree broadcast ⌈log₂N⌉(α + M/β)", _alpha_beta),
    Quantity("offload_compute_time", (), "s", "calculated", "GPU forward + backward time per step: 6TΨ/F",
             lambda: off.compute_seconds(tokens=SYMBOLS["T"], psi=Psi, flops_per_s=SYMBOLS["F"])),
    Quantity("offload_pcie_time", ("pcie",), "s", "calculated", "PCIe time per step: 4Ψ/B in series, 2Ψ/B overlapped",
             lambda d: off.pcie_step_seconds(psi=Psi, pcie_bytes_per_s=SYMBOLS["B"], overlapped=d == "overlapped")),
    Quantity("offload_breakeven_tokens", ("pcie",), "tokens", "calculated",
             "tokens per GPU per step at which 6TΨ/F equals the PCIe time 4Ψ/B (2Ψ/B overlapped)",
             lambda d: off.breakeven_tokens(flops_per_s=SYMBOLS["F"], pcie_bytes_per_s=SYMBOLS["B"],
                                            overlapped=d == "overlapped")),
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
    return dict(run)


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
    """Elements as the collectives carried them (counted, not bytes over an assumed element size: FSDP2 stores
    fp32 parameters and all-gathers them in bf16)."""
    elements = run["measured"].get("comm_payload_elements")
    if elements is None:
        raise MeterUnavailable("this run predates the payload element counts (run `python -m verify` again)")
    return sp.Integer(elements.get(args[1], 0))


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
             "elements PyTorch's collectives of one kind carry per step, counted as elements (payload; "
             "ZeroRedundancyOptimizer's broadcasts, FSDP2's all-gathers, which carry its fp32 parameters "
             "in bf16)", None, "zero", _impl_measure(_impl_payload), per_psi=True),
    Quantity("impl_optim_shard_spread", ("impl",), "ratio", "measured",
             "largest over smallest per-rank optimizer-state bytes (1 = even shards; ZeroRedundancyOptimizer "
             "assigns whole parameters)", None, "zero", _impl_measure(_shard_spread)),
    Quantity("impl_wire_bytes", ("impl",), "bytes", "measured",
             "bytes one rank's Gloo sockets sent per step with PyTorch's implementation", None, "zero",
             _impl_measure(_impl_wire), per_psi=True),
)
QUANTITIES.update({q.name: q for q in MEASURED_IMPL_QUANTITIES})
# ==== end of the measuring side's block ====

# families measured by launching their own Gloo ranks on this machine (verify.measure.experiments.dist_probe)
GLOO_PROBE_FAMILIES = frozenset({"gloo", "tp", "fsdp", "ddp"})


def unavailable_here(q: Quantity, evidence: Any) -> str:
    """Why ``q`` cannot be measured for this evidence ("" if it can): a Gloo probe is not the backend or the
    ranks the run asked for (``--backend nccl``, torchrun), so its claims are unverifiable there, never judged
    on a silent fallback to local Gloo ranks."""
    if q.family not in GLOO_PROBE_FAMILIES or evidence is None:
        return ""
    runs = getattr(evidence, "runs", None) or []
    backend = getattr(evidence, "backend", "gloo")
    if backend != "gloo":
        return (f"{q.name} is measured by a probe on local Gloo ranks; this run asked for {backend}, where it "
                "has no measurement yet (run it again with --backend gloo)")
    if any(r.get("launcher") == "torchrun" for r in runs):
        return (f"{q.name} is measured by a probe that forks its own local Gloo ranks, not the ranks torchrun "
                "launched; judge it with a plain `python -m verify` run")
    return ""


# where each family's configurations come from; a re-runnable family also runs at a claim's fixed values
FAMILIES: dict[str, ConfigsFn] = {"zero": _zero_configs, "pipeline": _pipeline_configs,
                                   "checkpoint": _checkpoint_configs, "gloo": _gloo_configs, "ring": _ring_configs,
                                   "numerics": _numerics_configs, "tp": _tp_configs,
                                   "fsdp": _fsdp_configs, "ddp": _ddp_configs, "pipeline_stage": _stage_configs}
# families whose measurement reads a claim's fixed values itself (a re-run, or another run of the same probe)
RERUNNABLE = frozenset({"pipeline", "numerics", "ddp"})

# where the families other modules add are measured (the table's "obtained" column)
FAMILY_WHERE: dict[str, str] = {}

# the LLM-arithmetic canon (issue 19, part a): decoder, FLOPs, activations, KV cache, roofline, FlashAttention,
# optimizer state, FP8, LoRA, quantization (verify/known/vocabulary_arith.py registers itself; uses the above)
import verify.known.vocabulary_arith  # noqa: E402,F401

HELPERS = ("approx", "reduction", "sqrt", "ceiling", "floor", "log", "exp", "Min", "Max", "diff")


def _example(q: Quantity) -> tuple[tuple[str, ...], str]:
    """The first arguments the quantity's formula accepts, and the formula there."""
    import itertools

    first = {"stage": "zero3", "collective": "all_gather", "phase": "forward", "schedule": "onef1b",
             "impl": "fsdp2_reshard", "recipe": "mixed_adam", "part": "total", "format": "fp16", "limit": "max",
             "scaler": "init_scale", "reshard": "reshard_true", "pcie": "serial"}
    first = {kind: first.get(kind, values[0]) for kind, values in ARG_VALUES.items()}
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
                 "runs", "gloo": "Gloo ranks", "ring": "ring simulator", "numerics": "one CPU process",
                 "tp": "a TP layer on 2 Gloo ranks",
                 "fsdp": "FSDP2 on 2 and 4 Gloo ranks", "ddp": "DDP on 2 Gloo ranks",
                 **FAMILY_WHERE}.get(q.family, "formula only")
        rows.append(f"| `{q.name}` | {', '.join(q.params) or '—'} | {q.unit} | {q.method} ({where}) | "
                    f"`{q.name}({', '.join(args)})` = `{formula}` | {q.doc} |")
    return "\n".join(rows)


# the LLM-systems canon (issue 19, part b): serving, context/expert parallelism, checkpoints
# (verify/known/vocabulary_llm.py)
from verify.known.vocabulary_llm import extend as _extend_llm  # noqa: E402

_extend_llm(sys.modules[__name__])

"""Activations: checkpointing's memory and recomputation, the bytes a layer saves for backward, attention's peak.

    python -c "from verify.measure.probes import LOCAL_RUNS; print(LOCAL_RUNS.get('checkpointing')['runs'].keys())"

Ledger formulas: ``verify.known.formulas`` checkpointing, activation_memory, mixed_precision (Korthikanti et al.'s
sbh(34 + 5as/h)). Measured by ``checkpoint_sequential`` runs (16 × Linear+ReLU, the profiler's peak, counted
Linear forwards and FlopCounterMode's FLOPs at each k), one CPU process (saved activations of an MLP at b = 8, 16,
32), the tiny decoder (saved_tensors_hooks on one bf16 layer) and the profiler's peak of one attention head at
s = 1024 and 2048.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import activation_memory as act
from verify.known.formulas import checkpointing as ckpt
from verify.known.formulas import mixed_precision as mp
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import a, b, h, on_decoder, s
from verify.known.vocabulary.zero import L
from verify.measure.probes import LOCAL_RUNS

SYMBOLS = (SymbolSpec("k", "checkpointed segments", grows=True),)
(k,) = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "recomp": ("none", "selective", "full"),  # activation recomputation
    "attn_kernel": ("naive", "fused"),  # explicit softmax(QKᵀ)V, or F.scaled_dot_product_attention
}


# ---- checkpoint_sequential runs (verify.measure.experiments.local.checkpointing), one per k
def _checkpoint_configs(_ev: Any) -> list[Config]:
    r = LOCAL_RUNS.get("checkpointing")
    return [Config(f"L={r['layers']} k={seg}", {"L": r["layers"], "k": int(seg)}) for seg in r["runs"] if seg != "None"]


def _checkpoint(read: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Measure:
    """One ``checkpoint_sequential`` run (16 × Linear+ReLU, profiler peak, counted Linear forwards)."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        r = LOCAL_RUNS.get("checkpointing")
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


# ---- saved activations against the batch size (verify.measure.experiments.local, b = 8, 16, 32), one CPU process
def saved_activation_runs() -> dict[str, Any]:
    """The MLP's saved bytes and model-state bytes at each batch size (a configuration of the numerics family)."""
    return dict(LOCAL_RUNS.get("saved_activation_bytes"))


def _batch(read: Callable[[dict[str, Any], int], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = saved_activation_runs().get(str(cfg.values.get("b")))
        return None if run is None else (sp.Rational(read(run, int(cfg.values["b"]))), {})
    return measure


# ---- attention memory: one head, fp32, d = 64, at s and 2s (verify.measure.experiments.attention_memory)
ATTN_S = (1024, 2048)


def _attn_configs(_ev: Any) -> list[Config]:
    return [Config(f"CPU s={s_} d=64", {"s": s_, "d": 64}) for s_ in ATTN_S]


def _attn(growth: bool) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        s_ = int(cfg.values.get("s", 0))
        if s_ not in ATTN_S or int(cfg.values.get("d", 64)) != 64 or (growth and 2 * s_ not in ATTN_S):
            return None
        from verify.measure.experiments.attention_memory import extra_bytes

        if growth:
            return sp.Rational(extra_bytes(2 * s_)[args[0]], extra_bytes(s_)[args[0]]), {}
        return sp.Integer(extra_bytes(s_)[args[0]]), {}
    return measure


_KEPT = {"none": "layer_saved_bytes", "selective": "selective_saved_bytes", "full": "full_saved_bytes"}

FAMILIES = (
    Family("checkpoint", _checkpoint_configs, "checkpoint_sequential runs"),
    Family("attention_memory", _attn_configs, "profiler, s = 1024, 2048"),
)

QUANTITIES = (
    # ---- activation checkpointing (verify.known.formulas.checkpointing; units = one layer's saved activation)
    Quantity("checkpoint_peak_units", (), "layer activations", "measured",
             "saved activations at the peak with k segments over L layers: (k−1) + L/k (profiler, ± ½ unit)",
             lambda: ckpt.peak_units(layers=L, segments=k), "checkpoint", _checkpoint(_peak_units),
             tolerance=sp.Rational(1, 2)),
    Quantity("checkpoint_layer_forwards", (), "layer forwards", "measured",
             "layer forwards per step with k segments: 2L − L/k (Linear forwards counted by hooks)",
             lambda: ckpt.layer_forwards(layers=L, segments=k), "checkpoint",
             _checkpoint(lambda _r, run: run["linear_forwards"])),
    # counted: FlopCounterMode's FLOPs of a checkpointed step over a plain one, less 1 (the formula nowhere in it)
    Quantity("recompute_overhead", (), "fraction", "counted",
             "extra compute of recomputation over forward + backward, backward = 2 × forward: (1 − 1/k)/3 "
             "(counted: FlopCounterMode's FLOPs of the k-segment step over the plain step's, less 1)",
             lambda: ckpt.compute_overhead(layers=L, segments=k, backward_over_forward=2), "checkpoint",
             _checkpoint(lambda r, run: sp.Rational(run["flops"], r["runs"]["None"]["flops"]) - 1)),
    # ---- bytes a layer saves (verify.known.formulas.mixed_precision, activation_memory)
    # measured: saved_tensors_hooks on one bf16 decoder layer, plain and with its attention core checkpointed
    Quantity("layer_activation_bytes", (), "bytes", "measured",
             "bytes a transformer layer saves for backward (16-bit, no parallelism): sbh(34 + 5as/h) (measured on a "
             "bf16 decoder layer within 16sb, LayerNorm's statistics)",
             lambda: mp.transformer_layer_activation_bytes(s=s, b=b, h=h, a=a), "decoder",
             on_decoder(lambda r, _a, _c: r["layer_saved_bytes"]), tolerance=16 * s * b),
    Quantity("selective_activation_bytes", (), "bytes", "measured",
             "the same with selective recomputation of the attention core: 34sbh (measured with the core "
             "checkpointed, within 16sb)",
             lambda: mp.transformer_layer_activation_bytes(s=s, b=b, h=h, a=a, selective=True), "decoder",
             on_decoder(lambda r, _a, _c: r["selective_saved_bytes"]), tolerance=16 * s * b),
    Quantity("saved_bytes_per_sample", (), "bytes", "measured",
             "bytes autograd saves for backward (parameters excluded) over the batch size, MLP with GELU and "
             "LayerNorm at b = 8, 16, 32; measured only", None, "numerics",
             _batch(lambda run, b_: sp.Rational(run["saved_bytes"], b_))),
    Quantity("state_bytes_at_batch", (), "bytes", "measured",
             "the same MLP's parameter + gradient bytes at batch size b; measured only", None, "numerics",
             _batch(lambda run, _b: run["model_state_bytes"])),
    # ---- saved_tensors_hooks on one bf16 layer of the decoder
    Quantity("layer_saved_bytes", (), "bytes", "measured",
             "bytes one bf16 layer saves for backward (1-byte dropout masks): sbh(34 + 5as/h), measured within "
             "16sb, LayerNorm's mean and rstd, which the count leaves out (bf16 here: 8sb)",
             lambda: act.layer_bytes(s=s, b=b, h=h, a=a), "decoder",
             on_decoder(lambda r, _a, _c: r["layer_saved_bytes"]), tolerance=16 * s * b),
    Quantity("attention_core_bytes", (), "bytes", "measured",
             "the saved s × s tensors (softmax output, dropout mask, dropped-out matrix): 5as²b",
             lambda: act.attention_core_bytes(s=s, b=b, a=a), "decoder",
             on_decoder(lambda r, _a, _c: r["attention_core_saved_bytes"])),
    Quantity("layernorm_stats_bytes", (), "bytes", "measured",
             "bytes of LayerNorm's saved mean and rstd in one layer (two LayerNorms; in the input dtype on CPU); "
             "measured only: the paper's count leaves them out", None, "decoder",
             on_decoder(lambda r, _a, _c: r["layernorm_stats_saved_bytes"])),
    Quantity("cpu_dropout_mask_bytes", (), "bytes", "measured",
             "bytes per element of the mask PyTorch's F.dropout saves for backward on a bf16 CPU tensor; measured only",
             None, "decoder", on_decoder(lambda r, _a, _c: r["cpu_dropout_mask_bytes"])),
    Quantity("activation_bytes_kept", ("recomp",), "bytes", "measured",
             "bytes kept per layer: none sbh(34 + 5as/h), selective 34sbh, full 2sbh (the layer input); measured "
             "on a bf16 decoder layer plain, with its attention core and with the whole layer checkpointed (± 16sb)",
             lambda mode: act.recompute_bytes(s=s, b=b, h=h, a=a, mode=mode), "decoder",
             on_decoder(lambda r, args, _c: r[_KEPT[args[0]]]), tolerance=16 * s * b),
    # ---- attention's peak on CPU (verify.measure.experiments.attention_memory)
    Quantity("attention_extra_bytes", ("attn_kernel",), "bytes", "measured",
             "peak bytes above the inputs of one attention head (fp32, d = 64) on CPU; measured only",
             None, "attention_memory", _attn(growth=False)),
    Quantity("attention_extra_growth", ("attn_kernel",), "ratio", "measured",
             "the same at 2s over at s; measured only", None, "attention_memory", _attn(growth=True)),
)

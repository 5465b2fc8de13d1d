"""The vocabulary's LLM-arithmetic quantities (issue 19, first half): decoder parameters, training FLOPs,
activation bytes, KV cache, roofline, FlashAttention IO, optimizer state, FP8, LoRA/QLoRA, quantization.

    python -c "from verify.known.vocabulary import table; print(table())"

``verify.known.vocabulary`` imports this module, which registers these (one table, one vocabulary); formulas live in
``verify.known.formulas``, measurements in ``verify.measure.experiments`` and ``verify.measure.sim``, imported
lazily (torch on first use).
Families (whose configurations a quantity is measured in):

- ``decoder``: a tiny GPT decoder built with torch.nn at two shapes (``verify.measure.experiments.decoder``);
- ``flash_io``: Algorithms 0 and 1 of FlashAttention run on real tensors with HBM transfers counted;
- ``attention_memory``: the profiler's peak of one attention head at s = 1024 and 2048;
- ``optimizer``: one step of torch.optim's SGD, Adam, AdamW, Adafactor on an h × h weight;
- ``fp8``: torch.finfo and real casts; ``lora``: an adapted linear layer and a 4-bit store;
- ``quant``: int8/int4 group quantization of a real tensor.

A claim fixed at other values than a family ran (7B parameters, h = 4096) is calculated from the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import activation_memory as act
from verify.known.formulas import flash_attention as fa
from verify.known.formulas import fp8 as f8
from verify.known.formulas import kv_cache as kv
from verify.known.formulas import lora as lo
from verify.known.formulas import optimizer_state as opt
from verify.known.formulas import quantization as qz
from verify.known.formulas import roofline as rf
from verify.known.formulas import training_flops as tf
from verify.known.formulas import transformer_params as tp
from verify.known.vocabulary import FAMILIES, FAMILY_WHERE, QUANTITIES, SYMBOLS, Config, Quantity

S = SYMBOLS
h, a, L, s, b, g, e, d, f, R, V, G = (S[x] for x in ("h", "a", "L", "s", "b", "g", "e", "d", "f", "R", "V", "G"))
Psi, D, N, F, F_peak, B_mem, M = (S[x] for x in ("Psi", "D", "N", "F", "F_peak", "B_mem", "M"))

Measure = Callable[[Any, Config, tuple[str, ...]], "tuple[sp.Expr, dict[str, Any]] | None"]

# ---- decoder: two tiny shapes (h, a, g, L, V, s, b); bf16 where bytes are measured (e = 2)
DECODER_SHAPES = ((64, 4, 2, 2, 96, 12, 2), (96, 6, 3, 3, 128, 20, 1))


def _decoder_configs(_ev: Any) -> list[Config]:
    return [Config(f"decoder h={h_} a={a_} g={g_} L={l_} V={v_} s={s_} b={b_}",
                   {"h": h_, "a": a_, "g": g_, "L": l_, "V": v_, "s": s_, "b": b_, "e": 2, "d": h_ // a_})
            for h_, a_, g_, l_, v_, s_, b_ in DECODER_SHAPES]


def _shape(cfg: Config) -> tuple[int, ...] | None:
    vals = cfg.values
    try:
        shape = tuple(int(vals[k]) for k in ("h", "a", "g", "L", "V", "s", "b"))
    except (KeyError, TypeError, ValueError):
        return None
    if shape not in DECODER_SHAPES or int(vals.get("e", 2)) != 2 or int(vals.get("d", shape[0] // shape[1])) != \
            shape[0] // shape[1]:
        return None  # a worked example at other values: calculated
    return shape


def _decoder(read: Callable[[dict[str, Any], tuple[str, ...], Config], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        shape = _shape(cfg)
        if shape is None:
            return None
        from verify.measure.experiments.decoder import measure as run

        value = read(run(*shape), args, cfg)
        return None if value is None else (sp.nsimplify(value, rational=True), {})
    return measure


def _train_flops(r: dict[str, Any], args: tuple[str, ...], _cfg: Config) -> Any:
    return {"none": r["train_flops"], "full": r["recompute_flops"]}.get(args[0])


def _kv(per_token: bool) -> Callable[[dict[str, Any], tuple[str, ...], Config], Any]:
    def read(r: dict[str, Any], args: tuple[str, ...], cfg: Config) -> Any:
        total = r["kv_cache_bytes"][args[0]]
        return sp.Rational(total, int(cfg.values["s"]) * int(cfg.values["b"])) if per_token else total
    return read


def _intensity(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    if _shape(cfg) is None:
        return None
    from verify.measure.experiments.decoder import linear_intensity

    bs = int(cfg.values["b"]) * (int(cfg.values["s"]) if args[0] == "prefill" else 1)
    r = linear_intensity(bs, int(cfg.values["h"]))
    return sp.Rational(r["flops"], r["bytes"]), {}


def _train_flops_formula(mode: str) -> sp.Expr:
    if mode == "selective":
        raise ValueError("train_flops has no selective row (none or full)")
    return tf.train_flops(h=h, layers=L, vocab=V, s=s, b=b, recompute=mode == "full")


def _kv_per_token(attn: str) -> sp.Expr:
    return kv.bytes_per_token(layers=L, kv_heads=kv.kv_heads(attn=attn, a=a, g=g), head_dim=d, elem=e)


# ---- FlashAttention's IO, simulated: (s, d, M) with M/(4d) dividing s
FLASH_CASES = ((128, 16, 1024), (256, 16, 1024), (256, 32, 2048))


def _flash_configs(_ev: Any) -> list[Config]:
    return [Config(f"sim s={s_} d={d_} M={m_}", {"s": s_, "d": d_, "M": m_}) for s_, d_, m_ in FLASH_CASES]


def _flash(read: Callable[[Any, tuple[str, ...]], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        case = tuple(int(cfg.values.get(k, 0)) for k in ("s", "d", "M"))
        if case not in FLASH_CASES:
            return None
        from verify.measure.sim.flash_attention import run

        r = run(n=case[0], d=case[1], sram=case[2])
        if r.max_abs_error > 1e-9:
            return sp.Integer(-1), {}  # a tiling that computes something else: a count no formula gives
        return sp.nsimplify(read(r, args), rational=True), {}
    return measure


# ---- attention memory: one head, fp32, d = 64, at s and 2s
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


# ---- optimizers: one fp32 h × h weight
OPT_H = (64, 96)
MEASURED_OPT = ("sgd_momentum", "adam", "adamw", "adafactor")


def _opt_configs(_ev: Any) -> list[Config]:
    return [Config(f"torch.optim h={h_}", {"h": h_}) for h_ in OPT_H]


def _opt_measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    h_ = int(cfg.values.get("h", 0))
    if h_ not in OPT_H or args[0] not in MEASURED_OPT:
        return None  # Lion and 8-bit Adam are not in torch.optim: calculated
    from verify.measure.experiments.optimizer_state import state_bytes

    r = state_bytes(h_)[args[0]]
    return sp.Rational(r["state"], r["params"]), {}


# ---- FP8: torch.finfo, decoded bit patterns, real casts
def _one(label: str) -> Callable[[Any], list[Config]]:
    return lambda _ev: [Config(label, {})]


def _fp8(key: str | None) -> Measure:
    def measure(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.experiments.fp8_formats import measure as run

        r = run()[args[0]]
        return sp.nsimplify(r[key or args[1]], rational=True), {}
    return measure


# ---- LoRA: adapted layers (R, h = d_in, f = d_out); the 4-bit store with blocks of G = 64
LORA_CASES = ((8, 64, 96), (4, 128, 128))


def _lora_configs(_ev: Any) -> list[Config]:
    return [Config(f"LoRA R={r_} d_in={h_} d_out={f_}", {"R": r_, "h": h_, "f": f_, "G": 64})
            for r_, h_, f_ in LORA_CASES]


def _lora(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    case = tuple(int(cfg.values.get(k, 0)) for k in ("R", "h", "f"))
    if case not in LORA_CASES:
        return None
    from verify.measure.experiments.lora import measure

    r = measure(*case)
    ok = r["starts_equal"] and r["base_grad_is_none"]  # else not LoRA: a count no formula gives
    return sp.Integer(r["trainable"] if ok else -1), {}


def _nf4(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    if int(cfg.values.get("G", 0)) != 64:
        return None
    from verify.measure.experiments.lora import nf4_store

    r = nf4_store()
    return sp.Rational(8 * r["double" if args[0] == "nf4_dq" else "plain"], r["numel"]), {}


# ---- int8 / int4: groups of G, fp16 scales
QUANT_G = (64, 128)
_BITS = {"int8": 8, "int4": 4}


def _quant_configs(_ev: Any) -> list[Config]:
    return [Config(f"quantized G={g_}", {"G": g_}) for g_ in QUANT_G]


def _quant(key: str) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        g_ = int(cfg.values.get("G", 0))
        if g_ not in QUANT_G:
            return None
        from verify.measure.experiments.quantization import measure as run

        r = run(_BITS[args[0]], g_)
        value = sp.Rational(8 * r["bytes"], r["numel"]) if key == "bits" else r[key]
        return sp.nsimplify(value, rational=True), {}
    return measure


LLM_FAMILIES = {"decoder": _decoder_configs, "flash_io": _flash_configs, "attention_memory": _attn_configs,
                "optimizer": _opt_configs, "fp8": _one("CPU torch.float8"), "lora": _lora_configs,
                "quant": _quant_configs}
LLM_FAMILY_WHERE = {"decoder": "a tiny torch.nn decoder, 2 shapes", "flash_io": "Algorithms 0 and 1 run, IO counted",
                    "attention_memory": "profiler, s = 1024, 2048", "optimizer": "torch.optim, h = 64, 96",
                    "fp8": "torch.finfo and casts", "lora": "an adapted layer, a 4-bit store",
                    "quant": "real tensors, G = 64, 128"}

LLM_QUANTITIES = (
    # ---- parameters (verify.known.formulas.transformer_params)
    Quantity("layer_params", (), "parameters", "measured",
             "parameters of one GPT layer (PyTorch's nn.TransformerEncoderLayer, FFN 4h): 12h² + 13h",
             lambda: tp.layer_params(h=h), "decoder", _decoder(lambda r, _a, _c: r["torch_layer_params"])),
    Quantity("layer_part_params", ("layer_part",), "parameters", "measured",
             "parameters of one part of nn.TransformerEncoderLayer: QKV 3h² + 3h, output h² + h, MLP 4h² + 4h and "
             "4h² + h, LayerNorms 4h; attention / MLP weight matrices alone 4h², 8h²",
             lambda part: tp.layer_part_params(h=h, part=part), "decoder",
             _decoder(lambda r, a_, _c: r["torch_layer_parts"][a_[0]])),
    Quantity("decoder_params", (), "parameters", "measured",
             "parameters of a GPT decoder with tied LM head and s learned positions: L(12h² + 13h) + Vh + sh + 2h",
             lambda: tp.decoder_params(h=h, layers=L, vocab=V, ctx=s), "decoder",
             _decoder(lambda r, _a, _c: r["params"])),
    Quantity("llama_params", (), "parameters", "calculated",
             "a LLaMA-style model: L(4h² + 3hf + 2h) + 2Vh + h (untied head, RMSNorm, SwiGLU width f)",
             lambda: tp.llama_params(h=h, f=f, layers=L, vocab=V)),
    # ---- FLOPs (verify.known.formulas.training_flops), FlopCounterMode on the decoder
    Quantity("forward_flops", (), "FLOP", "measured",
             "forward FLOPs of b sequences of s tokens: 2(12Lh² + Vh)·bs + 4Lbs²h (FlopCounterMode)",
             lambda: tf.forward_flops(h=h, layers=L, vocab=V, s=s, b=b), "decoder",
             _decoder(lambda r, _a, _c: r["forward_flops"])),
    Quantity("train_flops", ("recomp",), "FLOP", "measured",
             "forward + backward FLOPs: 3× forward; with full recomputation (checkpoint, early stop off) 4×",
             _train_flops_formula, "decoder", _decoder(_train_flops)),
    Quantity("total_train_flops", ("recomp",), "FLOP", "calculated",
             "the rule of thumb for a whole run: 6ΨD (8ΨD with full recomputation), attention left out",
             lambda mode: tf.total_train_flops(params=Psi, tokens=D, recompute=mode == "full")),
    Quantity("train_days", (), "days", "calculated", "6ΨD / (N GPUs × F achieved FLOP/s each) in days",
             lambda: tf.total_train_flops(params=Psi, tokens=D) / (N * F) / 86400),
    # ---- activations (verify.known.formulas.activation_memory), saved_tensors_hooks on one bf16 layer
    Quantity("layer_saved_bytes", (), "bytes", "measured",
             "bytes one bf16 layer saves for backward (1-byte dropout masks): sbh(34 + 5as/h), measured within "
             "16sb, LayerNorm's mean and rstd, which the count leaves out (bf16 here: 8sb)",
             lambda: act.layer_bytes(s=s, b=b, h=h, a=a), "decoder",
             _decoder(lambda r, _a, _c: r["layer_saved_bytes"]), tolerance=16 * s * b),
    Quantity("attention_core_bytes", (), "bytes", "measured",
             "the saved s × s tensors (softmax output, dropout mask, dropped-out matrix): 5as²b",
             lambda: act.attention_core_bytes(s=s, b=b, a=a), "decoder",
             _decoder(lambda r, _a, _c: r["attention_core_saved_bytes"])),
    Quantity("layernorm_stats_bytes", (), "bytes", "measured",
             "bytes of LayerNorm's saved mean and rstd in one layer (two LayerNorms; in the input dtype on CPU); "
             "measured only: the paper's count leaves them out", None, "decoder",
             _decoder(lambda r, _a, _c: r["layernorm_stats_saved_bytes"])),
    Quantity("cpu_dropout_mask_bytes", (), "bytes", "measured",
             "bytes per element of the mask PyTorch's F.dropout saves for backward on a bf16 CPU tensor; measured only",
             None, "decoder", _decoder(lambda r, _a, _c: r["cpu_dropout_mask_bytes"])),
    Quantity("activation_bytes_kept", ("recomp",), "bytes", "calculated",
             "bytes kept per layer: none sbh(34 + 5as/h), selective 34sbh, full 2sbh (the layer input)",
             lambda mode: act.recompute_bytes(s=s, b=b, h=h, a=a, mode=mode)),
    # ---- KV cache (verify.known.formulas.kv_cache), real bf16 cache tensors after a prefill
    Quantity("kv_cache_bytes", ("attn",), "bytes", "measured",
             "bytes of the K and V cache of b sequences of s tokens: 2·L·heads·d·e·s·b (heads a, g, 1)",
             lambda attn: _kv_per_token(attn) * s * b, "decoder", _decoder(_kv(per_token=False))),
    Quantity("kv_bytes_per_token", ("attn",), "bytes", "measured", "the KV cache per token: 2·L·heads·d·e",
             _kv_per_token, "decoder", _decoder(_kv(per_token=True))),
    # ---- roofline (verify.known.formulas.roofline)
    Quantity("linear_intensity", ("infer",), "FLOP/byte", "measured",
             "FLOPs over bytes moved of an h × h bf16 linear on bs (prefill) or b (decode) tokens: "
             "2xh²/(e(2xh + h²)) (FlopCounterMode, tensor sizes)",
             lambda ph: rf.linear_intensity(tokens=b * s if ph == "prefill" else b, h=h, elem=e), "decoder",
             _intensity),
    Quantity("ridge_intensity", (), "FLOP/byte", "calculated", "peak FLOP/s over memory bandwidth",
             lambda: rf.ridge_intensity(peak_flops=F_peak, mem_bandwidth=B_mem)),
    Quantity("decode_token_time", (), "s", "calculated",
             "lower bound of one decoding step at small batch: every weight read once, eΨ / B_mem",
             lambda: rf.decode_token_seconds(params=Psi, elem=e, mem_bandwidth=B_mem)),
    # ---- FlashAttention (verify.known.formulas.flash_attention), simulated with real tensors
    Quantity("attention_hbm_accesses", ("attn_algo",), "elements", "simulated",
             "HBM elements read + written: standard 4sd + 4s², FlashAttention 3sd + 2s + (4ds/M)(3sd + 4s)",
             lambda algo: fa.standard_accesses(n=s, d=d) if algo == "standard" else
             fa.flash_accesses(n=s, d=d, sram=M), "flash_io",
             _flash(lambda r, a_: r.standard_accesses if a_[0] == "standard" else r.flash_accesses)),
    Quantity("attention_extra_bytes", ("attn_kernel",), "bytes", "measured",
             "peak bytes above the inputs of one attention head (fp32, d = 64) on CPU; measured only",
             None, "attention_memory", _attn(growth=False)),
    Quantity("attention_extra_growth", ("attn_kernel",), "ratio", "measured",
             "the same at 2s over at s; measured only", None, "attention_memory", _attn(growth=True)),
    # ---- optimizer state (verify.known.formulas.optimizer_state), per parameter of an h × h fp32 weight
    Quantity("optimizer_state_bytes", ("opt",), "bytes", "measured",
             "optimizer state per parameter of an h × h weight (step counters apart): SGD momentum and Lion 4, "
             "Adam(W) 8, 8-bit Adam 2 + 8/2048, Adafactor 8/h; measured after one step of torch.optim (Lion and "
             "8-bit Adam calculated)",
             lambda o: opt.state_bytes_per_param(opt=o, rows=h, cols=h), "optimizer", _opt_measure),
    # ---- FP8 (verify.known.formulas.fp8)
    Quantity("fp8_limit", ("fp8", "limit"), "value", "measured",
             "largest finite, smallest normal / subnormal and epsilon of E4M3 (finite-only) and E5M2 (IEEE-like) "
             "from their bits; measured with torch.finfo and every bit pattern decoded",
             lambda fmt, lim: sp.Rational(getattr(f8.limits(fmt=fmt), lim)), "fp8", _fp8(None)),
    Quantity("fp8_rel_error", ("fp8",), "relative error", "measured",
             "largest relative error of 200,000 normal-range values cast to the format and back; measured only",
             None, "fp8", _fp8("max_rel_error")),
    # ---- LoRA / QLoRA (verify.known.formulas.lora)
    Quantity("lora_trainable", (), "parameters", "measured",
             "trainable parameters of a LoRA-adapted d_in × d_out linear (h = d_in, f = d_out): R(h + f)",
             lambda: lo.trainable(r=R, d_in=h, d_out=f), "lora", _lora),
    Quantity("nf4_bits_per_param", ("nf4",), "bits", "measured",
             "stored bits per weight of a 4-bit blockwise store: 4 + 32/G; double quantization 4 + 8/G + 32/(256G)",
             lambda m: lo.nf4_bits_per_param(block=G, double_quant=m == "nf4_dq"), "lora", _nf4),
    # ---- int8 / int4 weight-only (verify.known.formulas.quantization)
    Quantity("quant_bits_per_param", ("quant",), "bits", "measured",
             "stored bits per weight with one fp16 scale per group of G: b + 16/G",
             lambda qn: qz.bits_per_param(bits=_BITS[qn], group=G), "quant", _quant("bits")),
    Quantity("quant_max_error", ("quant",), "fraction of absmax", "measured",
             "largest abs(w − ŵ) over the group's absmax (bound 1/(2·qmax)); measured only", None, "quant",
             _quant("max_err_over_absmax")),
    Quantity("quant_rms_ratio", ("quant",), "ratio", "measured",
             "RMS error over Δ/√12 (uniform rounding error); measured only", None, "quant",
             _quant("rms_over_uniform")),
)

QUANTITIES.update({q.name: q for q in LLM_QUANTITIES})
FAMILIES.update(LLM_FAMILIES)
FAMILY_WHERE.update(LLM_FAMILY_WHERE)

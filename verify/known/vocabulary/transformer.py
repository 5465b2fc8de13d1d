"""A transformer's parameters, FLOPs, roofline and FlashAttention's memory traffic; LoRA's trainable parameters.

    python -c "from verify.measure.experiments.decoder import measure; print(measure(64, 4, 2, 2, 96, 12, 2))"

Ledger formulas: ``verify.known.formulas`` transformer_params, training_flops, roofline, flash_attention, lora.
Measured on a tiny GPT decoder built with torch.nn at two shapes (``verify.measure.experiments.decoder``:
parameters, FlopCounterMode, bf16 tensors), FlashAttention's Algorithms 0 and 1 run on real tensors with HBM
transfers counted (``verify.measure.sim.flash_attention``) and a LoRA-adapted layer
(``verify.measure.experiments.lora``, re-built at a claim's own rank and widths: R = 2R beside R, h = 4096). A
claim at other values (7B parameters) is calculated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import flash_attention as fa
from verify.known.formulas import lora as lo
from verify.known.formulas import roofline as rf
from verify.known.formulas import training_flops as tf
from verify.known.formulas import transformer_params as tp
from verify.known.vocabulary.collectives import M
from verify.known.vocabulary.readers import simulated
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.zero import L, N, Psi

SYMBOLS = (
    SymbolSpec("b", "micro-batch size (sequences)"),
    SymbolSpec("s", "sequence length"),
    SymbolSpec("h", "hidden size"),
    SymbolSpec("a", "attention heads"),
    SymbolSpec("F", "achieved compute (FLOP/s)", integer=False),
    SymbolSpec("T", "tokens per GPU per step", integer=False),
    SymbolSpec("V", "vocabulary size"),
    SymbolSpec("e", "bytes per element (2 for bf16/fp16)"),
    SymbolSpec("d", "head dimension (h/a)"),
    SymbolSpec("f", "a second width: the SwiGLU MLP width, or an adapted weight's output features"),
    SymbolSpec("R", "LoRA rank"),
    SymbolSpec("D", "training tokens", integer=False),
    SymbolSpec("F_peak", "peak compute of an accelerator (FLOP/s)", integer=False),
    SymbolSpec("B_mem", "memory (HBM) bandwidth (bytes/s)", integer=False),
)
b, s, h, a, F, T, V, e, d, f, R, D, F_peak, B_mem = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "infer": ("prefill", "decode"),  # inference phases: bs tokens at once, or b
    "attn_algo": ("standard", "flash"),  # Dao et al.'s Algorithms 0 and 1
    "layer_part": ("qkv", "attn_out", "mlp_up", "mlp_down", "norms", "attn_weights", "mlp_weights"),
}

# ---- the decoder: two tiny shapes (h, a, g, L, V, s, b); bf16 where bytes are measured (e = 2)
DECODER_SHAPES = ((64, 4, 2, 2, 96, 12, 2), (96, 6, 3, 3, 128, 20, 1))


def _decoder_configs(_ev: Any) -> list[Config]:
    return [Config(f"decoder h={h_} a={a_} g={g_} L={l_} V={v_} s={s_} b={b_}",
                   {"h": h_, "a": a_, "g": g_, "L": l_, "V": v_, "s": s_, "b": b_, "e": 2, "d": h_ // a_})
            for h_, a_, g_, l_, v_, s_, b_ in DECODER_SHAPES]


def decoder_shape(cfg: Config) -> tuple[int, ...] | None:
    """The decoder shape a configuration names, or None (a worked example at other values: calculated)."""
    vals = cfg.values
    try:
        shape = tuple(int(vals[k]) for k in ("h", "a", "g", "L", "V", "s", "b"))
    except (KeyError, TypeError, ValueError):
        return None
    if shape not in DECODER_SHAPES or int(vals.get("e", 2)) != 2 or int(vals.get("d", shape[0] // shape[1])) != \
            shape[0] // shape[1]:
        return None
    return shape


def on_decoder(read: Callable[[dict[str, Any], tuple[str, ...], Config], Any]) -> Measure:
    """A reader of the decoder experiment at the configuration's shape: ``read(result, args, config)``."""
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        shape = decoder_shape(cfg)
        if shape is None:
            return None
        from verify.measure.experiments.decoder import measure as run

        value = read(run(*shape), args, cfg)
        return None if value is None else (sp.nsimplify(value, rational=True), {})
    return measure


def _train_flops(r: dict[str, Any], args: tuple[str, ...], _cfg: Config) -> Any:
    return {"none": r["train_flops"], "full": r["recompute_flops"]}.get(args[0])


def _linear_configs(_ev: Any) -> list[Config]:
    return [Config(f"bf16 linear h={h_} b={b_} s={s_}", {"h": h_, "s": s_, "b": b_, "e": 2})
            for h_, _a, _g, _l, _v, s_, b_ in DECODER_SHAPES]


def _intensity(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """FLOPs over bytes of one bf16 h × h linear at the configuration's tokens, a claim's fixed values put in
    (b = b·s, h = 4096: ``verify.measure.experiments.decoder.linear_intensity``); bf16 only (e = 2)."""
    from verify.measure.experiments.decoder import linear_intensity

    try:
        names = ("b", "s", "h", "e") if args[0] == "prefill" else ("b", "h", "e")
        vals = [sp.sympify(cfg.values[k]).doit() for k in names]  # 10**9 as written is an unevaluated power
    except KeyError:
        return None
    if not all(v.is_Integer and v > 0 for v in vals) or vals[-1] != 2:
        return None
    bs = int(vals[0]) * (int(vals[1]) if args[0] == "prefill" else 1)
    r = linear_intensity(bs, int(vals[-2]))
    return sp.Rational(r["flops"], r["bytes"]), {}


def _train_flops_formula(mode: str) -> Any:
    if mode == "selective":
        raise ValueError("train_flops has no selective row (none or full)")
    return tf.train_flops(h=h, layers=L, vocab=V, s=s, b=b, recompute=mode == "full")


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


# ---- LoRA: adapted layers (R, h = d_in, f = d_out); the 4-bit store with blocks of G = 64 (numerics)
LORA_CASES = ((8, 64, 96), (4, 128, 128))


def _lora_configs(_ev: Any) -> list[Config]:
    return [Config(f"LoRA R={r_} d_in={h_} d_out={f_}", {"R": r_, "h": h_, "f": f_, "G": 64})
            for r_, h_, f_ in LORA_CASES]


LORA_MAX_WEIGHTS = 4096 * 4096  # the largest base layer the adapter is built on (64 MB of fp32)


def _lora(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """Trainable parameters of the adapter built at the configuration's (R, h, f), a claim's fixed values put in
    (``lora_trainable(R=2*R)`` at R = 8 builds R = 16): any whole positive shape up to ``LORA_MAX_WEIGHTS``."""
    try:
        case = tuple(int(sp.Integer(sp.sympify(cfg.values[k]))) for k in ("R", "h", "f"))
    except (KeyError, TypeError, ValueError):
        return None
    if any(sp.sympify(cfg.values[k]) != n_ for k, n_ in zip(("R", "h", "f"), case, strict=True)) or \
            min(case) < 1 or case[1] * case[2] > LORA_MAX_WEIGHTS:
        return None
    from verify.measure.experiments.lora import measure

    r = measure(*case)
    ok = r["starts_equal"] and r["base_grad_is_none"]  # else not LoRA: a count no formula gives
    return sp.Integer(r["trainable"] if ok else -1), {}


def _matmul_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.matmul_flops import MATMUL_LAYERS, MATMUL_TOKENS, MATMUL_WIDTH

    return [Config(f"{MATMUL_LAYERS}×Linear({MATMUL_WIDTH}) D={MATMUL_TOKENS}",
                   {"Psi": MATMUL_LAYERS * MATMUL_WIDTH**2, "D": MATMUL_TOKENS})]


def _matmul_flops(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """FlopCounterMode's count of a bias-free Linear stack's training step (``verify.measure.experiments
    .matmul_flops``), at its own Ψ and D only."""
    from verify.measure.experiments.matmul_flops import train_flops

    got = train_flops()
    if (sp.sympify(cfg.values.get("Psi")), sp.sympify(cfg.values.get("D"))) != (got["params"], got["tokens"]):
        return None
    return sp.Integer(got[args[0]]), {}


LLAMA_SHAPES = ((64, 172, 2, 100), (96, 256, 3, 50))  # (h, f, L, V) of the counted LLaMA-style models


def _llama_configs(_ev: Any) -> list[Config]:
    return [Config(f"llama h={h_} f={f_} L={l_} V={v_}", {"h": h_, "f": f_, "L": l_, "V": v_})
            for h_, f_, l_, v_ in LLAMA_SHAPES]


def _llama_count(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    """Parameters of the LLaMA-style model ``torch.nn`` builds at these values, on the meta device
    (``verify.measure.experiments.llama_modules``): a 7B model is counted at its own size."""
    from verify.measure.experiments.llama_modules import llama_param_count

    try:
        shape = tuple(int(sp.Integer(sp.sympify(at[k]))) for k in ("h", "f", "L", "V"))
    except (KeyError, TypeError, ValueError):
        return None
    if any(sp.sympify(at[k]) != n_ for k, n_ in zip(("h", "f", "L", "V"), shape, strict=True)):
        return None  # f = 8h/3 at h = 64 is no whole width: no model has it
    return llama_param_count(*shape)


FAMILIES = (
    Family("llama", _llama_configs, "LLaMA-style torch.nn models on the meta device, counted", rerunnable=True,
           needs=("h", "f", "L", "V")),
    Family("matmul_flops", _matmul_configs, "FlopCounterMode on a bias-free Linear stack"),
    Family("decoder", _decoder_configs, "a tiny torch.nn decoder, 2 shapes"),
    Family("linear_roofline", _linear_configs, "one bf16 h × h linear, FlopCounterMode (meta device when large)",
           rerunnable=True, needs=("b", "s", "h", "e")),
    Family("flash_io", _flash_configs, "Algorithms 0 and 1 run, IO counted"),
    Family("lora", _lora_configs, "an adapted layer, a 4-bit store", rerunnable=True, needs=("R", "h", "f")),
)

QUANTITIES = (
    # ---- parameters (verify.known.formulas.transformer_params)
    Quantity("layer_params", (), "parameters", "measured",
             "parameters of one GPT layer (PyTorch's nn.TransformerEncoderLayer, FFN 4h): 12h² + 13h",
             lambda: tp.layer_params(h=h), "decoder", on_decoder(lambda r, _a, _c: r["torch_layer_params"])),
    Quantity("layer_part_params", ("layer_part",), "parameters", "measured",
             "parameters of one part of nn.TransformerEncoderLayer: QKV 3h² + 3h, output h² + h, MLP 4h² + 4h and "
             "4h² + h, LayerNorms 4h; attention / MLP weight matrices alone 4h², 8h²",
             lambda part: tp.layer_part_params(h=h, part=part), "decoder",
             on_decoder(lambda r, a_, _c: r["torch_layer_parts"][a_[0]])),
    Quantity("decoder_params", (), "parameters", "measured",
             "parameters of a GPT decoder with tied LM head and s learned positions: L(12h² + 13h) + Vh + sh + 2h",
             lambda: tp.decoder_params(h=h, layers=L, vocab=V, ctx=s), "decoder",
             on_decoder(lambda r, _a, _c: r["params"])),
    Quantity("llama_params", (), "parameters", "counted",
             "a LLaMA-style model: L(4h² + 3hf + 2h) + 2Vh + h (untied head, RMSNorm, SwiGLU width f); counted on "
             "torch.nn modules built on the meta device at the claim's own values",
             lambda: tp.llama_params(h=h, f=f, layers=L, vocab=V), "llama", simulated(_llama_count)),
    # ---- FLOPs (verify.known.formulas.training_flops), FlopCounterMode on the decoder
    Quantity("forward_flops", (), "FLOP", "measured",
             "forward FLOPs of b sequences of s tokens: 2(12Lh² + Vh)·bs + 4Lbs²h (FlopCounterMode)",
             lambda: tf.forward_flops(h=h, layers=L, vocab=V, s=s, b=b), "decoder",
             on_decoder(lambda r, _a, _c: r["forward_flops"])),
    Quantity("train_flops", ("recomp",), "FLOP", "measured",
             "forward + backward FLOPs: 3× forward; with full recomputation (checkpoint, early stop off) 4×",
             _train_flops_formula, "decoder", on_decoder(_train_flops)),
    # counted: FlopCounterMode on a model of weight matmuls only (what the rule describes: attention left out)
    Quantity("total_train_flops", ("recomp",), "FLOP", "counted",
             "the rule of thumb for a whole run: 6ΨD (8ΨD with full recomputation), attention left out (counted "
             "by FlopCounterMode on a bias-free Linear stack, D tokens)",
             lambda mode: tf.total_train_flops(params=Psi, tokens=D, recompute=mode == "full"), "matmul_flops",
             _matmul_flops),
    Quantity("train_days", (), "days", "calculated", "6ΨD / (N GPUs × F achieved FLOP/s each) in days",
             lambda: tf.train_days(params=Psi, tokens=D, gpus=N, peak_flops=F, mfu=1)),
    # ---- roofline (verify.known.formulas.roofline)
    Quantity("linear_intensity", ("infer",), "FLOP/byte", "measured",
             "FLOPs over bytes moved of an h × h bf16 linear on bs (prefill) or b (decode) tokens: "
             "2xh²/(e(2xh + h²)) (FlopCounterMode, tensor sizes)",
             lambda ph: rf.linear_intensity(tokens=b * s if ph == "prefill" else b, h=h, elem=e), "linear_roofline",
             _intensity),
    Quantity("ridge_intensity", (), "FLOP/byte", "definition",
             "peak FLOP/s over memory bandwidth (a definition: the roofline's ridge point, Williams et al. 2009)",
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
    # ---- LoRA (verify.known.formulas.lora)
    Quantity("lora_trainable", (), "parameters", "measured",
             "trainable parameters of a LoRA-adapted d_in × d_out linear (h = d_in, f = d_out): R(h + f)",
             lambda: lo.trainable(r=R, d_in=h, d_out=f), "lora", _lora),
)

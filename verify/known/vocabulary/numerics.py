"""Numerics: training-state bytes per parameter, float formats, loss scaling, GradScaler, FP8, weight quantization.

    python -c "from verify.measure.probes import LOCAL_RUNS; print(LOCAL_RUNS.get('format_limits'))"

Ledger formulas: ``verify.known.formulas`` mixed_precision, optimizer_state, fp8, quantization, lora (NF4).
Measured in one CPU process (``verify.measure.experiments.local``: storages after a real Adam step, torch.finfo
and nextafter, loss scaling, GradScaler, bf16 stagnation), after one step of torch.optim on an h × h weight,
by torch.float8 casts and every bit pattern decoded, and by int8/int4 group quantization of real tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from verify.known.formulas import fp8 as f8
from verify.known.formulas import lora as lo
from verify.known.formulas import mixed_precision as mp
from verify.known.formulas import optimizer_state as opt
from verify.known.formulas import quantization as qz
from verify.known.vocabulary.activations import saved_activation_runs
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import h
from verify.measure.probes import LOCAL_RUNS

SYMBOLS = (
    SymbolSpec("S", "loss scale", integer=False),
    SymbolSpec("w", "a weight's value", integer=False),
    SymbolSpec("u", "an update added to a weight", integer=False),
    SymbolSpec("G", "quantization group (block) size"),
)
S, w, u, G = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "recipe": ("mixed_adam", "fp32_adam", "adam_8bit", "megatron_bf16", "megatron_fp16"),  # training state layouts
    "part": ("param", "grad", "master", "m_v", "optimizer", "total"),
    "format": ("fp32", "fp16", "bf16"),
    "limit": ("max", "smallest_normal", "smallest_subnormal", "eps"),
    "scaler": ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "after_overflow",
               "after_interval_minus_one", "after_interval"),
    "opt": ("sgd_momentum", "adam", "adamw", "lion", "adam_8bit", "adafactor"),
    "fp8": ("fp8_e4m3", "fp8_e5m2"),
    "quant": ("int8", "int4"),  # symmetric absmax, one fp16 scale per group of G
    "nf4": ("nf4", "nf4_dq"),  # QLoRA's 4-bit store, without and with double quantization
}


# ---- one CPU process (verify.measure.experiments.local): exact storage bytes, torch.finfo, loss scaling
def _numerics_configs(_ev: Any) -> list[Config]:
    """One CPU process; the saved-activation runs at b = 8, 16, 32 give one configuration each."""
    return [Config(f"CPU b={b_}", {"b": int(b_), "S": 2**16, "w": 1, "u": sp.Rational(1, 1000)})
            for b_ in saved_activation_runs()]


def _state_parts(parts: Mapping[str, int]) -> dict[str, int]:
    """A measured state's bytes by part: its storages, Adam's m + v, the optimizer's and the total."""
    out = {k: parts[k] for k in ("param", "grad", "master")}
    out["m_v"] = parts["m"] + parts["v"] if "m" in parts else parts["m_v"]
    out["optimizer"] = out["master"] + out["m_v"]
    out["total"] = out["param"] + out["grad"] + out["optimizer"]
    return out


def _bytes_per_param(recipe: str, part: str) -> Any:
    """``verify.known.formulas.mixed_precision``: 2+2+4+4+4 (mixed), 4+4+0+4+4 (fp32), 8-bit m and v;
    Megatron's totals."""
    if recipe.startswith("megatron"):
        if part != "total":
            raise ValueError("Megatron's table gives totals only (part = total)")
        bf16 = recipe == "megatron_bf16"
        return mp.megatron_bytes_per_param(param_dtype="bf16" if bf16 else "fp16",
                                           grad_dtype="fp32" if bf16 else "fp16")
    layout = {"mixed_adam": mp.state_bytes_per_param(), "fp32_adam": mp.fp32_adam_bytes_per_param(),
              "adam_8bit": mp.state_bytes_per_param(m=1, v=1)}[recipe]
    return layout[part]


def _state_measure(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """Distinct storages after one real Adam step, over the model's parameter count."""
    if args[0].startswith("megatron"):
        if args[1] != "total":
            return None
        from verify.measure.experiments.megatron_optimizer import megatron_state

        run = megatron_state(args[0].removeprefix("megatron_"))  # Megatron's own grad buffer and main grads
        return sp.Rational(sum(run["bytes"].values()), run["psi"]), {}
    name = {"mixed_adam": "mixed_precision_state", "fp32_adam": "fp32_adam_state"}.get(args[0])
    if name is None:
        return None  # 8-bit Adam is not run here: calculated
    run = LOCAL_RUNS.get(name)
    got = _state_parts({**run["bytes"], "m_v": run["bytes"]["adam_m_v"]})
    return sp.Rational(got[args[1]], run["psi"]), {}


def _finfo(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    return sp.Rational(LOCAL_RUNS.get("format_limits")[args[0]][args[1]]), {}


def _loss_scaling(read: Callable[[dict[str, Any]], Any]) -> Measure:
    """The probe gradients (all ≤ 2^-25) cast to fp16 as they are, and scaled by S first."""
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        if args[0] != "fp16":
            return None
        r = LOCAL_RUNS.get("loss_scaling", float(cfg.values.get("S", 2**16)))
        return sp.nsimplify(sp.Rational(read(r))), {}
    return measure


def _scaler(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    return sp.nsimplify(sp.Rational(LOCAL_RUNS.get("grad_scaler")[args[0]])), {}


def _float_sum(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    if args[0] == "fp16":
        return None
    r = LOCAL_RUNS.get("bf16_stagnation", float(cfg.values["w"]), float(cfg.values["u"]))
    return sp.Rational(r[args[0]]), {}


# ---- optimizers: one fp32 h × h weight (verify.measure.experiments.optimizer_state)
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


# ---- FP8: torch.finfo, decoded bit patterns, real casts (verify.measure.experiments.fp8_formats)
def _fp8_configs(_ev: Any) -> list[Config]:
    return [Config("CPU torch.float8", {})]


def _fp8(key: str | None) -> Measure:
    def measure(_ev: Any, _cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.experiments.fp8_formats import measure as run

        r = run()[args[0]]
        return sp.nsimplify(r[key or args[1]], rational=True), {}
    return measure


# ---- QLoRA's 4-bit store (blocks of G = 64, a configuration of the lora family) and int8 / int4 groups
def _nf4(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    if int(cfg.values.get("G", 0)) != 64:
        return None
    from verify.measure.experiments.lora import nf4_store

    r = nf4_store()
    return sp.Rational(8 * r["double" if args[0] == "nf4_dq" else "plain"], r["numel"]), {}


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


FAMILIES = (
    Family("numerics", _numerics_configs, "one CPU process", rerunnable=True),
    Family("optimizer", _opt_configs, "torch.optim, h = 64, 96"),
    Family("fp8", _fp8_configs, "torch.finfo and casts"),
    Family("quant", _quant_configs, "real tensors, G = 64, 128"),
)

QUANTITIES = (
    # ---- mixed precision (verify.known.formulas.mixed_precision)
    Quantity("bytes_per_param", ("recipe", "part"), "bytes", "measured",
             "model-state bytes per parameter by part (m_v = Adam m + v; optimizer = master + m + v); measured "
             "after a real Adam step for mixed_adam and fp32_adam, and Megatron's totals at a step run with its grad "
             "buffer and main grads; calculated for adam_8bit",
             _bytes_per_param, "numerics", _state_measure),
    Quantity("float_limit", ("format", "limit"), "value", "measured",
             "largest finite, smallest normal / subnormal, machine epsilon, from the format's exponent and mantissa "
             "bits; measured with torch.finfo and nextafter",
             lambda fmt, lim: sp.Rational(getattr(mp.format_limits(fmt=fmt), lim)),  # binary floats: exact rationals
             "numerics", _finfo),
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
    # ---- NF4 (verify.known.formulas.lora) and int8 / int4 weight-only (verify.known.formulas.quantization)
    Quantity("nf4_bits_per_param", ("nf4",), "bits", "measured",
             "stored bits per weight of a 4-bit blockwise store: 4 + 32/G; double quantization 4 + 8/G + 32/(256G)",
             lambda m: lo.nf4_bits_per_param(block=G, double_quant=m == "nf4_dq"), "lora", _nf4),
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

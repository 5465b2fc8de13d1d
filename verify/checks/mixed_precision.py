"""Mixed precision: state bytes per parameter on real models, format limits, loss scaling, activations.

python -m verify   # judges the mixed-precision card
"""

from __future__ import annotations

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import calculated, close, judged_verdict, local_run
from verify.formulas import mixed_precision as F


def _per_param(run: dict) -> dict[str, float]:
    psi, b = run["psi"], run["bytes"]
    out = {k: v / psi for k, v in b.items() if k != "adam_step_counters"}
    out["total"] = sum(out.values())
    return out


@check("mixed_precision_state_bytes")
def mixed_precision_state_bytes(ev: Evidence) -> Verdict:
    run = local_run("mixed_precision_state")
    got, want = _per_param(run), F.state_bytes_per_param()
    pred = {
        "param": want["param"],
        "grad": want["grad"],
        "master": want["master"],
        "adam_m_v": want["m"] + want["v"],
        "total": want["total"],
        "optimizer_share": want["optimizer"] / want["total"],
    }
    got["optimizer_share"] = (got["master"] + got["adam_m_v"]) / got["total"]
    ok = all(close(got[k], v) for k, v in pred.items())
    return judged_verdict(
        ok,
        pred,
        {**got, "adam_step_counter_bytes": run["bytes"]["adam_step_counters"]},
        "After a real mixed-precision Adam step: bf16 parameters 2, bf16 gradients 2, fp32 master 4, "
        "fp32 m + v 8 bytes per parameter, 16 in all; the optimizer state is 75%",
        "真实的混合精度 Adam 一步之后：bf16 参数 2、bf16 梯度 2、fp32 主权重 4、fp32 m + v 8 字节/参数，"
        "共 16；优化器状态占 75%",
        method="measured",
        judged="memory",
        condition="the fp32 copy of the gradient is not kept; Adam's 4-byte step counters excluded",
    )


@check("fp32_adam_state_bytes")
def fp32_adam_state_bytes(ev: Evidence) -> Verdict:
    got, want = _per_param(local_run("fp32_adam_state")), F.fp32_adam_bytes_per_param()
    pred = {"param": 4, "grad": 4, "adam_m_v": want["m"] + want["v"], "total": want["total"]}
    ok = all(close(got[k], v) for k, v in pred.items())
    return judged_verdict(
        ok,
        pred,
        got,
        "A real fp32 Adam step keeps 4 + 4 + 8 = 16 bytes per parameter",
        "真实的 fp32 Adam 一步之后每参数 4 + 4 + 8 = 16 字节",
        method="measured",
        judged="memory",
        condition="Adam's step counters excluded",
    )


@check("megatron_bytes_per_param")
def megatron_bytes_per_param(ev: Evidence) -> Verdict:
    got = {
        "bf16 param + fp32 grad": F.megatron_bytes_per_param(param_dtype="bf16", grad_dtype="fp32"),
        "fp16 param + fp16 grad": F.megatron_bytes_per_param(param_dtype="fp16", grad_dtype="fp16"),
        "fp32 param + fp32 grad": F.megatron_bytes_per_param(param_dtype="fp32", grad_dtype="fp32"),
    }
    card = {"bf16 param + fp32 grad": 18, "fp16 param + fp16 grad": 20, "fp32 param + fp32 grad": 16}
    return calculated(
        got == card,
        card,
        got,
        "Megatron-LM's table follows from adding a 4-byte fp32 main gradient to the 16-bit layout "
        "(2 + 4 + 12 = 18; 2 + 2 + 4 + 12 = 20)",
        "Megatron-LM 的表格等于在 16 位布局上再加 4 字节 fp32 主梯度（2 + 4 + 12 = 18；2 + 2 + 4 + 12 = 20）",
        condition="Megatron's accounting, which keeps an fp32 gradient; the ZeRO paper's 16 does not",
    )


@check("mixed_precision_7b_example")
def mixed_precision_7b_example(ev: Evidence) -> Verdict:
    psi = 7e9
    got = {
        "model_state_GB": F.model_state_bytes(psi=psi) / 1e9,
        "optimizer_GB": F.model_state_bytes(psi=psi, bytes_per_param=F.state_bytes_per_param()["optimizer"])
        / 1e9,
    }
    card = {"model_state_GB": 112, "optimizer_GB": 84}
    return calculated(
        all(close(got[k], v) for k, v in card.items()),
        card,
        got,
        "16 × 7e9 = 112 GB, 12 × 7e9 = 84 GB (1 GB = 1e9 bytes); 16 bytes/parameter is measured by "
        "mixed_precision_state_bytes",
        "16 × 7e9 = 112 GB，12 × 7e9 = 84 GB（1 GB = 1e9 字节）；"
        "每参数 16 字节由 mixed_precision_state_bytes 实测",
    )


@check("float_format_limits")
def float_format_limits(ev: Evidence) -> Verdict:
    meas = local_run("format_limits")
    pred = {f: F.format_limits(fmt=f).__dict__ for f in ("fp32", "fp16", "bf16")}
    ok = all(close(meas[f][k], v) for f, row in pred.items() for k, v in row.items())
    return judged_verdict(
        ok,
        pred,
        meas,
        "torch.finfo and the next value above zero match the limits derived from each format's "
        "exponent and mantissa bits (fp16 max 65504, eps 2^-10; bf16 max ≈ 3.39e38, eps 2^-7)",
        "torch.finfo 与零之上的最小值都与由指数位、尾数位推出的极限一致（fp16 最大 65504、精度 2^-10；"
        "bf16 最大约 3.39e38、精度 2^-7）",
        method="measured",
        judged="numerics",
    )


@check("loss_scaling_underflow")
def loss_scaling_underflow(ev: Evidence) -> Verdict:
    r = local_run("loss_scaling")
    bound = F.flush_to_zero_bound(fmt="fp16")
    ok = (
        all(p == 0.0 for p in r["plain_fp16"])
        and max(r["values"]) <= bound
        and r["max_rel_error_scaled"] < F.format_limits(fmt="fp16").eps
    )
    return judged_verdict(
        ok,
        {"flush_to_zero_at_or_below": bound, "scaled_rel_error_below": 2.0**-10},
        r,
        "Gradients of 2^-25 and smaller became 0 in fp16; scaled by 2^16 first and divided in fp32 "
        "they came back within fp16's relative precision",
        "2^-25 及更小的梯度转 fp16 后为 0；先乘 2^16 再转、在 fp32 中除回，误差在 fp16 的相对精度之内",
        method="measured",
        judged="numerics",
    )


@check("grad_scaler_defaults")
def grad_scaler_defaults(ev: Evidence) -> Verdict:
    r = local_run("grad_scaler")
    pred = {
        "init_scale": 2.0**16,
        "after_overflow": 2.0**15,
        "after_interval_minus_one": 2.0**15,
        "after_interval": 2.0**16,
        "growth_interval": 2000,
    }
    ok = all(r[k] == v for k, v in pred.items())
    return judged_verdict(
        ok,
        pred,
        r,
        "A CPU GradScaler started at 65536, halved on an overflowing step and doubled after exactly "
        "2000 clean steps (not after 1999)",
        "CPU 上的 GradScaler 初始 65536，溢出一步后减半，恰好 2000 个正常步后翻倍（1999 步时未翻倍）",
        method="measured",
        judged="numerics",
        condition="torch 2.13 defaults",
    )


@check("bf16_update_stagnation")
def bf16_update_stagnation(ev: Evidence) -> Verdict:
    r = local_run("bf16_stagnation", 1.0, 1e-3)
    ok = r["bf16"] == 1.0 and close(r["fp32"], 1.001, rel=1e-6)
    return judged_verdict(
        ok,
        {"bf16": 1.0, "fp32": 1.001},
        r,
        "1.0 + 1e-3 rounds back to 1.0 in bf16 (spacing 2^-7 near 1) and gives 1.001 in fp32",
        "bf16 中 1.0 + 1e-3 舍入回 1.0（1 附近间隔 2^-7），fp32 中得到 1.001",
        method="measured",
        judged="numerics",
    )


@check("activation_bytes_scale_with_batch")
def activation_bytes_scale_with_batch(ev: Evidence) -> Verdict:
    r = local_run("saved_activation_bytes")
    batches = sorted(int(b) for b in r)
    base = r[str(batches[0])]
    ratios = {b: r[str(b)]["saved_bytes"] / base["saved_bytes"] for b in batches}
    states = {r[str(b)]["model_state_bytes"] for b in batches}
    ok = all(close(ratios[b], b / batches[0]) for b in batches) and len(states) == 1
    return judged_verdict(
        ok,
        {"saved_ratio": {b: b / batches[0] for b in batches}, "model_state": "constant"},
        {"saved_ratio": ratios, "model_state_bytes": sorted(states)},
        "Bytes saved for backward doubled with each doubling of the batch; parameters and gradients "
        "did not change",
        "保存给反向的字节数随 batch 翻倍而翻倍；参数与梯度不变",
        method="measured",
        judged="memory",
        condition="an MLP with GELU and LayerNorm, fp32",
    )


@check("eight_bit_optimizer_bytes")
def eight_bit_optimizer_bytes(ev: Evidence) -> Verdict:
    got = F.state_bytes_per_param(m=1, v=1)["optimizer"]
    full = F.state_bytes_per_param()["optimizer"]
    return calculated(
        got == 6 and full == 12,
        {"fp32_m_v": 12, "int8_m_v": 6},
        {"fp32_m_v": full, "int8_m_v": got},
        "4 (fp32 master) + 1 + 1 = 6 bytes instead of 4 + 4 + 4 = 12",
        "4（fp32 主权重）+ 1 + 1 = 6 字节，而不是 4 + 4 + 4 = 12",
        condition="block-wise quantisation constants (a few bytes per block) not counted",
    )


@check("transformer_activation_formula")
def transformer_activation_formula(ev: Evidence) -> Verdict:
    got = F.transformer_layer_activation_bytes(s=2048, b=1, h=4096, a=32)
    ok = got == 2048 * 4096 * 114 and close(got / 1e9, 0.96, rel=0.01)
    return Verdict(
        "conditional" if ok else "refuted",
        {"bytes": 956_301_312, "GB": 0.96},
        {"bytes": got},
        "Calculated, not measured: sbh(34 + 5as/h) = 8,388,608 "
        "× 114 = 956,301,312 bytes ≈ 0.96 GB per layer; "
        "the 34 and 5 coefficients are Korthikanti et al.'s accounting for their GPU kernels, which this "
        "machine cannot reproduce (activation_bytes_scale_with_batch measures the linear scaling)",
        "计算所得，非实测：sbh(34 + 5as/h) = 8,388,608 × 114 = 956,301,312 字节 ≈ 0.96 GB/层；系数 34 和 5 "
        "来自 Korthikanti 等对其 GPU 内核的计数，本机无法复现（线性增长由 "
        "activation_bytes_scale_with_batch 实测）",
        condition="16-bit activations, Megatron's kernels (no FlashAttention), no recomputation, t = 1",
        judged="arithmetic",
        extra={"method": "calculated"},
    )

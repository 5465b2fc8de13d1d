"""Activation checkpointing: peak memory and layer forwards with ``checkpoint_sequential``, measured.

    python -m verify   # judges the activation-checkpointing card

The model is 16 × (Linear + ReLU), so each layer saves one batch × width tensor (one "unit"). The
constant the backward pass adds on top (gradient buffers) is read off the run without checkpointing
and added to every prediction; a run matches when it is within half a unit.
"""

from __future__ import annotations

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import calculated, close, judged_verdict, local_run
from verify.formulas import checkpointing as F
from verify.formulas.mixed_precision import transformer_layer_activation_bytes


@check("checkpoint_activation_peak")
def checkpoint_activation_peak(ev: Evidence) -> Verdict:
    r = local_run("checkpointing")
    unit, layers, runs = r["unit_bytes"], r["layers"], r["runs"]
    const = runs["None"]["peak_bytes"] / unit - layers
    pred, meas, ok = {}, {}, True
    for seg, run in runs.items():
        k = None if seg == "None" else int(seg)
        p = F.peak_units(layers=layers, segments=k)
        got = run["peak_bytes"] / unit - const
        pred[f"k={seg}"], meas[f"k={seg}"] = p, round(got, 2)
        ok = ok and abs(got - p) <= 0.5
    measured_best = min((s for s in runs if s != "None"), key=lambda s: runs[s]["peak_bytes"])
    best = F.optimal_segments(layers=layers)
    ok = (
        ok
        and int(measured_best) == best
        and close(F.peak_units(layers=layers, segments=best), F.sqrt_peak(layers=layers))
    )
    return judged_verdict(
        ok,
        {"units": pred, "best_k": best, "best_units": F.sqrt_peak(layers=layers)},
        {"units": meas, "best_k": int(measured_best), "backward_constant_units": round(const, 2)},
        "Measured peaks (profiler) follow (k−1) + L/k saved layers: 16 → 9, 7, 9 for k = 2, 4, 8; "
        "k = √16 = 4 is the smallest, 2√L − 1 = 7",
        "实测峰值（profiler）符合 (k−1) + L/k 层：k = 2、4、8 时 16 → 9、7、9；k = √16 = 4 最小，2√L − 1 = 7",
        method="measured",
        judged="memory",
        condition="one saved tensor per layer of equal size; a constant of a few units for backward",
    )


@check("checkpoint_recompute_count")
def checkpoint_recompute_count(ev: Evidence) -> Verdict:
    r = local_run("checkpointing")
    pred = {
        f"k={s}": F.layer_forwards(layers=r["layers"], segments=None if s == "None" else int(s))
        for s in r["runs"]
    }
    meas = {f"k={s}": run["linear_forwards"] for s, run in r["runs"].items()}
    return judged_verdict(
        pred == meas,
        pred,
        meas,
        "Forward hooks counted 2L − L/k layer forwards (16, 24, 28, 30): the last segment is not recomputed",
        "前向钩子计数为 2L − L/k 次层前向（16、24、28、30）：最后一段不重算",
        method="measured",
        judged="algorithmic",
        condition="use_reentrant=False, L = 16",
    )


@check("checkpoint_compute_overhead")
def checkpoint_compute_overhead(ev: Evidence) -> Verdict:
    r = local_run("checkpointing")
    layers = r["layers"]
    measured_extra = (r["runs"]["4"]["linear_forwards"] - layers) / (3 * layers)
    got = {"k=4": measured_extra, "limit": F.sqrt_limit_overhead()}
    card = {"k=4": 0.25, "limit": 1 / 3}
    ok = (
        close(got["k=4"], card["k=4"])
        and close(F.compute_overhead(layers=layers, segments=4), 0.25)
        and close(got["limit"], card["limit"])
    )
    return calculated(
        ok,
        card,
        got,
        "(1 − 1/k)/3 from the measured forward count: 12 extra of 16 layer forwards over 3 × 16 = 25% at "
        "k = 4, 1/3 at most; assumes backward = 2 × forward FLOPs (not timed)",
        "由实测前向次数得 (1 − 1/k)/3：k = 4 时 16 层中多 12 次前向，除以 3 × 16 得 25%，上限 1/3；"
        "假设反向 = 2 倍前向算力（未计时）",
        condition="backward costs twice the forward in FLOPs; wall-clock overhead differs",
    )


@check("selective_recompute_saving")
def selective_recompute_saving(ev: Evidence) -> Verdict:
    full = transformer_layer_activation_bytes(s=2048, b=1, h=4096, a=32)
    sel = transformer_layer_activation_bytes(s=2048, b=1, h=4096, a=32, selective=True)
    got = {
        "full_over_sbh": full / (2048 * 4096),
        "selective_over_sbh": sel / (2048 * 4096),
        "ratio": full / sel,
    }
    card = {"full_over_sbh": 114, "selective_over_sbh": 34, "ratio": 3.35}
    return calculated(
        all(close(got[k], v, rel=0.002) for k, v in card.items()),
        card,
        got,
        "dropping the 5as/h = 80 term: 114/34 ≈ 3.35",
        "去掉 5as/h = 80 项：114/34 ≈ 3.35",
        condition="Korthikanti et al.'s per-layer accounting (16-bit, no tensor parallelism)",
    )

"""Communication checks: payloads counted by the dispatch-mode meter, turned into ideal-ring volume.

    python -m verify --world-sizes 2,4

"Algorithmic" volume = Σ measured payload × ring factor × (N−1)/N (all-reduce 2, reduce-scatter and
all-gather 1), in units of Ψ_pad elements so padding cancels. "Wire" volume = bytes the rank's Gloo
sockets really sent (``ss``), same units. Claims about the algorithm are judged on the first; the
second is reported next to it, because Gloo's reduce-scatter is a full all-reduce on the wire.
"""

from __future__ import annotations

from fractions import Fraction

from verify import ledger
from verify.checks.registry import Evidence, Verdict, check, fmt

STAGES = ("ddp", "zero1", "zero2", "zero3")


def _volumes(ev: Evidence) -> tuple[dict, dict]:
    ring = {f"N={n}": {s: fmt(ev.ring_per_element(s, n)) for s in STAGES} for n in ev.world_sizes}
    wire = {f"N={n}": {s: (None if (w := ev.wire_per_element(s, n)) is None else round(w, 3)) for s in STAGES}
            for n in ev.world_sizes}
    return ring, wire


def _ratio(ev: Evidence, a: str, b: str, n: int) -> Fraction:
    return ev.ring_per_element(a, n) / ev.ring_per_element(b, n)


def _wire_ratio(ev: Evidence, a: str, b: str, n: int) -> float | None:
    wa, wb = ev.wire_per_element(a, n), ev.wire_per_element(b, n)
    return None if wa is None or wb is None else round(wa / wb, 3)


@check("comm_increases_each_stage")
def comm_increases_each_stage(ev: Evidence) -> Verdict:
    ring, wire = _volumes(ev)
    strictly = all(_ratio(ev, "zero1", "ddp", n) > 1 and _ratio(ev, "zero2", "zero1", n) > 1
                   and _ratio(ev, "zero3", "zero2", n) > 1 for n in ev.world_sizes)
    return Verdict("confirmed" if strictly else "refuted", "ddp < zero1 < zero2 < zero3",
                   {"ring_per_psi": ring, "gloo_wire_per_psi": wire},
                   "ZeRO-1 and ZeRO-2 move exactly DDP's volume, 2(N−1)/N·Ψ; only ZeRO-3 adds (3(N−1)/N·Ψ)",
                   "ZeRO-1、ZeRO-2 的通信量与 DDP 完全相同（2(N−1)/N·Ψ），只有 ZeRO-3 增加（3(N−1)/N·Ψ）",
                   condition="ideal ring; on Gloo's wire ZeRO-1 = ZeRO-2 = 1.5× DDP: still not by stage")


def _same_as_ddp(ev: Evidence, stages: tuple[str, ...], en: str, zh: str) -> Verdict:
    ring, wire = _volumes(ev)
    same = all(_ratio(ev, s, "ddp", n) == 1 for s in stages for n in ev.world_sizes)
    wire_r = {f"N={n}": {s: _wire_ratio(ev, s, "ddp", n) for s in stages} for n in ev.world_sizes}
    return Verdict("confirmed" if same else "refuted", {"ratio_to_ddp": 1},
                   {"ring_per_psi": ring, "gloo_wire_ratio_to_ddp": wire_r},
                   en, zh,
                   condition="ideal ring collectives (e.g. NCCL); on Gloo's wire reduce-scatter costs a full "
                             "all-reduce, so ZeRO-1/2 send 1.5× DDP")


@check("zero1_comm_same_as_ddp")
def zero1_comm_same_as_ddp(ev: Evidence) -> Verdict:
    return _same_as_ddp(ev, ("zero1",),
                        "Measured payloads: reduce-scatter Ψ + all-gather Ψ = one all-reduce's 2(N−1)/N·Ψ",
                        "实测负载：reduce-scatter Ψ + all-gather Ψ，与一次 all-reduce 的 2(N−1)/N·Ψ 相同")


@check("zero12_no_additional_traffic")
def zero12_no_additional_traffic(ev: Evidence) -> Verdict:
    return _same_as_ddp(ev, ("zero1", "zero2"),
                        "ZeRO-1 and ZeRO-2 measure exactly DDP's ring volume; no additional traffic",
                        "ZeRO-1、ZeRO-2 实测环形通信量与 DDP 完全相同，没有额外流量")


@check("zero2_comm_slightly_more")
def zero2_comm_slightly_more(ev: Evidence) -> Verdict:
    r = {f"N={n}": fmt(_ratio(ev, "zero2", "zero1", n)) for n in ev.world_sizes}
    w = {f"N={n}": _wire_ratio(ev, "zero2", "zero1", n) for n in ev.world_sizes}
    more = any(_ratio(ev, "zero2", "zero1", n) > 1 for n in ev.world_sizes)
    return Verdict("confirmed" if more else "refuted", "> 1× ZeRO-1",
                   {"ring_ratio_to_zero1": r, "gloo_wire_ratio_to_zero1": w},
                   "ZeRO-2 sends exactly what ZeRO-1 and DDP send (the reduce-scatter only moves into "
                   "backward)",
                   "ZeRO-2 的通信量与 ZeRO-1、DDP 完全相同（只是 reduce-scatter 挪到了反向传播中），并不增加")


@check("zero2_comm_identical_2psi")
def zero2_comm_identical_2psi(ev: Evidence) -> Verdict:
    ring, _ = _volumes(ev)
    same = all(_ratio(ev, "zero2", "ddp", n) == 1 for n in ev.world_sizes)
    return Verdict("conditional" if same else "refuted", "2Ψ, identical to DDP",
                   {k: f"{v['zero2']}Ψ" for k, v in ring.items()},
                   "Identical to DDP at every N, but the volume is 2(N−1)/N·Ψ: 2Ψ only as N → ∞",
                   "每个 N 下都与 DDP 相同，但通信量是 2(N−1)/N·Ψ：只有 N → ∞ 时才是 2Ψ",
                   condition="N → ∞ for the number 2Ψ; identical to DDP at every N (ideal ring)")


@check("zero3_comm_increases")
def zero3_comm_increases(ev: Evidence) -> Verdict:
    r = {f"N={n}": fmt(_ratio(ev, "zero3", "ddp", n)) for n in ev.world_sizes}
    more = all(_ratio(ev, "zero3", "ddp", n) > 1 for n in ev.world_sizes)
    return Verdict("confirmed" if more else "refuted", "> DDP", {"ring_ratio_to_ddp": r},
                   "The extra all-gathers of parameters make ZeRO-3 send more than DDP",
                   "额外的参数 all-gather 使 ZeRO-3 的通信量高于 DDP")


@check("zero3_comm_1_5x")
def zero3_comm_1_5x(ev: Evidence) -> Verdict:
    r = {f"N={n}": fmt(_ratio(ev, "zero3", "ddp", n)) for n in ev.world_sizes}
    w = {f"N={n}": _wire_ratio(ev, "zero3", "ddp", n) for n in ev.world_sizes}
    ok = all(_ratio(ev, "zero3", "ddp", n) == Fraction(3, 2) for n in ev.world_sizes)
    return Verdict("confirmed" if ok else "refuted", "1.5×",
                   {"ring_ratio_to_ddp": r, "gloo_wire_ratio_to_ddp": w},
                   "All-gather (forward) + all-gather (backward) + reduce-scatter = 3(N−1)/N·Ψ vs DDP's "
                   "2(N−1)/N·Ψ: 1.5× at every N; Gloo's wire shows 2× (its reduce-scatter is an all-reduce)",
                   "前向 all-gather + 反向 all-gather + reduce-scatter = 3(N−1)/N·Ψ，对比 DDP 的 2(N−1)/N·Ψ，"
                   "任意 N 都是 1.5 倍；Gloo 实际线上字节为 2 倍（其 reduce-scatter 即 all-reduce）",
                   condition="ideal ring collectives; parameters re-gathered in backward")


@check("zero3_gather_per_layer_and_free")
def zero3_gather_per_layer_and_free(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for n in ev.world_sizes:
        run = ev.run("zero3", n)
        calls, me, pr = run["measured"]["comm_calls"], run["measured"], run["predicted"]
        layers = run["layers"]
        pred[f"N={n}"] = {"all_gather/forward": layers, "all_gather/backward": layers,
                          "peak_transient_bound_bytes": pr["zero3_transient_bound_bytes"],
                          "unsharded_model_bytes": pr["unsharded_model_bytes"]}
        meas[f"N={n}"] = {"all_gather/forward": calls.get("all_gather/forward", 0),
                          "all_gather/backward": calls.get("all_gather/backward", 0),
                          "peak_transient_bytes_floor": me["peak_transient_bytes_floor"],
                          "peak_transient_bytes_max": me["peak_transient_bytes"]}
        ok = ok and calls.get("all_gather/forward") == layers == calls.get("all_gather/backward")
        ok = ok and me["peak_transient_bytes_floor"] <= pr["zero3_transient_bound_bytes"]
    return Verdict("confirmed" if ok else "refuted", pred, meas,
                   "One all-gather per layer in forward and again in backward; the transient peak stays "
                   "within one layer's buffers (+ Gloo temporaries), never the whole unsharded model",
                   "前向每层一次 all-gather、反向再一次；瞬时峰值只多出单层缓冲（加 Gloo 临时区），从不持有整"
                   "个未分片模型",
                   condition="peak floor over profiled passes; Gloo may free temporaries late",
                   judged="algorithmic+memory")


@check("zero3_10gbps_comm_bound")
def zero3_10gbps_comm_bound(ev: Evidence) -> Verdict:
    psi, n = 7.5e9, 64
    vol = ledger.ring_volume_bytes(stage="zero3", psi=psi, n=n)
    t = ledger.comm_time_seconds(volume_bytes=vol, bandwidth_bits_per_s=10e9)
    return Verdict("unverifiable", {"zero3_comm_s_per_step_7.5B_N64_10Gbps": round(t, 1)}, None,
                   f"Only arithmetic: {vol / 1e9:.1f} GB per rank per step is {t:.0f} s at 10 Gbps; the 90% "
                   f"share depends on compute time, batch size and overlap, none of which the card fixes",
                   f"只能算术：每卡每步 {vol / 1e9:.1f} GB，10 Gbps 下约 {t:.0f} 秒；90% 取决于计算时间、批大"
                   f"小与重叠，卡片未给出",
                   judged="arithmetic")


@check("qualitative")
def qualitative(ev: Evidence) -> Verdict:
    return Verdict("unverifiable", None, None, "Qualitative statement: nothing to measure",
                   "定性描述：没有可测量的数值", judged="none")


@check("zero2_reduce_scatter_gradient_shard")
def zero2_reduce_scatter_gradient_shard(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for n in ev.world_sizes:
        run = ev.run("zero2", n)
        by_phase = run["measured"]["comm_payload_bytes_by_phase"]
        pred[f"N={n}"] = {"grad_bytes": run["predicted"]["grad_bytes"], "backward_ops": ["reduce_scatter"]}
        meas[f"N={n}"] = {"grad_bytes": run["measured"]["grad_bytes"],
                          "backward_ops": sorted(k.split("/")[0] for k in by_phase
                                                 if k.endswith("/backward"))}
        ok = ok and meas[f"N={n}"] == pred[f"N={n}"]
    return Verdict("confirmed" if ok else "refuted", pred, meas,
                   "Backward issues reduce-scatters only (no all-reduce) and each rank keeps a 2Ψ_pad/N "
                   "gradient shard",
                   "反向只做 reduce-scatter（没有 all-reduce），每卡只保留 2Ψ_pad/N 的梯度分片",
                   judged="algorithmic+memory")

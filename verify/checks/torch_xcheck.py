"""Checks that need PyTorch's own implementations (DDP, ZeroRedundancyOptimizer, FSDP2) next to ours.

    python -m verify --world-sizes 2,4          # (not with --no-torch)

PyTorch's runs use fp32 parameters with bf16 compute; volumes are compared in elements (payload bytes /
bytes of the communicated dtype) so the dtype cancels.
"""

from __future__ import annotations

from fractions import Fraction

from verify.checks.registry import Evidence, Verdict, check, fmt

ELEM = {"torch-ddp": 4, "torch-zero-redundancy": 4, "torch-fsdp2-no-reshard": 2, "torch-fsdp2-reshard": 2}


def _ring(ev: Evidence, impl: str, stage: str, n: int) -> Fraction:
    return ev.ring_per_element(stage, n, impl, ELEM[impl])


@check("zero1_identical_to_pytorch_ddp")
def zero1_identical_to_pytorch_ddp(ev: Evidence) -> Verdict:
    meas, ours_same, torch_same = {}, True, True
    for n in ev.world_sizes:
        ddp = _ring(ev, "torch-ddp", "ddp", n)
        ours = ev.ring_per_element("zero1", n)
        zro = _ring(ev, "torch-zero-redundancy", "zero1", n)
        ours_same = ours_same and ours == ddp
        torch_same = torch_same and zro == ddp
        w_ddp = ev.wire_per_element("ddp", n, "torch-ddp", 4)
        w_zro = ev.wire_per_element("zero1", n, "torch-zero-redundancy", 4)
        meas[f"N={n}"] = {"ring_ratio_reference_zero1_to_torch_ddp": fmt(ours / ddp),
                          "ring_ratio_zero_redundancy_to_torch_ddp": fmt(zro / ddp),
                          "gloo_wire_ratio_zero_redundancy_to_torch_ddp":
                              None if not w_ddp or w_zro is None else round(w_zro / w_ddp, 3),
                          "zero_redundancy_ops": ev.m("zero1", n, "comm_calls", "torch-zero-redundancy")}
    verdict = ("confirmed" if torch_same else "conditional") if ours_same else "refuted"
    return Verdict(verdict, {"ratio_to_ddp": 1}, meas,
                   "True for the paper's ZeRO-1 (reduce-scatter + all-gather = DDP's volume); PyTorch's "
                   "ZeroRedundancyOptimizer keeps DDP's all-reduce and then broadcasts every parameter: more "
                   "traffic",
                   "论文中的 ZeRO-1（reduce-scatter + all-gather）与 DDP 通信量相同；但 PyTorch 的 "
                   "ZeroRedundancyOptimizer 保留 DDP 的 all-reduce 后再广播全部参数，通信更多",
                   condition="ZeRO-1 as in the paper, ideal ring; not "
                             "torch.distributed.optim.ZeroRedundancyOptimizer")


@check("fsdp_equivalent_to_zero3")
def fsdp_equivalent_to_zero3(ev: Evidence) -> Verdict:
    meas, pattern_same, split_same = {}, True, True
    for n in ev.world_sizes:
        ours = ev.run("zero3", n)["measured"]["comm_calls"]
        fs = ev.run("zero3", n, "torch-fsdp2-reshard")
        nr = ev.run("zero2", n, "torch-fsdp2-no-reshard")
        pattern_same = pattern_same and fs["measured"]["comm_calls"] == ours
        me, ref = fs["measured"], ev.run("zero3", n)["measured"]
        split_same = split_same and all(me[k] * ev.run("zero3", n)["psi_padded"] == ref[k] * fs["psi_padded"]
                                        for k in ("param_bytes", "grad_bytes", "optim_bytes"))
        meas[f"N={n}"] = {
            "reshard_true_calls": fs["measured"]["comm_calls"], "reference_zero3_calls": ours,
            "reshard_false_calls": nr["measured"]["comm_calls"],
            "reshard_true_bytes_per_param_xN": {k: fmt(Fraction(me[k] * n, fs["psi"]))
                                               for k in ("param_bytes", "grad_bytes", "optim_bytes")},
            "ring_ratio_reshard_true_to_false": fmt(_ring(ev, "torch-fsdp2-reshard", "zero3", n)
                                                    / _ring(ev, "torch-fsdp2-no-reshard", "zero2", n)),
        }
    return Verdict(("confirmed" if split_same else "conditional") if pattern_same else "refuted",
                   {"collectives": "all_gather fwd + all_gather bwd + reduce_scatter per layer",
                    "model_state": "16Ψ/N"}, meas,
                   "FSDP2 with reshard_after_forward=True issues ZeRO-3's exact collectives and keeps "
                   "~16Ψ/N, but split 4+4+8 (fp32 sharded params are the master, fp32 grad shards); with "
                   "False it skips the backward all-gather (ZeRO-2 traffic)",
                   "FSDP2 在 reshard_after_forward=True 时集合通信与 ZeRO-3 完全一致、常驻约 16Ψ/N，但拆分为 "
                   "4+4+8（FP32 分片参数兼作 master，梯度分片为 FP32）；为 False 时省去反向 all-gather"
                   "（ZeRO-2 通信量）",
                   condition="FSDP2 fully_shard with reshard_after_forward=True; memory split differs",
                   judged="algorithmic+memory")


@check("zero3_keep_until_backward")
def zero3_keep_until_backward(ev: Evidence) -> Verdict:
    meas, all_1_5 = {}, True
    for n in ev.world_sizes:
        keep = _ring(ev, "torch-fsdp2-no-reshard", "zero2", n)
        ddp = _ring(ev, "torch-ddp", "ddp", n)
        regather = ev.ring_per_element("zero3", n) / ev.ring_per_element("ddp", n)
        all_1_5 = all_1_5 and keep / ddp == Fraction(3, 2)
        meas[f"N={n}"] = {"keep_until_backward_ratio_to_ddp": fmt(keep / ddp),
                          "regather_in_backward_ratio_to_ddp": fmt(regather),
                          "keep_peak_transient_bytes": ev.m("zero2", n, "peak_transient_bytes",
                                                            "torch-fsdp2-no-reshard")}
    got = "/".join(sorted({m["keep_until_backward_ratio_to_ddp"] for m in meas.values()}))
    return Verdict("confirmed" if all_1_5 else "refuted",
                   "1.5× DDP with parameters kept from forward until after backward", meas,
                   f"Keeping gathered parameters until after backward (FSDP2 reshard_after_forward=False) "
                   f"measures {got}× DDP, not 1.5×; the 1.5× needs a second all-gather in backward, as the "
                   f"English text says",
                   f"前向 all-gather 后保留到反向结束（FSDP2 reshard_after_forward=False）实测通信量"
                   f"为 DDP 的 {got} 倍而非 1.5 倍；1.5 倍需要反向再做一次 all-gather（英文版的描述）",
                   condition="the schedule described in the Chinese text")

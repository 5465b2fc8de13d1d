"""Megatron-style tensor parallelism on 2 Gloo ranks: all-reduces counted, results compared, shards sized.

python -m verify   # judges the tensor-parallelism card
"""

from __future__ import annotations

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import calculated, close, judged_verdict, probe
from verify.formulas import tensor_parallel as F

TOLERANCE = 1e-12  # fp64


@check("tp_layer_allreduces")
def tp_layer_allreduces(ev: Evidence) -> Verdict:
    tp = probe(2)["tp"]
    sh = tp["shape"]
    payload = F.allreduce_elements(b=sh["b"], s=sh["s"], h=sh["h"]) * tp["element_size"]
    want = {ph: [payload] * k for ph, k in F.allreduces_per_layer().items()}
    got = {
        ph: [r["bytes"] for r in tp["records"] if r["kind"] == "all_reduce" and r["phase"] == ph]
        for ph in want
    }
    others = sorted({r["kind"] for r in tp["records"]} - {"all_reduce"})
    return judged_verdict(
        got == want and not others,
        {"all_reduce_bytes": want},
        {"all_reduce_bytes": got, "other_collectives": others},
        "One transformer layer at t = 2 issued 2 all-reduces in forward (g) and 2 in backward (f), "
        "each of b·s·h elements, and nothing else",
        "t = 2 时一个 Transformer 层前向 2 次 all-reduce（g）、反向 2 次（f），每次 b·s·h 个元素，别无其他",
        method="measured",
        judged="algorithmic",
        condition="Gloo, fp64, b=2, s=4, h=16, 4 heads",
    )


@check("tp_layer_matches_reference")
def tp_layer_matches_reference(ev: Evidence) -> Verdict:
    diffs = probe(2)["tp"]["max_abs_diff"]
    ok = all(d <= TOLERANCE for d in diffs.values())
    return judged_verdict(
        ok,
        dict.fromkeys(diffs, f"<= {TOLERANCE}"),
        diffs,
        "Output, input gradient and every sharded weight gradient matched the unsharded layer to "
        "fp64 rounding",
        "输出、输入梯度与每个分片权重梯度都与未切分层一致（fp64 舍入误差内）",
        method="measured",
        judged="numerics",
        condition="fp64 on rank 0 of 2",
    )


@check("tp_weight_shard")
def tp_weight_shard(ev: Evidence) -> Verdict:
    tp = probe(2)["tp"]
    h, ffn = tp["shape"]["h"], tp["shape"]["ffn"]
    pred = {
        "unsharded": F.matmul_weights(h=h, ffn=ffn)["total"],
        "per_rank": F.weights_per_rank(h=h, t=2, ffn=ffn),
    }
    meas = {"unsharded": tp["unsharded_matmul_weight_elements"], "per_rank": tp["matmul_weight_elements"]}
    ok = pred == meas and ffn == 4 * h and pred["unsharded"] == 12 * h * h
    return judged_verdict(
        ok,
        pred,
        meas,
        "Each of 2 ranks held 12h²/2 of the layer's 12h² matmul weights",
        "2 个 rank 各持有该层 12h² 矩阵权重中的 12h²/2",
        method="measured",
        judged="memory",
        condition="ffn = 4h; LayerNorm and row-parallel biases are replicated and not counted",
    )


@check("tp_comm_example")
def tp_comm_example(ev: Evidence) -> Verdict:
    got = F.send_per_layer_step(b=1, s=4096, h=8192, t=8)
    mib = {k: v / 2**20 for k, v in got.items()}
    card = {"payload_bytes": 64, "sent_per_allreduce": 112, "sent_per_layer_step": 448}
    return calculated(
        all(close(mib[k], v) for k, v in card.items()),
        card,
        mib,
        "4096 × 8192 × 2 B = 64 MiB; 2·7/8·64 = 112 MiB per all-reduce; × 4 = 448 MiB per layer per step "
        "(the count of 4 is measured by tp_layer_allreduces)",
        "4096 × 8192 × 2 B = 64 MiB；每次 2·7/8·64 = 112 MiB；"
        "× 4 = 每层每步 448 MiB（4 次由 tp_layer_allreduces 实测）",
        condition="bf16, ring all-reduce, b = 1, s = 4096, h = 8192, t = 8",
    )

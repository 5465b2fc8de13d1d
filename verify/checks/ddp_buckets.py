"""DDP's gradient all-reduce: every element once, in buckets of the reducer's caps; the card's example.

python -m verify   # judges the DDP / ring all-reduce card
"""

from __future__ import annotations

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import judged_verdict, probe
from verify.formulas import ddp as F

MIB = 1024 * 1024


@check("ddp_bucket_payload")
def ddp_bucket_payload(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for cap, run in probe(2)["ddp"].items():
        grads = run["grad_bytes_reverse_order"]
        caps = (
            {}
            if cap == "None"
            else {"cap_bytes": int(float(cap) * MIB), "first_cap_bytes": int(float(cap) * MIB)}
        )
        want = F.bucket_sizes(grad_bytes=grads, **caps)
        got = run["allreduce_bytes"]
        label = "default (25 MiB, first 1 MiB)" if cap == "None" else f"bucket_cap_mb={cap}"
        pred[label] = {"bucket_bytes": sorted(want), "total_bytes": sum(grads)}
        meas[label] = {
            "bucket_bytes": sorted(got),
            "total_bytes": sum(got),
            "other": run["other_collectives"],
        }
        ok = ok and sorted(got) == sorted(want) and sum(got) == sum(grads) and not run["other_collectives"]
    return judged_verdict(
        ok,
        pred,
        meas,
        "DDP's third step all-reduced exactly Ψ gradient elements, in the buckets the caps "
        "predict (a bucket closes once it reaches its cap; the first cap is 1 MiB by default)",
        "DDP 第三步恰好 all-reduce 了 Ψ 个梯度元素，分桶与上限预测一致（桶达到上限即关闭；默认首桶 1 MiB）",
        method="measured",
        judged="algorithmic",
        condition="fp32 gradients, 8 Linear(256, 256) layers, N = 2, after the bucket rebuild",
    )

"""Collectives: ring volume on the wire, the ring simulated step by step, RS + AG = AR, Gloo's quirks.

    python -m verify   # judges the collectives and DDP cards' claims

Wire bytes come from each rank's TCP counters (``ss``) around one call on a 1 MiB fp32 payload; a
rank's bytes within 1% of M of the prediction count as a match (headers and acknowledgements).
"""

from __future__ import annotations

from fractions import Fraction

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import WORLD_SIZES, calculated, close, judged_verdict, probe
from verify.experiments.sizes import WIRE_ELEMENTS
from verify.formulas import collectives as F
from verify.sim.ring import ring_allreduce

M_BYTES = WIRE_ELEMENTS * 4


def _wire_table(op: str, model: str) -> tuple[dict, dict, bool]:
    """Predicted vs measured bytes per rank for ``op`` at N = 2, 4 (model "ring" or "gloo")."""
    pred, meas, ok = {}, {}, True
    for n in WORLD_SIZES:
        fn = F.ring_send if model == "ring" else F.gloo_send
        p = fn(op=op, n=n, m=M_BYTES)
        got = [r[op] for r in probe(n)["wire_by_rank"]]
        pred[f"N={n}"], meas[f"N={n}"] = p, got
        ok = ok and all(g is not None and close(g, p, abs_=0.01 * M_BYTES) for g in got)
    return pred, meas, ok


@check("ring_allreduce_volume")
def ring_allreduce_volume(ev: Evidence) -> Verdict:
    pred, meas, ok = _wire_table("all_reduce", "ring")
    return judged_verdict(
        ok,
        {"bytes_sent_per_rank": pred, "M_bytes": M_BYTES},
        {"bytes_sent_per_rank": meas},
        "Every rank's sockets sent 2(N−1)/N·M for one all-reduce of M = 1 MiB at N = 2 and 4",
        "N = 2、4 时对 M = 1 MiB 做一次 all-reduce，每个 rank 的套接字实际发送 2(N−1)/N·M",
        method="measured",
        judged="wire",
        condition="Gloo over loopback TCP, fp32, 1 MiB",
    )


@check("ring_allreduce_schedule")
def ring_allreduce_schedule(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for n in (2, 3, 4, 8):
        m = 4 * n
        data = [[float((r + 1) * (i + 1)) for i in range(m)] for r in range(n)]
        run = ring_allreduce(data)
        want = [sum(col) for col in zip(*data, strict=True)]
        correct = all(row == want for row in run.result)
        pred[f"N={n}"] = {
            "steps": {"reduce_scatter": n - 1, "all_gather": n - 1},
            "sent_per_rank": F.ring_send(op="all_reduce", n=n, m=m),
            "reduce_scatter_per_rank": F.ring_send(op="reduce_scatter", n=n, m=m),
        }
        meas[f"N={n}"] = {
            "steps": run.steps,
            "sent_per_rank": sorted(set(run.sent)),
            "reduce_scatter_per_rank": sorted(set(run.sent_by_phase["reduce_scatter"])),
            "result_correct": correct,
        }
        ok = (
            ok
            and run.steps == {"reduce_scatter": n - 1, "all_gather": n - 1}
            and set(run.sent) == {F.ring_send(op="all_reduce", n=n, m=m)}
            and set(run.sent_by_phase["reduce_scatter"]) == {F.ring_send(op="reduce_scatter", n=n, m=m)}
            and correct
        )
    return judged_verdict(
        ok,
        pred,
        meas,
        "A ring all-reduce run step by step takes N−1 reduce-scatter + N−1 all-gather steps, each "
        "rank sends (N−1)/N·M per phase, and every rank ends with the sum; the α-β time follows",
        "逐步执行的 ring all-reduce：reduce-scatter、all-gather 各 N−1 步，每个 rank 每阶段发送 "
        "(N−1)/N·M，最终每个 rank 都得到总和；α-β 时间由此得出",
        method="simulated",
        judged="simulated",
        condition="lockstep ranks, M divisible by N; α and β are model parameters, not measured",
    )


@check("allreduce_equals_rs_ag")
def allreduce_equals_rs_ag(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for n in WORLD_SIZES:
        r = probe(n)["rs_ag"]
        pred[f"N={n}"] = {
            "equal": True,
            "payload_elements": dict.fromkeys(("all_reduce", "reduce_scatter", "all_gather"), r["m"]),
        }
        meas[f"N={n}"] = {"equal": r["equal"], "payload_elements": r["payload_elements"]}
        ok = ok and r["equal"] and r["payload_elements"] == pred[f"N={n}"]["payload_elements"]
    return judged_verdict(
        ok,
        pred,
        meas,
        "reduce_scatter then all_gather returned bit-identical results to all_reduce (fp64), and "
        "the meter counted a payload of M for each collective",
        "先 reduce_scatter 再 all_gather 的结果与 "
        "all_reduce 逐位相同（fp64），计数器记录每个原语的负载均为 M",
        method="measured",
        judged="algorithmic",
        condition="Gloo, fp64, N = 2 and 4",
    )


@check("collective_wire_bytes")
def collective_wire_bytes(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for op in ("all_reduce", "all_gather", "all_to_all"):
        p, m, good = _wire_table(op, "ring")
        pred[op], meas[op], ok = p, m, ok and good
    return judged_verdict(
        ok,
        pred,
        meas,
        "Gloo's all-reduce sent 2(N−1)/N·M per rank, its all-gather and all-to-all (N−1)/N·M",
        "Gloo 的 all-reduce 每 rank 发送 2(N−1)/N·M，all-gather 与 all-to-all 为 (N−1)/N·M",
        method="measured",
        judged="wire",
        condition="Gloo over loopback TCP, M = 1 MiB fp32",
    )


@check("gloo_reduce_scatter_wire")
def gloo_reduce_scatter_wire(ev: Evidence) -> Verdict:
    pred, meas, ok = _wire_table("reduce_scatter", "gloo")
    ring = {f"N={n}": F.ring_send(op="reduce_scatter", n=n, m=M_BYTES) for n in WORLD_SIZES}
    return judged_verdict(
        ok,
        {"gloo_model": pred, "ideal_ring": ring},
        meas,
        "Gloo's reduce-scatter sent a full all-reduce's 2(N−1)/N·M per rank, twice the ring's",
        "Gloo 的 reduce-scatter 每 rank 发送完整 all-reduce 的 2(N−1)/N·M，是 ring 的两倍",
        method="measured",
        judged="wire",
        condition="Gloo (torch 2.13) on CPU",
    )


@check("gloo_broadcast_wire")
def gloo_broadcast_wire(ev: Evidence) -> Verdict:
    pred, meas, ok = {}, {}, True
    for n in WORLD_SIZES:
        got = [r["broadcast"] for r in probe(n)["wire_by_rank"]]
        root, total = F.tree_broadcast_root_send(n=n, m=M_BYTES), F.tree_broadcast_total_send(n=n, m=M_BYTES)
        pred[f"N={n}"] = {"root": root, "all_ranks": total}
        meas[f"N={n}"] = {"per_rank": got}
        ok = (
            ok
            and None not in got
            and close(got[0], root, abs_=0.01 * M_BYTES)
            and close(sum(got), total, abs_=0.01 * M_BYTES * n)
        )
    return judged_verdict(
        ok,
        pred,
        meas,
        "The root sent ⌈log2 N⌉·M and all ranks together (N−1)·M: a binomial tree",
        "根发送 ⌈log2 N⌉·M，所有 rank 合计 (N−1)·M：二项树",
        method="measured",
        judged="wire",
        condition="Gloo, root 0, N = 2 and 4",
    )


@check("collective_cost_model")
def collective_cost_model(ev: Evidence) -> Verdict:
    n, m, a, b = 8, 1e9, 5e-6, 1e11
    rows = {
        op: F.ring_time(op=op, n=n, m_bytes=m, alpha_s=a, beta_bytes_per_s=b)
        for op in ("reduce_scatter", "all_gather", "all_reduce")
    }
    rows["broadcast_tree"] = F.tree_broadcast_time(n=n, m_bytes=m, alpha_s=a, beta_bytes_per_s=b)
    by_hand = {
        "reduce_scatter": 7 * a + Fraction(7, 8) * m / b,
        "all_reduce": 14 * a + Fraction(14, 8) * m / b,
        "broadcast_tree": 3 * (a + m / b),
    }
    ok = all(close(rows[k], float(v)) for k, v in by_hand.items()) and close(
        rows["all_reduce"], 2 * rows["reduce_scatter"]
    )
    return calculated(
        ok,
        {k: float(v) for k, v in by_hand.items()},
        rows,
        "the α-β table's entries at N = 8, M = 1 GB, α = 5 µs, β = 100 GB/s; the step counts "
        "are simulated by ring_allreduce_schedule and the broadcast volumes measured by gloo_broadcast_wire",
        "N = 8、M = 1 GB、α = 5 µs、β = 100 GB/s 时 α-β 表的各项；步数由 ring_allreduce_schedule 模拟，"
        "broadcast 的字节数由 gloo_broadcast_wire 实测",
        condition="the α-β model ignores contention and overlap",
    )

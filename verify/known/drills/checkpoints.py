"""Drills on checkpoints: Young's interval and the time to write a sharded checkpoint.

    python -c "from verify.known.drills import *; k = 'young-interval'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import checkpoint_interval, sharded_checkpoint


def _young_min(delta: int, mtbf_h: int) -> float:
    return checkpoint_interval.young_interval(delta=delta, mu=mtbf_h * 3600) / 60


def _young_worked(delta: int, mtbf_h: int) -> Worked:
    return Worked("\\tau", r"\frac{\sqrt{2\cdot\delta\cdot\mu}}{60}", {r"\delta": delta, r"\mu": mtbf_h * 3600})


def _dcp_s(psi_b: int, n: int, w_gbs: float) -> float:
    return sharded_checkpoint.write_seconds(psi=psi_b * 1e9, n=n, bandwidth=w_gbs * 1e9)


def _dcp_worked(psi_b: int, n: int, w_gbs: float) -> Worked:
    return Worked("T", r"\frac{12\cdot\Psi}{N\cdot W}", {r"\Psi": psi_b, "N": n, "W": w_gbs})


DRILLS = (
    Drill("young-interval", "checkpoint-interval-young-daly",
          {"delta": (30, 60, 120, 300, 600), "mtbf_h": (4, 10, 24)}, _young_min, "min",
          "A checkpoint takes δ = {delta} s to write and the job fails on average every {mtbf_h} h: Young's "
          "checkpoint interval in minutes?",
          "写一次检查点需 δ = {delta} 秒，作业平均每 {mtbf_h} 小时故障一次：Young 的检查点间隔是多少分钟？",
          worked=_young_worked),
    Drill("dcp-write-seconds", "sharded-checkpointing",
          {"psi_b": (7, 70, 405), "n": (64, 256, 1024), "w_gbs": (0.5, 1, 2)}, _dcp_s, "s",
          "Resumable checkpoint (fp32 weights + Adam m, v) of {psi_b}B parameters, sharded over N = {n} ranks "
          "writing at {w_gbs} GB/s each: seconds to write?",
          "{psi_b}B 参数的可恢复检查点（fp32 权重 + Adam m、v），分片到 N = {n} 个 rank，"
          "每个 rank 写 {w_gbs} GB/s：写入需要多少秒？",
          worked=_dcp_worked),
)

"""Drills on data parallelism: what FSDP2 sends per step, and the global batch with gradient accumulation.

    python -c "from verify.known.drills import *; k = 'fsdp2-volume'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import fsdp, grad_accumulation

_RING = r"\frac{N-1}{N}"


def _fsdp_gb(psi_b: float, n: int, mode: bool) -> float:
    ratio = fsdp.per_unit(mode=mode, n=n)["ring_volume_per_psi"]
    return float(ratio) * psi_b * 1e9 * 2 / 1e9


def _fsdp_worked(psi_b: float, n: int, mode: bool) -> Worked:
    # forward all-gather + backward reduce-scatter, and a backward all-gather when parameters were resharded
    gathers = rf"\left(2\cdot{_RING}+{_RING}\right)" if mode else rf"2\cdot{_RING}"
    return Worked("V", rf"{gathers}\cdot 2\cdot\Psi", {"N": n, r"\Psi": psi_b})


def _global_batch(b: int, k: int, d: int) -> float:
    return grad_accumulation.global_batch(b=b, k=k, d=d)


def _global_batch_worked(b: int, k: int, d: int) -> Worked:
    return Worked("B", r"b\cdot k\cdot d", {"b": b, "k": k, "d": d})


DRILLS = (
    Drill("fsdp2-volume", "fsdp-zero", {"psi_b": (7, 13, 70), "n": (8, 16, 64), "mode": (True, False)}, _fsdp_gb, "GB",
          "FSDP2, reshard_after_forward={mode}, {psi_b}B parameters in bf16, N = {n}, ring collectives: "
          "GB each rank sends per step?",
          "FSDP2，reshard_after_forward={mode}，{psi_b}B 参数（bf16），N = {n}，环形集合通信："
          "每个 rank 每步发送多少 GB？",
          worked=_fsdp_worked),
    Drill("global-batch", "gradient-accumulation",
          {"b": (1, 2, 4, 8), "k": (1, 4, 8, 16), "d": (8, 64, 256)}, _global_batch, "sequences",
          "Micro-batch b = {b}, k = {k} accumulated micro-batches, d = {d} data-parallel replicas: global "
          "batch in sequences?",
          "micro-batch b = {b}，累积 k = {k} 个，数据并行 d = {d}：全局 batch 有多少条序列？",
          worked=_global_batch_worked),
)

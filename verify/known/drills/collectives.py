"""Drills on collectives: what a ring all-reduce or a reduce-scatter sends, and the ring's α-β time.

    python -c "from verify.known.drills import *; k = 'ring-allreduce-us'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import collectives

_RING = r"\frac{N-1}{N}"


def _ring_gb(psi_b: float, n: int) -> float:
    return float(collectives.ring_send(op="all_reduce", n=n, m=psi_b * 1e9 * 2)) / 1e9


def _ring_worked(psi_b: float, n: int) -> Worked:
    return Worked("V", rf"2\cdot{_RING}\cdot 2\cdot\Psi", {"N": n, r"\Psi": psi_b})


def _rs_gb(m_gb: float, n: int, backend: str) -> float:
    send = collectives.gloo_send if backend == "Gloo" else collectives.ring_send
    return float(send(op="reduce_scatter", n=n, m=m_gb))


def _rs_worked(m_gb: float, n: int, backend: str) -> Worked:
    passes = r"2\cdot" if backend == "Gloo" else ""  # Gloo's reduce-scatter is a whole all-reduce
    return Worked("V", rf"{passes}{_RING}\cdot M", {"N": n, "M": m_gb})


def _ring_us(n: int, m_kb: int, alpha_us: int, beta_gbs: int) -> float:
    return float(collectives.ring_time(op="all_reduce", n=n, m_bytes=m_kb * 1e3, alpha_s=alpha_us * 1e-6,
                                       beta_bytes_per_s=beta_gbs * 1e9)) * 1e6


def _ring_us_worked(n: int, m_kb: int, alpha_us: int, beta_gbs: int) -> Worked:
    return Worked("T", r"2\cdot\left(N-1\right)\cdot\alpha+2\cdot\frac{N-1}{N}\cdot\frac{M}{\beta}",
                  {"N": n, r"\alpha": alpha_us, "M": m_kb * 1000, r"\beta": beta_gbs * 1000})


DRILLS = (
    Drill("ring-allreduce-send", "ddp-ring-allreduce", {"psi_b": (1.3, 7, 13, 70), "n": (4, 8, 16, 64)},
          _ring_gb, "GB",
          "DDP, {psi_b}B parameters, bf16 gradients, N = {n}, ring all-reduce: GB each rank sends per step?",
          "DDP，{psi_b}B 参数，bf16 梯度，N = {n}，ring all-reduce：每个 rank 每步发送多少 GB？",
          worked=_ring_worked),
    Drill("reduce-scatter-send", "collectives", {"m_gb": (1, 2, 4), "n": (2, 4, 8), "backend": ("ideal ring", "Gloo")},
          _rs_gb, "GB",
          "reduce-scatter ({backend}) of a {m_gb} GB input over N = {n} ranks: GB each rank sends?",
          "对 {m_gb} GB 的输入在 N = {n} 个 rank 间做 reduce-scatter（{backend}）：每个 rank 发送多少 GB？",
          worked=_rs_worked),
    Drill("ring-allreduce-us", "nccl-ring-vs-tree",
          {"n": (8, 64, 256), "m_kb": (1, 64, 4096), "alpha_us": (2, 5, 10), "beta_gbs": (25, 50, 100)},
          _ring_us, "µs",
          "Ring all-reduce of {m_kb} KB over N = {n} ranks, α = {alpha_us} µs per step, β = {beta_gbs} GB/s: "
          "α-β time in µs?",
          "Ring all-reduce，消息 {m_kb} KB，N = {n}，每步 α = {alpha_us} µs，β = {beta_gbs} GB/s：α-β 时间是多少 µs？",
          worked=_ring_us_worked),
)

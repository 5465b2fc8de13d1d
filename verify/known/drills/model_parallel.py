"""Drills on model parallelism: tensor-parallel traffic, MoE all-to-alls, ring attention, 3D layouts' state.

    python -c "from verify.known.drills import *; k = 'state-3d-gb'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import moe, parallel_3d, sequence_parallel, tensor_parallel


def _tp_mib(s: int, h: int, t: int) -> float:
    return tensor_parallel.send_per_layer_step(b=1, s=s, h=h, t=t)["sent_per_layer_step"] / 2**20


def _tp_worked(s: int, h: int, t: int) -> Worked:
    count = sum(tensor_parallel.allreduces_per_layer().values())
    return Worked("V", rf"{count}\cdot 2\cdot\frac{{t-1}}{{t}}\cdot\frac{{2\cdot s\cdot h}}{{2^{{20}}}}",
                  {"t": t, "s": s, "h": h})


def _moe_mb(tokens: int, h: int, k: int, n: int) -> float:
    return 2 * moe.a2a_send(tokens=tokens, hidden=h, top_k=k, n=n) / 1e6


def _moe_worked(tokens: int, h: int, k: int, n: int) -> Worked:
    return Worked("V", r"\frac{2\cdot k\cdot T\cdot h\cdot\frac{N-1}{N}}{10^{6}}",
                  {"k": k, "T": tokens, "h": h, "N": n})


def _ring_attn_gb(s: int, h: int, n: int) -> float:
    return 2 * sequence_parallel.ring_attention_send(b=1, s=s, h=h, n=n) / 1e9


def _ring_attn_worked(s: int, h: int, n: int) -> Worked:
    return Worked("V", r"\frac{2\cdot 2\cdot\left(N-1\right)\cdot\frac{s\cdot h}{N}}{10^{9}}", {"s": s, "h": h, "N": n})


def _state_3d_gb(psi_b: int, t: int, p: int, d: int) -> float:
    return parallel_3d.state_bytes_per_gpu(psi=psi_b * 1e9, t=t, p=p, d=d) / 1e9


def _state_3d_worked(psi_b: int, t: int, p: int, d: int) -> Worked:
    return Worked("M", r"\frac{4\cdot\Psi}{t\cdot p}+\frac{12\cdot\Psi}{t\cdot p\cdot d}",
                  {r"\Psi": psi_b, "t": t, "p": p, "d": d})


DRILLS = (
    Drill("tp-send-per-layer", "tensor-parallelism", {"s": (2048, 4096), "h": (4096, 8192), "t": (2, 4, 8)},
          _tp_mib, "MiB",
          "Megatron TP, b = 1, s = {s}, h = {h}, bf16, t = {t}, ring all-reduce: MiB each rank sends per "
          "layer per step (forward + backward)?",
          "Megatron 张量并行，b = 1，s = {s}，h = {h}，bf16，t = {t}，ring all-reduce："
          "每个 rank 每层每步（前向 + 反向）发送多少 MiB？",
          worked=_tp_worked),
    Drill("moe-a2a-mb", "expert-parallelism-moe",
          {"tokens": (2048, 4096, 8192), "h": (4096, 7168), "k": (1, 2, 8), "n": (8, 16, 64)}, _moe_mb, "MB",
          "Expert parallelism over N = {n} ranks, {tokens} tokens per rank, h = {h}, top-{k}, bf16, balanced "
          "routing: MB one rank sends in one dispatch all-to-all?",
          "专家并行 N = {n}，每个 rank {tokens} 个 token，h = {h}，top-{k}，bf16，路由均衡：一次 dispatch "
          "all-to-all 每个 rank 发送多少 MB？",
          worked=_moe_worked),
    Drill("ring-attention-gb", "sequence-parallelism",
          {"s": (32768, 131072, 1048576), "h": (4096, 8192), "n": (4, 8, 16)}, _ring_attn_gb, "GB",
          "Ring attention, b = 1, sequence length {s}, h = {h}, N = {n} ranks, bf16: GB one rank sends per "
          "layer in forward?",
          "Ring attention，b = 1，序列长度 {s}，h = {h}，N = {n}，bf16：每个 rank 每层前向发送多少 GB？",
          worked=_ring_attn_worked),
    Drill("state-3d-gb", "3d-parallelism",
          {"psi_b": (70, 175, 405), "t": (4, 8), "p": (4, 8, 16), "d": (8, 16, 64)}, _state_3d_gb, "GB",
          "{psi_b}B parameters, mixed-precision Adam, t = {t}, p = {p}, ZeRO-1 over d = {d}: model-state GB "
          "per GPU?",
          "{psi_b}B 参数，混合精度 Adam，t = {t}，p = {p}，在 d = {d} 上做 ZeRO-1：每卡模型状态多少 GB？",
          worked=_state_3d_worked),
)

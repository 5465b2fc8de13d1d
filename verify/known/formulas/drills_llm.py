"""Computed drills of the LLM-systems cards (issue 19): fresh numbers per showing, answers from their formulas.

    python -c "from verify.known.formulas.drills import *; k = 'spec-speedup'; print(answer(k, new_params(k)))"

Registered into ``verify.known.formulas.drills.DRILLS``; each answer calls the same function of
``verify.known.formulas`` that
the card's claims are judged against, and its worked solution shows that formula. Pure Python (no torch).
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas import checkpoint_interval as ci
from verify.known.formulas import grad_accumulation as ga
from verify.known.formulas import kv_paging as kv
from verify.known.formulas import moe
from verify.known.formulas import parallel_3d as p3
from verify.known.formulas import sequence_parallel as cp
from verify.known.formulas import sharded_checkpoint as sc
from verify.known.formulas import speculative as spec
from verify.known.formulas import tp_inference as tpi
from verify.known.formulas import tree_allreduce as tree


def _spec_tokens(alpha: float, gamma: int) -> float:
    return spec.tokens_per_step(alpha=alpha, gamma=gamma)


def _spec_speedup(alpha: float, gamma: int, c: float) -> float:
    return spec.speedup(alpha=alpha, gamma=gamma, c=c)


def _young_min(delta: int, mtbf_h: int) -> float:
    return ci.young_interval(delta=delta, mu=mtbf_h * 3600) / 60


def _paged_pct(block: int, l_max: int) -> float:
    return 100 * kv.paged_waste_fraction(block=block, l_max=l_max)


def _moe_mb(tokens: int, h: int, k: int, n: int) -> float:
    return 2 * moe.a2a_send(tokens=tokens, hidden=h, top_k=k, n=n) / 1e6


def _ring_attn_gb(s: int, h: int, n: int) -> float:
    return 2 * cp.ring_attention_send(b=1, s=s, h=h, n=n) / 1e9


def _tp_decode_mb(layers: int, h: int, t: int) -> float:
    return tpi.decode_send_bytes(layers=layers, b=1, h=h, t=t) / 1e6


def _ring_us(n: int, m_kb: int, alpha_us: int, beta_gbs: int) -> float:
    return tree.ring_time(n=n, m_bytes=m_kb * 1e3, alpha=alpha_us * 1e-6, beta=beta_gbs * 1e9) * 1e6


def _state_3d_gb(psi_b: int, t: int, p: int, d: int) -> float:
    return p3.state_bytes_per_gpu(psi=psi_b * 1e9, t=t, p=p, d=d) / 1e9


def _global_batch(b: int, k: int, d: int) -> float:
    return ga.global_batch(b=b, k=k, d=d)


def _dcp_s(psi_b: int, n: int, w_gbs: float) -> float:
    return sc.write_seconds(psi=psi_b * 1e9, n=n, bandwidth=w_gbs * 1e9)


def drills(Drill: Any, Worked: Any) -> list[Any]:
    """The drills, built with ``verify.known.formulas.drills``' classes (imported there, so no import cycle)."""
    return [
        Drill("spec-tokens-per-step", "speculative-decoding",
              {"alpha": (0.6, 0.7, 0.8, 0.9), "gamma": (2, 3, 4, 6, 8)}, _spec_tokens, "tokens",
              "Speculative decoding, acceptance rate α = {alpha}, γ = {gamma} drafts: expected tokens per target "
              "forward?",
              "投机解码，接受率 α = {alpha}，草稿长度 γ = {gamma}：每次目标前向期望产出多少个 token？",
              worked=lambda alpha, gamma: Worked("E", r"\frac{1-\alpha^{\gamma+1}}{1-\alpha}",
                                                 {r"\alpha": alpha, r"\gamma": gamma})),
        Drill("spec-speedup", "speculative-decoding",
              {"alpha": (0.6, 0.7, 0.8, 0.9), "gamma": (2, 4, 6), "c": (0.02, 0.05, 0.1, 0.3)}, _spec_speedup, "×",
              "Speculative decoding, α = {alpha}, γ = {gamma}, a draft forward costs c = {c} target forwards: "
              "expected speed-up?",
              "投机解码，α = {alpha}，γ = {gamma}，草稿前向成本 c = {c}（以目标前向为 1）：期望加速比？",
              worked=lambda alpha, gamma, c: Worked(
                  "S", r"\frac{1-\alpha^{\gamma+1}}{\left(1-\alpha\right)\cdot\left(\gamma\cdot c+1\right)}",
                  {r"\alpha": alpha, r"\gamma": gamma, "c": c})),
        Drill("young-interval", "checkpoint-interval-young-daly",
              {"delta": (30, 60, 120, 300, 600), "mtbf_h": (4, 10, 24)}, _young_min, "min",
              "A checkpoint takes δ = {delta} s to write and the job fails on average every {mtbf_h} h: Young's "
              "checkpoint interval in minutes?",
              "写一次检查点需 δ = {delta} 秒，作业平均每 {mtbf_h} 小时故障一次：Young 的检查点间隔是多少分钟？",
              worked=lambda delta, mtbf_h: Worked("\\tau", r"\frac{\sqrt{2\cdot\delta\cdot\mu}}{60}",
                                                  {r"\delta": delta, r"\mu": mtbf_h * 3600})),
        Drill("paged-kv-waste", "paged-kv-cache-continuous-batching",
              {"block": (8, 16, 32), "l_max": (512, 2048, 4096)}, _paged_pct, "%",
              "Paged KV cache, blocks of {block} tokens, request lengths uniform on 1..{l_max}: percentage of the "
              "allocated slots left unused?",
              "分页 KV 缓存，每块 {block} 个 token，请求长度在 1..{l_max} 上均匀：已分配槽位中空闲的百分比？",
              worked=lambda block, l_max: Worked("W", r"100\cdot\frac{B-1}{L+B}", {"B": block, "L": l_max})),
        Drill("moe-a2a-mb", "expert-parallelism-moe",
              {"tokens": (2048, 4096, 8192), "h": (4096, 7168), "k": (1, 2, 8), "n": (8, 16, 64)}, _moe_mb, "MB",
              "Expert parallelism over N = {n} ranks, {tokens} tokens per rank, h = {h}, top-{k}, bf16, balanced "
              "routing: MB one rank sends in one dispatch all-to-all?",
              "专家并行 N = {n}，每个 rank {tokens} 个 token，h = {h}，top-{k}，bf16，路由均衡：一次 dispatch "
              "all-to-all 每个 rank 发送多少 MB？",
              worked=lambda tokens, h, k, n: Worked(
                  "V", r"\frac{2\cdot k\cdot T\cdot h\cdot\frac{N-1}{N}}{10^{6}}",
                  {"k": k, "T": tokens, "h": h, "N": n})),
        Drill("ring-attention-gb", "sequence-parallelism",
              {"s": (32768, 131072, 1048576), "h": (4096, 8192), "n": (4, 8, 16)}, _ring_attn_gb, "GB",
              "Ring attention, b = 1, sequence length {s}, h = {h}, N = {n} ranks, bf16: GB one rank sends per "
              "layer in forward?",
              "Ring attention，b = 1，序列长度 {s}，h = {h}，N = {n}，bf16：每个 rank 每层前向发送多少 GB？",
              worked=lambda s, h, n: Worked(
                  "V", r"\frac{2\cdot 2\cdot\left(N-1\right)\cdot\frac{s\cdot h}{N}}{10^{9}}",
                  {"s": s, "h": h, "N": n})),
        Drill("tp-decode-mb", "tp-inference-communication",
              {"layers": (32, 80, 126), "h": (4096, 8192, 16384), "t": (2, 4, 8)}, _tp_decode_mb, "MB",
              "Tensor-parallel decoding, {layers} layers, h = {h}, t = {t}, b = 1, bf16, ring all-reduces: MB one "
              "rank sends per generated token?",
              "张量并行解码，{layers} 层，h = {h}，t = {t}，b = 1，bf16，ring all-reduce：每生成一个 token 每个 rank "
              "发送多少 MB？",
              worked=lambda layers, h, t: Worked(
                  "V", r"\frac{8\cdot L\cdot h\cdot\frac{t-1}{t}}{10^{6}}", {"L": layers, "h": h, "t": t})),
        Drill("ring-allreduce-us", "nccl-ring-vs-tree",
              {"n": (8, 64, 256), "m_kb": (1, 64, 4096), "alpha_us": (2, 5, 10), "beta_gbs": (25, 50, 100)},
              _ring_us, "µs",
              "Ring all-reduce of {m_kb} KB over N = {n} ranks, α = {alpha_us} µs per step, β = {beta_gbs} GB/s: "
              "α-β time in µs?",
              "Ring all-reduce，消息 {m_kb} KB，N = {n}，每步 α = {alpha_us} µs，β = {beta_gbs} GB/s："
              "α-β 时间是多少 µs？",
              worked=lambda n, m_kb, alpha_us, beta_gbs: Worked(
                  "T", r"2\cdot\left(N-1\right)\cdot\alpha+2\cdot\frac{N-1}{N}\cdot\frac{M}{\beta}",
                  {"N": n, r"\alpha": alpha_us, "M": m_kb * 1000, r"\beta": beta_gbs * 1000})),
        Drill("state-3d-gb", "3d-parallelism",
              {"psi_b": (70, 175, 405), "t": (4, 8), "p": (4, 8, 16), "d": (8, 16, 64)}, _state_3d_gb, "GB",
              "{psi_b}B parameters, mixed-precision Adam, t = {t}, p = {p}, ZeRO-1 over d = {d}: model-state GB "
              "per GPU?",
              "{psi_b}B 参数，混合精度 Adam，t = {t}，p = {p}，在 d = {d} 上做 ZeRO-1：每卡模型状态多少 GB？",
              worked=lambda psi_b, t, p, d: Worked(
                  "M", r"\frac{4\cdot\Psi}{t\cdot p}+\frac{12\cdot\Psi}{t\cdot p\cdot d}",
                  {r"\Psi": psi_b, "t": t, "p": p, "d": d})),
        Drill("global-batch", "gradient-accumulation",
              {"b": (1, 2, 4, 8), "k": (1, 4, 8, 16), "d": (8, 64, 256)}, _global_batch, "sequences",
              "Micro-batch b = {b}, k = {k} accumulated micro-batches, d = {d} data-parallel replicas: global "
              "batch in sequences?",
              "micro-batch b = {b}，累积 k = {k} 个，数据并行 d = {d}：全局 batch 有多少条序列？",
              worked=lambda b, k, d: Worked("B", r"b\cdot k\cdot d", {"b": b, "k": k, "d": d})),
        Drill("dcp-write-seconds", "sharded-checkpointing",
              {"psi_b": (7, 70, 405), "n": (64, 256, 1024), "w_gbs": (0.5, 1, 2)}, _dcp_s, "s",
              "Resumable checkpoint (fp32 weights + Adam m, v) of {psi_b}B parameters, sharded over N = {n} ranks "
              "writing at {w_gbs} GB/s each: seconds to write?",
              "{psi_b}B 参数的可恢复检查点（fp32 权重 + Adam m、v），分片到 N = {n} 个 rank，"
              "每个 rank 写 {w_gbs} GB/s：写入需要多少秒？",
              worked=lambda psi_b, n, w_gbs: Worked("T", r"\frac{12\cdot\Psi}{N\cdot W}",
                                                    {r"\Psi": psi_b, "N": n, "W": w_gbs})),
    ]

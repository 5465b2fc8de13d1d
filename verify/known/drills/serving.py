"""Drills on serving: the KV cache, paged KV waste, speculative decoding, tensor-parallel decoding's traffic.

    python -c "from verify.known.drills import *; k = 'spec-speedup'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import kv_cache, kv_paging, speculative, tp_inference


def _kv_gib(layers: int, kv_heads: int, tokens: int, batch: int) -> float:
    return float(kv_cache.cache_bytes(layers=layers, kv_heads=kv_heads, head_dim=128, elem=2, tokens=tokens,
                                      batch=batch)) / 2**30


def _kv_worked(layers: int, kv_heads: int, tokens: int, batch: int) -> Worked:
    return Worked("K", r"\frac{2\cdot L\cdot g\cdot 128\cdot 2\cdot s\cdot b}{2^{30}}",
                  {"L": layers, "g": kv_heads, "s": tokens, "b": batch})


def _spec_tokens(alpha: float, gamma: int) -> float:
    return speculative.tokens_per_step(alpha=alpha, gamma=gamma)


def _spec_tokens_worked(alpha: float, gamma: int) -> Worked:
    return Worked("E", r"\frac{1-\alpha^{\gamma+1}}{1-\alpha}", {r"\alpha": alpha, r"\gamma": gamma})


def _spec_speedup(alpha: float, gamma: int, c: float) -> float:
    return speculative.speedup(alpha=alpha, gamma=gamma, c=c)


def _spec_speedup_worked(alpha: float, gamma: int, c: float) -> Worked:
    return Worked("S", r"\frac{1-\alpha^{\gamma+1}}{\left(1-\alpha\right)\cdot\left(\gamma\cdot c+1\right)}",
                  {r"\alpha": alpha, r"\gamma": gamma, "c": c})


def _paged_pct(block: int, l_max: int) -> float:
    return 100 * kv_paging.paged_waste_fraction(block=block, l_max=l_max)


def _paged_worked(block: int, l_max: int) -> Worked:
    return Worked("W", r"100\cdot\frac{B-1}{L+B}", {"B": block, "L": l_max})


def _tp_decode_mb(layers: int, h: int, t: int) -> float:
    return tp_inference.decode_send_bytes(layers=layers, b=1, h=h, t=t) / 1e6


def _tp_decode_worked(layers: int, h: int, t: int) -> Worked:
    return Worked("V", r"\frac{8\cdot L\cdot h\cdot\frac{t-1}{t}}{10^{6}}", {"L": layers, "h": h, "t": t})


DRILLS = (
    Drill("kv-cache-gib", "kv-cache",
          {"layers": (32, 40, 80), "kv_heads": (8, 32, 40), "tokens": (2048, 4096, 32768), "batch": (1, 8, 32)},
          _kv_gib, "GiB",
          "KV cache, L = {layers}, {kv_heads} KV heads of dimension 128, fp16, {batch} sequences of {tokens} "
          "tokens: GiB?",
          "KV 缓存，L = {layers}，{kv_heads} 个 KV 头、头维 128，fp16，{batch} 条 {tokens} token 的序列：多少 GiB？",
          worked=_kv_worked),
    Drill("spec-tokens-per-step", "speculative-decoding",
          {"alpha": (0.6, 0.7, 0.8, 0.9), "gamma": (2, 3, 4, 6, 8)}, _spec_tokens, "tokens",
          "Speculative decoding, acceptance rate α = {alpha}, γ = {gamma} drafts: expected tokens per target "
          "forward?",
          "投机解码，接受率 α = {alpha}，草稿长度 γ = {gamma}：每次目标前向期望产出多少个 token？",
          worked=_spec_tokens_worked),
    Drill("spec-speedup", "speculative-decoding",
          {"alpha": (0.6, 0.7, 0.8, 0.9), "gamma": (2, 4, 6), "c": (0.02, 0.05, 0.1, 0.3)}, _spec_speedup, "×",
          "Speculative decoding, α = {alpha}, γ = {gamma}, a draft forward costs c = {c} target forwards: "
          "expected speed-up?",
          "投机解码，α = {alpha}，γ = {gamma}，草稿前向成本 c = {c}（以目标前向为 1）：期望加速比？",
          worked=_spec_speedup_worked),
    Drill("paged-kv-waste", "paged-kv-cache-continuous-batching",
          {"block": (8, 16, 32), "l_max": (512, 2048, 4096)}, _paged_pct, "%",
          "Paged KV cache, blocks of {block} tokens, request lengths uniform on 1..{l_max}: percentage of the "
          "allocated slots left unused?",
          "分页 KV 缓存，每块 {block} 个 token，请求长度在 1..{l_max} 上均匀：已分配槽位中空闲的百分比？",
          worked=_paged_worked),
    Drill("tp-decode-mb", "tp-inference-communication",
          {"layers": (32, 80, 126), "h": (4096, 8192, 16384), "t": (2, 4, 8)}, _tp_decode_mb, "MB",
          "Tensor-parallel decoding, {layers} layers, h = {h}, t = {t}, b = 1, bf16, ring all-reduces: MB one "
          "rank sends per generated token?",
          "张量并行解码，{layers} 层，h = {h}，t = {t}，b = 1，bf16，ring all-reduce：每生成一个 token 每个 rank "
          "发送多少 MB？",
          worked=_tp_decode_worked),
)

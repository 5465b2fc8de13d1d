"""Drills on a transformer: its parameters, training days, a decoding step's floor, FlashAttention's IO, LoRA.

    python -c "from verify.known.drills import *; k = 'train-days'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import flash_attention, lora, roofline, training_flops, transformer_params

A100_PEAK = 312e12  # dense bf16 FLOP/s (NVIDIA A100 datasheet)


def _params_m(h: int, layers: int, vocab: int, ctx: int) -> float:
    return float(transformer_params.decoder_params(h=h, layers=layers, vocab=vocab, ctx=ctx)) / 1e6


def _params_worked(h: int, layers: int, vocab: int, ctx: int) -> Worked:
    return Worked("P", r"\frac{L\cdot(12\cdot h^{2}+13\cdot h)+V\cdot h+s\cdot h+2\cdot h}{10^{6}}",
                  {"L": layers, "h": h, "V": vocab, "s": ctx})


def _days(psi_b: float, tokens_b: float, gpus: int, mfu: float) -> float:
    return float(training_flops.train_days(params=psi_b * 1e9, tokens=tokens_b * 1e9, gpus=gpus,
                                           peak_flops=A100_PEAK, mfu=mfu))


def _days_worked(psi_b: float, tokens_b: float, gpus: int, mfu: float) -> Worked:
    return Worked("T", r"\frac{6\cdot\Psi\cdot D}{N\cdot F\cdot 86400}",
                  {r"\Psi": psi_b * 1e9, "D": tokens_b * 1e9, "N": gpus, "F": A100_PEAK * mfu})


def _decode_ms(psi_b: float, elem: int, tb_s: float) -> float:
    return float(roofline.decode_token_seconds(params=psi_b * 1e9, elem=elem, mem_bandwidth=tb_s * 1e12)) * 1e3


def _decode_worked(psi_b: float, elem: int, tb_s: float) -> Worked:
    return Worked("T", r"\frac{e\cdot\Psi}{B}\cdot 10^{3}", {"e": elem, r"\Psi": psi_b * 1e9, "B": tb_s * 1e12})


def _flash_ratio(s: int, d: int) -> float:
    return float(flash_attention.standard_accesses(n=s, d=d) / flash_attention.flash_accesses(n=s, d=d, sram=65536))


def _flash_worked(s: int, d: int) -> Worked:
    passes = r"\frac{4 \cdot s \cdot d}{M}"
    return Worked("R", rf"\frac{{4 \cdot s \cdot d+4 \cdot s^{{2}}}}{{3 \cdot s \cdot d+2 \cdot s+{passes} \cdot "
                       r"\left(3 \cdot s \cdot d+4 \cdot s\right)}", {"s": s, "d": d, "M": 65536})


def _lora_m(r: int, h: int, layers: int, per_layer: int) -> float:
    return float(lora.trainable(r=r, d_in=h, d_out=h)) * layers * per_layer / 1e6


def _lora_worked(r: int, h: int, layers: int, per_layer: int) -> Worked:
    return Worked("P", r"\frac{R\cdot(h+h)\cdot L\cdot m}{10^{6}}", {"R": r, "h": h, "L": layers, "m": per_layer})


DRILLS = (
    Drill("decoder-params-m", "transformer-parameter-count",
          {"h": (768, 1024, 2048, 4096), "layers": (12, 24, 32), "vocab": (32000, 50257), "ctx": (1024, 2048)},
          _params_m, "M",
          "GPT-style decoder, h = {h}, L = {layers}, V = {vocab}, learned positions for {ctx} tokens, tied LM head: "
          "parameters, in millions?",
          "GPT 式解码器，h = {h}，L = {layers}，V = {vocab}，{ctx} 个可学习位置，输出层共享嵌入：参数量是多少百万？",
          worked=_params_worked),
    Drill("train-days", "training-flops",
          {"psi_b": (1.3, 7, 13, 70), "tokens_b": (300, 1000, 2000), "gpus": (256, 1024, 2048), "mfu": (0.4, 0.5)},
          _days, "days",
          "{psi_b}B parameters, {tokens_b}B tokens, {gpus} A100s (312 TFLOP/s bf16) at MFU {mfu}, 6ΨD FLOPs: days?",
          "{psi_b}B 参数，{tokens_b}B token，{gpus} 张 A100（bf16 312 TFLOP/s），MFU {mfu}，按 6ΨD 计：要多少天？",
          worked=_days_worked),
    Drill("decode-ms", "prefill-decode-roofline",
          {"psi_b": (7, 13, 70), "elem": (2, 1), "tb_s": (2.039, 3.35)},
          _decode_ms, "ms",
          "Batch-1 decoding, {psi_b}B parameters at {elem} bytes each, {tb_s} TB/s of HBM: milliseconds per token "
          "at least?",
          "batch 1 解码，{psi_b}B 参数、每个 {elem} 字节，显存带宽 {tb_s} TB/s：每 token 至少多少毫秒？",
          worked=_decode_worked),
    Drill("flash-io-ratio", "flash-attention-io",
          {"s": (1024, 2048, 4096, 8192), "d": (64, 128)},
          _flash_ratio, "×",
          "Attention, s = {s}, d = {d}, SRAM of 65536 elements: standard HBM accesses over FlashAttention's?",
          "注意力，s = {s}，d = {d}，SRAM 65536 个元素：标准算法的 HBM 访问次数是 FlashAttention 的几倍？",
          worked=_flash_worked),
    Drill("lora-trainable-m", "lora-qlora",
          {"r": (8, 16, 64), "h": (4096, 8192), "layers": (32, 80), "per_layer": (2, 4)},
          _lora_m, "M",
          "LoRA of rank {r} on {per_layer} h × h projections per layer, h = {h}, {layers} layers: trainable "
          "parameters, in millions?",
          "秩 {r} 的 LoRA，每层 {per_layer} 个 h × h 投影，h = {h}，{layers} 层：可训练参数多少百万？",
          worked=_lora_worked),
)

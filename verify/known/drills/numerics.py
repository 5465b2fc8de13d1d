"""Drills on training-state bytes: mixed-precision Adam's model state, other optimizers' state, quantized weights.

    python -c "from verify.known.drills import *; k = 'model-state-gb'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import mixed_precision, optimizer_state, quantization


def _state_gb(psi_b: float) -> float:
    return mixed_precision.model_state_bytes(psi=psi_b * 1e9) / 1e9


def _state_worked(psi_b: float) -> Worked:
    return Worked("M", r"16\cdot\Psi", {r"\Psi": psi_b})


_STATE = {"Adam": "adam", "SGD momentum": "sgd_momentum", "Lion": "lion"}


def _optim_gb(psi_b: float, opt: str) -> float:
    per = optimizer_state.mixed_total_per_param(opt=_STATE[opt], rows=4096, cols=4096)
    return float(per) * psi_b


def _optim_worked(psi_b: float, opt: str) -> Worked:
    state = optimizer_state.state_bytes_per_param(opt=_STATE[opt], rows=1, cols=1)
    return Worked("M", r"(2+2+4+k)\cdot\Psi", {"k": float(state), r"\Psi": psi_b})


def _quant_gb(psi_b: float, bits: int, group: int) -> float:
    return float(quantization.bits_per_param(bits=bits, group=group)) * psi_b / 8


def _quant_worked(psi_b: float, bits: int, group: int) -> Worked:
    return Worked("M", r"\frac{(b+\frac{16}{G})\cdot\Psi}{8}", {"b": bits, "G": group, r"\Psi": psi_b})


DRILLS = (
    Drill("model-state-gb", "mixed-precision-memory", {"psi_b": (1.3, 7, 13, 70, 175)}, _state_gb, "GB",
          "Mixed-precision Adam, {psi_b}B parameters, no sharding: model-state GB per GPU?",
          "混合精度 Adam，{psi_b}B 参数，不分片：每张 GPU 的模型状态是多少 GB？",
          worked=_state_worked),
    Drill("optimizer-state-gb", "optimizer-state-memory",
          {"psi_b": (1.3, 7, 13, 70), "opt": ("Adam", "SGD momentum", "Lion")},
          _optim_gb, "GB",
          "{opt} with mixed precision (bf16 parameter and gradient, fp32 master), {psi_b}B parameters: model-state GB?",
          "{opt}，混合精度（bf16 参数与梯度、fp32 主权重），{psi_b}B 参数：模型状态多少 GB？",
          worked=_optim_worked),
    Drill("quantized-weights-gb", "weight-quantization", {"psi_b": (7, 13, 70), "bits": (8, 4), "group": (64, 128)},
          _quant_gb, "GB",
          "{psi_b}B parameters in int{bits}, one fp16 scale per {group} weights: GB of weights?",
          "{psi_b}B 参数存成 int{bits}，每 {group} 个权重一个 fp16 缩放：权重多少 GB？",
          worked=_quant_worked),
)

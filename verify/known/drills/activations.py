"""Drills on activations: checkpointing's peak and the bytes one transformer layer saves.

    python -c "from verify.known.drills import *; k = 'layer-activation-gb'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import activation_memory, checkpointing


def _ckpt_units(layers: int, segments: int) -> float:
    return float(checkpointing.peak_units(layers=layers, segments=segments))


def _ckpt_worked(layers: int, segments: int) -> Worked:
    return Worked("A", r"\left(k-1\right)+\frac{L}{k}", {"k": segments, "L": layers})


def _act_gb(s: int, b: int, h: int, a: int) -> float:
    return float(activation_memory.layer_bytes(s=s, b=b, h=h, a=a)) / 1e9


def _act_worked(s: int, b: int, h: int, a: int) -> Worked:
    return Worked("A", r"\frac{s\cdot b\cdot h\cdot(34+\frac{5\cdot a\cdot s}{h})}{10^{9}}",
                  {"s": s, "b": b, "h": h, "a": a})


DRILLS = (
    Drill("checkpoint-peak-units", "activation-checkpointing", {"layers": (16, 36, 64), "segments": (2, 4)},
          _ckpt_units, "layers",
          "checkpoint_sequential over {layers} equal layers in {segments} segments: peak saved activations, in "
          "layers?",
          "checkpoint_sequential，{layers} 个相同的层分 {segments} 段：峰值保存的激活相当于多少层？",
          worked=_ckpt_worked),
    Drill("layer-activation-gb", "activation-memory",
          {"s": (1024, 2048, 4096), "b": (1, 2, 4), "h": (4096, 8192), "a": (32, 64)},
          _act_gb, "GB",
          "One transformer layer, s = {s}, b = {b}, h = {h}, a = {a}, 16-bit, no recomputation: activation GB "
          "(Korthikanti et al.)?",
          "一个 Transformer 层，s = {s}，b = {b}，h = {h}，a = {a}，16 位，无重计算：激活多少 GB（Korthikanti 等）？",
          worked=_act_worked),
)

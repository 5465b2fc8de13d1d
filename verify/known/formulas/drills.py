"""Computed drills for the starter deck: fresh numbers per showing, answers from the checks' formulas.

    python -c "from verify.known.formulas.drills import *; k = 'bubble-fraction'; print(answer(k, new_params(k)))"

Each drill names its card and one formula from ``verify.known.formulas`` (the same function the card's check
compares with a measurement), its input choices, a question per language and the unit of the answer.
Pure Python: the quiz may import it (no torch).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from verify.known.formulas import checkpointing, collectives, fsdp, mixed_precision, offload, pipeline
from verify.known.formulas import tensor_parallel as tp


@dataclass(frozen=True)
class Worked:
    """The formula a drill's answer comes from, as TeX over symbols, and each symbol's value for the inputs.
    ``substituted`` puts the numbers in; tests/srs/test_worked_solutions.py parses both back with sympy and
    checks them against ``answer``, so the worked solution shown cannot drift from the formula."""

    lhs: str
    tex: str  # right-hand side; every symbol written with an explicit \cdot before it
    symbols: dict[str, float]

    def substituted(self) -> str:
        out = self.tex
        for sym in sorted(self.symbols, key=len, reverse=True):
            before = "" if sym.startswith("\\") else r"(?<![A-Za-z\\])"  # N, not the N of \Nu
            value = "{" + tex_number(self.symbols[sym]) + "}"
            out = re.sub(before + re.escape(sym) + "(?![A-Za-z])", value.replace("\\", "\\\\"), out)
        return out


def tex_number(v: float) -> str:
    """``7.5\\times 10^{9}`` for large or tiny values, else the shortest plain form."""
    text = f"{v:g}"
    if "e" not in text:
        return text
    mantissa, exp = text.split("e")
    return f"{mantissa}\\times 10^{{{int(exp)}}}"


@dataclass(frozen=True)
class Drill:
    key: str
    card: str  # slug of the card the drill belongs to
    choices: dict[str, tuple[Any, ...]]  # input name -> values to draw from
    answer: Callable[..., float]  # inputs -> answer, in ``unit``
    unit: str
    question_en: str  # str.format template over the inputs
    question_zh: str
    worked: Callable[..., Worked] | None = None  # inputs -> the formula with its symbols' values


def _ring_gb(psi_b: float, n: int) -> float:
    return collectives.ring_send(op="all_reduce", n=n, m=psi_b * 1e9 * 2) / 1e9


def _rs_gb(m_gb: float, n: int, backend: str) -> float:
    send = collectives.gloo_send if backend == "Gloo" else collectives.ring_send
    return send(op="reduce_scatter", n=n, m=m_gb)


def _state_gb(psi_b: float) -> float:
    return mixed_precision.model_state_bytes(psi=psi_b * 1e9) / 1e9


def _fsdp_gb(psi_b: float, n: int, mode: bool) -> float:
    ratio = fsdp.per_unit(mode=mode, n=n)["ring_volume_per_psi"]
    return float(ratio) * psi_b * 1e9 * 2 / 1e9  # type: ignore[arg-type]


def _offload_s(psi_b: float, gen: int) -> float:
    nbytes = offload.offload_pcie_bytes(psi=psi_b * 1e9)["total"]
    return offload.pcie_seconds(nbytes=nbytes, bandwidth_gb_s=offload.pcie_bandwidth_gb_s(gen=gen))


def _ckpt_units(layers: int, segments: int) -> float:
    return checkpointing.peak_units(layers=layers, segments=segments)


def _tp_mib(s: int, h: int, t: int) -> float:
    return tp.send_per_layer_step(b=1, s=s, h=h, t=t)["sent_per_layer_step"] / 2**20


def _bubble_pct(p: int, m: int) -> float:
    return 100 * pipeline.bubble_fraction(p=p, m=m)


_RING = r"\frac{N-1}{N}"


def _ring_worked(psi_b: float, n: int) -> Worked:
    return Worked("V", rf"2\cdot{_RING}\cdot 2\cdot\Psi", {"N": n, r"\Psi": psi_b})


def _rs_worked(m_gb: float, n: int, backend: str) -> Worked:
    passes = r"2\cdot" if backend == "Gloo" else ""  # Gloo's reduce-scatter is a whole all-reduce
    return Worked("V", rf"{passes}{_RING}\cdot M", {"N": n, "M": m_gb})


def _state_worked(psi_b: float) -> Worked:
    return Worked("M", r"16\cdot\Psi", {r"\Psi": psi_b})


def _fsdp_worked(psi_b: float, n: int, mode: bool) -> Worked:
    # forward all-gather + backward reduce-scatter, and a backward all-gather when parameters were resharded
    gathers = rf"\left(2\cdot{_RING}+{_RING}\right)" if mode else rf"2\cdot{_RING}"
    return Worked("V", rf"{gathers}\cdot 2\cdot\Psi", {"N": n, r"\Psi": psi_b})


def _offload_worked(psi_b: float, gen: int) -> Worked:
    # 4Ψ bytes over a x16 link of r GT/s, 128b/130b encoding, 8 bits a byte
    return Worked("T", r"\frac{4\cdot\Psi}{16\cdot r\cdot\frac{128}{130}\cdot\frac{1}{8}}",
                  {r"\Psi": psi_b, "r": offload.GT_PER_S[gen]})


def _ckpt_worked(layers: int, segments: int) -> Worked:
    return Worked("A", r"\left(k-1\right)+\frac{L}{k}", {"k": segments, "L": layers})


def _tp_worked(s: int, h: int, t: int) -> Worked:
    count = sum(tp.allreduces_per_layer().values())
    return Worked("V", rf"{count}\cdot 2\cdot\frac{{t-1}}{{t}}\cdot\frac{{2\cdot s\cdot h}}{{2^{{20}}}}",
                  {"t": t, "s": s, "h": h})


def _bubble_worked(p: int, m: int) -> Worked:
    return Worked("B", r"100\cdot\frac{p-1}{m+p-1}", {"p": p, "m": m})


DRILLS: dict[str, Drill] = {
    d.key: d
    for d in (
        Drill(
            "ring-allreduce-send",
            "ddp-ring-allreduce",
            {"psi_b": (1.3, 7, 13, 70), "n": (4, 8, 16, 64)},
            _ring_gb,
            "GB",
            "DDP, {psi_b}B parameters, bf16 gradients, N = {n}, ring all-reduce: "
            "GB each rank sends per step?",
            "DDP，{psi_b}B 参数，bf16 梯度，N = {n}，ring all-reduce：每个 rank 每步发送多少 GB？",
            worked=_ring_worked,
        ),
        Drill(
            "reduce-scatter-send",
            "collectives",
            {"m_gb": (1, 2, 4), "n": (2, 4, 8), "backend": ("ideal ring", "Gloo")},
            _rs_gb,
            "GB",
            "reduce-scatter ({backend}) of a {m_gb} GB input over N = {n} ranks: GB each rank sends?",
            "对 {m_gb} GB 的输入在 N = {n} 个 rank 间做 reduce-scatter（{backend}）：每个 rank 发送多少 GB？",
            worked=_rs_worked,
        ),
        Drill(
            "model-state-gb",
            "mixed-precision-memory",
            {"psi_b": (1.3, 7, 13, 70, 175)},
            _state_gb,
            "GB",
            "Mixed-precision Adam, {psi_b}B parameters, no sharding: model-state GB per GPU?",
            "混合精度 Adam，{psi_b}B 参数，不分片：每张 GPU 的模型状态是多少 GB？",
            worked=_state_worked,
        ),
        Drill(
            "fsdp2-volume",
            "fsdp-zero",
            {"psi_b": (7, 13, 70), "n": (8, 16, 64), "mode": (True, False)},
            _fsdp_gb,
            "GB",
            "FSDP2, reshard_after_forward={mode}, {psi_b}B parameters in bf16, N = {n}, ring collectives: "
            "GB each rank sends per step?",
            "FSDP2，reshard_after_forward={mode}，{psi_b}B 参数（bf16），N = {n}，环形集合通信："
            "每个 rank 每步发送多少 GB？",
            worked=_fsdp_worked,
        ),
        Drill(
            "offload-pcie-seconds",
            "zero-offload-infinity",
            {"psi_b": (1.3, 7, 13), "gen": (3, 4, 5)},
            _offload_s,
            "s",
            "ZeRO-Offload, {psi_b}B parameters, PCIe Gen{gen} x16 at its theoretical rate, "
            "both directions in "
            "series: seconds of PCIe per step?",
            "ZeRO-Offload，{psi_b}B 参数，PCIe Gen{gen} x16 按理论带宽、上下行串行：每步 PCIe 需要多少秒？",
            worked=_offload_worked,
        ),
        Drill(
            "checkpoint-peak-units",
            "activation-checkpointing",
            {"layers": (16, 36, 64), "segments": (2, 4)},
            _ckpt_units,
            "layers",
            "checkpoint_sequential over {layers} equal layers in {segments} segments: peak "
            "saved activations, in layers?",
            "checkpoint_sequential，{layers} 个相同的层分 {segments} 段：峰值保存的激活相当于多少层？",
            worked=_ckpt_worked,
        ),
        Drill(
            "tp-send-per-layer",
            "tensor-parallelism",
            {"s": (2048, 4096), "h": (4096, 8192), "t": (2, 4, 8)},
            _tp_mib,
            "MiB",
            "Megatron TP, b = 1, s = {s}, h = {h}, bf16, t = {t}, ring all-reduce: MiB each rank sends per "
            "layer per step (forward + backward)?",
            "Megatron 张量并行，b = 1，s = {s}，h = {h}，bf16，t = {t}，ring all-reduce："
            "每个 rank 每层每步（前向 + 反向）"
            "发送多少 MiB？",
            worked=_tp_worked,
        ),
        Drill(
            "bubble-fraction",
            "pipeline-parallelism",
            {"p": (2, 4, 8), "m": (4, 8, 16, 32)},
            _bubble_pct,
            "%",
            "GPipe or 1F1B, p = {p} stages, m = {m} micro-batches: bubble as a percentage of the step?",
            "GPipe 或 1F1B，p = {p} 个 stage，m = {m} 个 micro-batch：气泡占一步时间的百分之几？",
            worked=_bubble_worked,
        ),
    )
}


# the LLM-systems cards' drills (issue 19): verify/known/formulas/drills_llm.py
from verify.known.formulas.drills_llm import drills as _llm_drills  # noqa: E402

DRILLS.update({d.key: d for d in _llm_drills(Drill, Worked)})


def drills_for_card(slug: str) -> list[Drill]:
    return [d for d in DRILLS.values() if d.card == slug]


def new_params(key: str, seed: int | None = None) -> dict[str, Any]:
    """Fresh inputs for drill ``key`` (``seed`` makes them reproducible)."""
    if key not in DRILLS:
        raise KeyError(f"unknown drill {key!r}; known: {', '.join(DRILLS)}")
    rng = random.Random(seed)
    return {name: rng.choice(values) for name, values in DRILLS[key].choices.items()}


def answer(key: str, params: dict[str, Any]) -> float:
    return DRILLS[key].answer(**params)


def worked(key: str, params: dict[str, Any]) -> Worked | None:
    d = DRILLS[key]
    return d.worked(**params) if d.worked else None


def question(key: str, params: dict[str, Any]) -> dict[str, str]:
    d = DRILLS[key]
    return {
        "en": d.question_en.format(**params) + f" ({d.unit})",
        "zh": d.question_zh.format(**params) + f"（{d.unit}）",
    }


import verify.known.formulas.drills_arith  # noqa: E402,F401  (registers the LLM-arithmetic cards' drills into DRILLS)

"""Computed drills: numeric ZeRO questions with fresh numbers each showing, graded within 1%.

Which card gets drills (data-driven): the eight ZeRO drills (model-state memory and ring communication
volume for DDP, ZeRO-1, ZeRO-2, ZeRO-3) are defined once and hang on one card, the one with the most claims
asserting something about the ZeRO ledger's memory or communication (``model_state_bytes(zero3) ==
16*Psi/N``, ``comm_volume(…)``; :func:`ledger_owner`); other cards that mention ZeRO get none.

Every number comes from ``verify.known.ledger`` (the formulas live there only); this module picks the
inputs, words the question and writes the worked solution. A showing's inputs are stored server-side
(``DrillShowing``) and grading reads them back: the client never supplies the numbers.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from app.items import unit_table
from app.items.answers import AnswerError, parse_number
from app.items.typed_quantity import mismatch_note, number_of
from verify.known import drills as formula_drills
from verify.known import ledger
from verify.known.drills import Worked, tex_number

TOLERANCE = 0.01  # relative
GB = 1e9  # bytes (decimal gigabytes, as the question says)

PSI_CHOICES = (1.3e9, 2.7e9, 6.7e9, 7.5e9, 13e9, 30e9, 65e9, 70e9, 175e9)
N_CHOICES = (8, 16, 32, 64, 128, 256, 512, 1024)
STAGE_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3"}
KINDS = ("memory", "comm")
DRILL_KEYS: tuple[str, ...] = tuple(f"{kind}-{stage}" for kind in KINDS for stage in ledger.STAGES)


class DrillError(ValueError):
    """A bad drill key or typed answer; the message says what was wrong and how to answer."""


@dataclass(frozen=True)
class Graded:
    correct: bool
    expected: float  # in the drill's unit
    given: float  # what was typed, converted to the drill's unit
    note: dict[str, str] | None = None  # {"en", "zh"}: the unit written was wrong (prefix slip, GiB for GB, kind)


_DRILL_QUANTITIES = re.compile(r"\b(model_state_bytes|optim_bytes|comm_volume|reduction)\(")


def card_has_drills(asserts: list[str]) -> bool:
    """``asserts``: each claim's assertion."""
    return any(_DRILL_QUANTITIES.search(a) for a in asserts)


def may_have_drills(source_text: str) -> bool:
    """Whether a card file's text could hold a claim judged by the ZeRO ledger (a cheap test before parsing)."""
    return _DRILL_QUANTITIES.search(source_text) is not None


def ledger_owner(cards: list[tuple[str, list[str]]]) -> str | None:
    """The one card the eight ZeRO ledger drills belong to, of ``(slug, claims' asserts)``: the card with the
    most claims judged by the ZeRO ledger (ties: the first slug), None when no card has one. A drill is
    defined once and attached to one card: on every card that mentions ZeRO it would be the same question
    eight times over."""
    scored = [(-sum(bool(_DRILL_QUANTITIES.search(a)) for a in asserts), slug) for slug, asserts in cards]
    best = min((s for s in scored if s[0] < 0), default=None)
    return best[1] if best is not None else None


def drill_keys(slug: str, asserts: list[str], owns_ledger: bool | None = None) -> list[str]:
    """Every drill a card gets: the ZeRO ledger drills when it is their owner (``owns_ledger``; None, a card
    alone: when its claims are judged by ZeRO checks, see :func:`ledger_owner`) and the starter deck's
    formula drills registered for its slug in ``verify.known.drills`` (each registered for one card)."""
    owns = card_has_drills(asserts) if owns_ledger is None else owns_ledger
    keys = list(DRILL_KEYS) if owns else []
    return keys + [d.key for d in formula_drills.drills_for_card(slug)]


def _formula(params: dict[str, Any]) -> formula_drills.Drill | None:
    """The starter-deck drill behind ``params``, or None for a ZeRO ledger drill."""
    return formula_drills.DRILLS.get(str(params.get("key", "")))


def _inputs(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k != "key"}


def unit(params: dict[str, Any]) -> str:
    d = _formula(params)
    return d.unit if d else "GB"


def answer(params: dict[str, Any]) -> float:
    """The expected answer, in :func:`unit`."""
    d = _formula(params)
    return formula_drills.answer(d.key, _inputs(params)) if d else answer_gb(params)


def _split(key: str) -> tuple[str, ledger.Stage]:
    if key not in DRILL_KEYS:
        raise DrillError(f"unknown drill {key!r}; known: {', '.join(DRILL_KEYS)}")
    kind, stage = key.split("-", 1)
    return kind, stage  # type: ignore[return-value]


def new_params(key: str, seed: int | None = None) -> dict[str, Any]:
    """Fresh inputs for one showing of drill ``key`` (``seed`` makes them reproducible)."""
    if key in formula_drills.DRILLS:
        return {"key": key, **formula_drills.new_params(key, seed)}
    _split(key)
    rng = random.Random(seed)
    return {"key": key, "psi": rng.choice(PSI_CHOICES), "n": rng.choice(N_CHOICES)}


def answer_gb(params: dict[str, Any]) -> float:
    kind, stage = _split(params["key"])
    psi, n = float(params["psi"]), int(params["n"])
    if kind == "memory":
        return ledger.model_state_bytes(stage=stage, psi=psi, n=n) / GB
    return ledger.ring_volume_bytes(stage=stage, psi=psi, n=n) / GB


def _psi_text(psi: float) -> str:
    return f"{psi / 1e9:g}B"


def question(params: dict[str, Any]) -> dict[str, str]:
    """The question in zh and en (Markdown)."""
    d = _formula(params)
    if d is not None:
        return formula_drills.question(d.key, _inputs(params))
    kind, stage = _split(params["key"])
    s, p, n = STAGE_NAMES[stage], _psi_text(params["psi"]), params["n"]
    if kind == "memory":
        return {
            "en": f"$\\Psi$ = {p} parameters, $N$ = {n} GPUs, {s} with mixed-precision Adam "
                  "(bf16 parameters and gradients, $K$ = 12 bytes of optimizer state per parameter): "
                  "model-state memory per GPU in GB (1 GB = $10^9$ bytes)?",
            "zh": f"$\\Psi$ = {p} 参数，$N$ = {n} 张 GPU，{s}，混合精度 Adam（bf16 参数与梯度，每参数 $K$ = 12 "
                  "字节优化器状态）：每张 GPU 的模型状态显存是多少 GB（1 GB = $10^9$ 字节）？",
        }
    return {
        "en": f"$\\Psi$ = {p} parameters, $N$ = {n} GPUs, {s}, bf16 communication, ideal ring collectives: "
              "how many GB does each GPU send per training step (1 GB = $10^9$ bytes)?",
        "zh": f"$\\Psi$ = {p} 参数，$N$ = {n} 张 GPU，{s}，bf16 通信，理想 ring 集合通信："
              "每张 GPU 每个训练步发送多少 GB（1 GB = $10^9$ 字节）？",
    }


# model-state bytes (K = 12 bytes of optimizer state per parameter) and ring bytes sent, per GPU, over Ψ and N;
# tests/items/test_worked_solutions.py parses each back and checks it against verify.known.ledger
_MEMORY_TEX = {
    "ddp": r"2\cdot\Psi + 2\cdot\Psi + K\cdot\Psi",
    "zero1": r"2\cdot\Psi + 2\cdot\Psi + \frac{K\cdot\Psi}{N}",
    "zero2": r"2\cdot\Psi + \frac{2\cdot\Psi}{N} + \frac{K\cdot\Psi}{N}",
    "zero3": r"\frac{2\cdot\Psi}{N} + \frac{2\cdot\Psi}{N} + \frac{K\cdot\Psi}{N}",
}
_COMM_TEX = {
    "ddp": r"2\cdot\frac{N-1}{N}\cdot 2\cdot\Psi",
    "zero1": r"\left(1 + 1\right)\cdot\frac{N-1}{N}\cdot 2\cdot\Psi",
    "zero2": r"\left(1 + 1\right)\cdot\frac{N-1}{N}\cdot 2\cdot\Psi",
    "zero3": r"\left(1 + 1 + 1\right)\cdot\frac{N-1}{N}\cdot 2\cdot\Psi",
}


def worked(params: dict[str, Any]) -> Worked:
    """The formula behind a showing's answer and its symbols' values (ZeRO drills: in bytes)."""
    d = _formula(params)
    if d is not None:
        w = formula_drills.worked(d.key, _inputs(params))
        assert w is not None, f"drill {d.key} has no worked formula"
        return w
    kind, stage = _split(params["key"])
    symbols = {r"\Psi": float(params["psi"]), "N": int(params["n"]), "K": 12}
    return Worked("M" if kind == "memory" else "V", (_MEMORY_TEX if kind == "memory" else _COMM_TEX)[stage],
                  symbols if kind == "memory" else {k: v for k, v in symbols.items() if k != "K"})


def _worked_tex(params: dict[str, Any], value: str, unit: str) -> str:
    """Two display lines: the formula, then the same with this showing's numbers and the result."""
    w = worked(params)
    unit_tex = r"\%" if unit == "%" else rf"\text{{{unit}}}"
    return f"$${w.lhs} = {w.tex}$$\n\n$${w.lhs} = {w.substituted()} = {value}\\ {unit_tex}$$"


def _gb(x: float) -> str:
    return f"{x / GB:,.4g}"


def _formula_solution(d: formula_drills.Drill, params: dict[str, Any]) -> dict[str, str]:
    inputs = _inputs(params)
    value = formula_drills.answer(d.key, inputs)
    given = ", ".join(f"`{k}` = {v}" for k, v in inputs.items())
    lines = _worked_tex(params, tex_number(float(f"{value:.4g}")), d.unit)
    return {
        "en": f"{lines}\n\nInputs: {given}.\n\nAnswer: **{value:,.4g} {d.unit}**, from the formula the card's "
              f"check compares with a measurement (`verify/known/formulas`, drill `{d.key}`); the derivation is on the "
              f"card "
              f"[{d.card}](/cards/{d.card}).",
        "zh": f"{lines}\n\n输入：{given}。\n\n答案：**{value:,.4g} {d.unit}**，由该卡片的检查用来对照实测的同一公式算出"
              f"（`verify/known/formulas`，drill `{d.key}`）；推导见卡片 [{d.card}](/cards/{d.card})。",
    }


def solution(params: dict[str, Any]) -> dict[str, str]:
    """The worked solution in zh and en (Markdown with TeX), every number from ``verify``'s formulas."""
    d = _formula(params)
    if d is not None:
        return _formula_solution(d, params)
    kind, stage = _split(params["key"])
    psi, n = float(params["psi"]), int(params["n"])
    total = answer_gb(params)
    if kind == "memory":
        parts = [("parameters", "参数", ledger.param_bytes(stage=stage, psi=psi, n=n)),
                 ("gradients", "梯度", ledger.grad_bytes(stage=stage, psi=psi, n=n)),
                 ("optimizer states", "优化器状态", ledger.optim_bytes(stage=stage, psi=psi, n=n))]
        src = "ZeRO paper (Rajbhandari et al., SC'20), Figure 1"
    else:
        payload = ledger.comm_payload_elements(stage=stage, psi=psi, n=n)
        parts = [(f"{name} payload", f"{name} 负载", elems * 2) for name, elems in payload.items()]
        src = "ZeRO paper, section 7 (ring all-reduce 2(N−1)/N, reduce-scatter and all-gather (N−1)/N each)"
    total_bytes = total * GB
    formula = _worked_tex(params, tex_number(float(f"{total_bytes:.6g}")), "bytes")
    lines_en = [formula, ""] + [f"- {en}: {_gb(b)} GB" for en, _zh, b in parts]
    lines_zh = [formula.replace(r"\text{bytes}", r"\text{字节}"), ""] + [
        f"- {zh}：{_gb(b)} GB" for _en, zh, b in parts]
    lines_en += ["", f"With $\\Psi$ = {_psi_text(psi)}, $N$ = {n}: **{total:,.4g} GB** per GPU. Source: {src}."]
    lines_zh += ["", f"代入 $\\Psi$ = {_psi_text(psi)}，$N$ = {n}：每张 GPU **{total:,.4g} GB**。出处：{src}。"]
    return {"en": "\n".join(lines_en), "zh": "\n".join(lines_zh)}


def parse_answer(typed: str) -> float:
    """The typed number (``app/items/answers.py``: decimal commas, Chinese forms; asks when it reads two ways)."""
    try:
        return parse_number(typed)
    except AnswerError as exc:
        raise DrillError(str(exc)) from None


def grade(params: dict[str, Any], typed: str) -> Graded:
    """Correct when within 1% (relative) of the formula's value, after converting the unit typed to the
    drill's (:mod:`app.items.unit_table`: the same float factors the handbook's page uses); a unit of another
    kind, or one the table does not know, is wrong, with the feedback naming it."""
    try:
        value, written = number_of(typed)  # (Chinese numerals too: 二十八点零六 吉字节)
    except AnswerError as exc:
        raise DrillError(str(exc)) from None
    expected, drill_unit = answer(params), unit(params)
    read = unit_table.read(value, written, drill_unit)
    ok = read.mismatch is None and math.isclose(read.value, expected, rel_tol=TOLERANCE, abs_tol=1e-12)
    note = None if ok else mismatch_note(read, expected, drill_unit, TOLERANCE)
    return Graded(correct=ok, expected=expected, given=read.value, note=note)

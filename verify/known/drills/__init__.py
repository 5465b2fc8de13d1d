"""Computed drills: fresh numbers per showing, answers from the formulas the cards' claims are judged by.

    python -c "from verify.known.drills import *; k = 'bubble-fraction'; print(answer(k, new_params(k)))"

One module per subject (the subjects of ``verify.known.vocabulary``), each a list of ``Drill`` rows: its card,
its input choices, a question per language, the unit, and an answer that calls one function of
``verify.known.formulas`` — the function the vocabulary's quantities call over symbols, so a drill never asks
for a number the judge did not check (tests/verify/test_one_formula.py mutates each one). Pure Python: the quiz
imports it (no torch).
"""

from __future__ import annotations

import random
from typing import Any

from verify.known.drills.activations import DRILLS as ACTIVATIONS
from verify.known.drills.checkpoints import DRILLS as CHECKPOINTS
from verify.known.drills.collectives import DRILLS as COLLECTIVES
from verify.known.drills.data_parallel import DRILLS as DATA_PARALLEL
from verify.known.drills.model_parallel import DRILLS as MODEL_PARALLEL
from verify.known.drills.numerics import DRILLS as NUMERICS
from verify.known.drills.offload import DRILLS as OFFLOAD
from verify.known.drills.pipeline import DRILLS as PIPELINE
from verify.known.drills.records import Drill, Worked, tex_number
from verify.known.drills.serving import DRILLS as SERVING
from verify.known.drills.transformer import DRILLS as TRANSFORMER

__all__ = ["DRILLS", "Drill", "Worked", "answer", "drills_for_card", "new_params", "question", "tex_number", "worked"]

# the subjects' drills, in the quiz's order
SUBJECTS = (COLLECTIVES, NUMERICS, DATA_PARALLEL, OFFLOAD, ACTIVATIONS, MODEL_PARALLEL, PIPELINE, SERVING, CHECKPOINTS,
            TRANSFORMER)


def _registry() -> dict[str, Drill]:
    out: dict[str, Drill] = {}
    for d in (d for subject in SUBJECTS for d in subject):
        if d.key in out:
            raise ValueError(f"drill {d.key!r} is declared twice")
        out[d.key] = d
    return out


DRILLS: dict[str, Drill] = _registry()


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

"""The bytes of real checkpoint files: ``torch.save`` of a small model after one Adam step, three kinds.

    python -c "from verify.measure.experiments.checkpoint_files import checkpoint_file_bytes as c; print(c())"

A resumable checkpoint holds what training needs to continue: the fp32 weights and Adam's two moments
(``model.state_dict()`` and ``optimizer.state_dict()`` after a step); ``with_weights16`` adds a bf16 copy of the
weights, ``weights16`` is that copy alone. Each is written with ``torch.save`` to memory and its length taken, less
the length of the same file with every tensor emptied (its zip records, alignment and pickle): the bytes of
the tensors in the file, Adam's scalar step counters included (4 bytes a parameter tensor).
"""

from __future__ import annotations

import io
from functools import cache
from typing import Any

import torch
from torch import nn

CKPT_FILE_WIDTH, CKPT_FILE_LAYERS = 256, 2


def _file(obj: Any) -> int:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return len(buf.getvalue())


def _emptied(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.new_empty(0)
    if isinstance(obj, dict):
        return {k: _emptied(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_emptied(v) for v in obj)
    return obj


def _saved(obj: Any) -> int:
    """The file's bytes less those of the same file with every tensor emptied (its zip records and pickle)."""
    return _file(obj) - _file(_emptied(obj))


@cache
def checkpoint_file_bytes(width: int = CKPT_FILE_WIDTH, layers: int = CKPT_FILE_LAYERS) -> dict[str, int]:
    """{"params": Ψ, "resumable": bytes, "with_weights16": bytes, "weights16": bytes} of ``layers`` × Linear(width)."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model(torch.randn(4, width)).sum().backward()
    opt.step()
    resumable = {"model": model.state_dict(), "optimizer": opt.state_dict()}
    weights16 = {name: t.to(torch.bfloat16) for name, t in model.state_dict().items()}
    return {"params": sum(p.numel() for p in model.parameters()), "resumable": _saved(resumable),
            "with_weights16": _saved({**resumable, "weights16": weights16}), "weights16": _saved(weights16)}

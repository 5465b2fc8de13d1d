"""The parameters of a LLaMA-style model built from ``torch.nn`` modules on the meta device, counted.

    python -c "from verify.measure.experiments.llama_modules import llama_param_count as c; print(c(64, 172, 2, 100))"

Each layer: q, k, v and o projections (``nn.Linear(h, h, bias=False)``), the SwiGLU MLP's gate, up and down
projections (width f, no bias) and two ``nn.RMSNorm(h)``; then the token embedding, an untied LM head and a final
RMSNorm. Built on the meta device, so a 7B model costs no memory; ``numel`` of every parameter is summed. No
parameter formula is in it.
"""

from __future__ import annotations

from functools import cache

import torch
from torch import nn

META = torch.device("meta")


class LlamaLayer(nn.Module):
    def __init__(self, h: int, f: int) -> None:
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(h, h, bias=False, device=META) for _ in range(4))
        self.gate, self.up = nn.Linear(h, f, bias=False, device=META), nn.Linear(h, f, bias=False, device=META)
        self.down = nn.Linear(f, h, bias=False, device=META)
        self.attn_norm, self.mlp_norm = nn.RMSNorm(h, device=META), nn.RMSNorm(h, device=META)


class Llama(nn.Module):
    def __init__(self, h: int, f: int, layers: int, vocab: int) -> None:
        super().__init__()
        # given its weight: no init (normal_ on meta costs seconds the first time)
        self.embed = nn.Embedding(vocab, h, _weight=torch.empty(vocab, h, device=META))
        self.layers = nn.ModuleList(LlamaLayer(h, f) for _ in range(layers))
        self.norm = nn.RMSNorm(h, device=META)
        self.head = nn.Linear(h, vocab, bias=False, device=META)  # untied


@cache
def llama_param_count(h: int, f: int, layers: int, vocab: int) -> int:
    return sum(p.numel() for p in Llama(h, f, layers, vocab).parameters())

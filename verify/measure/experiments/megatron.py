"""A Megatron-style tensor-parallel transformer layer and its unsharded reference.

    python -c "from verify.measure.experiments.dist_probe import probe; print(probe(2)['tp'])"

Vocabulary (Shoeybi et al. 2019, §3): ``f`` is identity in forward and all-reduce in backward (a block's
entry); ``g`` is all-reduce in forward and identity in backward (a block's exit). Column-parallel
linear: rank r keeps rows [r·o/t, (r+1)·o/t) of an (out, in) weight; row-parallel linear: columns
[r·i/t, (r+1)·i/t), its bias added once after the all-reduce. Attention is split by heads.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class _CopyToTP(torch.autograd.Function):
    """f: identity forward, all-reduce of the input gradient backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        grad = grad.contiguous().clone()
        dist.all_reduce(grad)
        return grad


class _ReduceFromTP(torch.autograd.Function):
    """g: all-reduce forward, identity backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous().clone()
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return grad


class Layer(nn.Module):
    """Pre-LayerNorm transformer layer (attention + GeLU MLP), unsharded: the reference."""

    def __init__(self, h: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.h, self.heads = h, heads
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.fc1 = nn.Linear(h, ffn)
        self.fc2 = nn.Linear(ffn, h)

    def attention(
        self, x: torch.Tensor, qkv_w: torch.Tensor, qkv_b: torch.Tensor, heads: int
    ) -> torch.Tensor:
        b, s, _ = x.shape
        q, k, v = F.linear(x, qkv_w, qkv_b).chunk(3, dim=-1)
        d = self.h // self.heads
        q, k, v = (t.reshape(b, s, heads, d).transpose(1, 2) for t in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1) @ v
        return att.transpose(1, 2).reshape(b, s, heads * d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.proj(self.attention(self.ln1(x), self.qkv.weight, self.qkv.bias, self.heads))
        out: torch.Tensor = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return out


def _rows(w: torch.Tensor, r: int, t: int) -> torch.Tensor:
    n = w.shape[0] // t
    return w[r * n : (r + 1) * n]


class TPLayer(nn.Module):
    """The same layer split t ways: QKV and fc1 column-parallel, proj and fc2 row-parallel."""

    def __init__(self, ref: Layer, rank: int, t: int) -> None:
        super().__init__()
        self.t = t
        self.attention = ref.attention  # the reference's attention math on this rank's heads
        self.local_heads = ref.heads // t
        self.ln1, self.ln2 = copy.deepcopy(ref.ln1), copy.deepcopy(ref.ln2)  # replicated
        wq, wk, wv = ref.qkv.weight.detach().chunk(3, dim=0)
        bq, bk, bv = ref.qkv.bias.detach().chunk(3, dim=0)
        self.qkv_w = nn.Parameter(torch.cat([_rows(w, rank, t) for w in (wq, wk, wv)]).clone())
        self.qkv_b = nn.Parameter(torch.cat([_rows(b, rank, t) for b in (bq, bk, bv)]).clone())
        self.proj_w = nn.Parameter(_rows(ref.proj.weight.detach().t(), rank, t).t().contiguous())
        self.proj_b = nn.Parameter(ref.proj.bias.detach().clone())
        self.fc1_w = nn.Parameter(_rows(ref.fc1.weight.detach(), rank, t).clone())
        self.fc1_b = nn.Parameter(_rows(ref.fc1.bias.detach(), rank, t).clone())
        self.fc2_w = nn.Parameter(_rows(ref.fc2.weight.detach().t(), rank, t).t().contiguous())
        self.fc2_b = nn.Parameter(ref.fc2.bias.detach().clone())

    def matmul_weights(self) -> list[torch.Tensor]:
        return [self.qkv_w, self.proj_w, self.fc1_w, self.fc2_w]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = _CopyToTP.apply(self.ln1(x))  # type: ignore[no-untyped-call]
        a = self.attention(a, self.qkv_w, self.qkv_b, self.local_heads)
        x = x + _ReduceFromTP.apply(F.linear(a, self.proj_w)) + self.proj_b  # type: ignore[no-untyped-call]
        m = _CopyToTP.apply(self.ln2(x))  # type: ignore[no-untyped-call]
        m = F.gelu(F.linear(m, self.fc1_w, self.fc1_b))
        out: torch.Tensor = x + _ReduceFromTP.apply(F.linear(m, self.fc2_w)) + self.fc2_b  # type: ignore[no-untyped-call]
        return out

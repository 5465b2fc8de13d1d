"""A tiny GPT-style decoder built with torch.nn, measured as it runs: parameters, FLOPs, KV cache, saved bytes.

    python -c "from verify.measure.experiments.decoder import measure; print(measure(64, 4, 2, 2, 96, 16, 2))"

The block follows the layer Korthikanti et al. count (pre-LayerNorm, fused QKV projection, explicit
``softmax(QKᵀ/√d)`` with dropout, output projection, dropout, 4h GELU MLP, dropout) so that every tensor
autograd saves is observable with ``saved_tensors_hooks``; attention uses explicit matmuls, which
``FlopCounterMode`` counts (PyTorch's fused CPU attention kernel is not counted by it). The parameter
count is also read from PyTorch's own ``nn.TransformerEncoderLayer`` (a layer not written here).
Nothing in this file knows a formula: ``verify.known.formulas.transformer`` holds them.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint, set_checkpoint_early_stop
from torch.utils.flop_counter import FlopCounterMode

from verify.measure.meters.memory import saved_activation_bytes, storage_bytes

DROPOUT = 0.1


class Block(nn.Module):
    """One decoder layer with ``a`` query heads and ``g`` key/value heads (g = a: MHA, 1: MQA, else GQA)."""

    def __init__(self, h: int, a: int, g: int) -> None:
        super().__init__()
        self.a, self.g, self.d = a, g, h // a
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv = nn.Linear(h, (a + 2 * g) * self.d)
        self.proj = nn.Linear(h, h)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)
        self.recompute_core = False

    def forward(self, x: torch.Tensor, cache: list[torch.Tensor] | None = None) -> torch.Tensor:
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split([self.a * self.d, self.g * self.d, self.g * self.d], dim=-1)
        q = q.reshape(b, s, self.a, self.d).transpose(1, 2).contiguous()  # a view would keep all of QKV
        k = k.reshape(b, s, self.g, self.d).transpose(1, 2).contiguous()
        v = v.reshape(b, s, self.g, self.d).transpose(1, 2).contiguous()
        if cache is not None:
            cache += [k, v]  # what decoding later tokens reads instead of recomputing
        if self.g < self.a:  # each key/value head serves a/g query heads
            k, v = k.repeat_interleave(self.a // self.g, dim=1), v.repeat_interleave(self.a // self.g, dim=1)
        if self.recompute_core:  # selective recomputation: the core's s × s tensors are recomputed in backward
            y = checkpoint(self.core, q, k, v, use_reentrant=False)
        else:
            y = self.core(q, k, v)
        x = x + self.dropout(self.proj(y.transpose(1, 2).reshape(b, s, h)))
        return x + self.dropout(self.fc2(F.gelu(self.fc1(self.ln2(x)))))

    def core(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """The attention core, softmax(QKᵀ/√d + causal mask) dropped out, times V."""
        s = q.shape[-2]
        causal = torch.full((s, s), float("-inf"), dtype=q.dtype).triu(1)  # added: saves nothing for backward
        att = torch.softmax((q @ k.transpose(-2, -1)) * (1 / math.sqrt(self.d)) + causal, dim=-1)
        return self.dropout(att) @ v

    def dropout(self, x: torch.Tensor) -> torch.Tensor:
        """Dropout with a 1-byte bool mask, the mask GPU kernels keep (autograd saves only the mask).
        PyTorch's CPU dropout keeps its mask in the input's dtype (2 bytes in bf16), which no GPU does."""
        if not self.training:
            return x
        return x * (torch.rand_like(x) >= DROPOUT) * (1 / (1 - DROPOUT))


class Decoder(nn.Module):
    """Token + learned position embeddings, L blocks, a final LayerNorm, an LM head tied to the embedding."""

    def __init__(self, h: int, a: int, g: int, layers: int, vocab: int, ctx: int) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, h), nn.Embedding(ctx, h)
        self.blocks = nn.ModuleList(Block(h, a, g) for _ in range(layers))
        self.ln = nn.LayerNorm(h)
        self.head = nn.Linear(h, vocab, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, ids: torch.Tensor, cache: list[torch.Tensor] | None = None) -> torch.Tensor:
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        for blk in self.blocks:
            x = blk(x, cache)
        out: torch.Tensor = self.head(self.ln(x))
        return out


def _count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())  # tied weights appear once


def _flops(fn: Any) -> int:
    with FlopCounterMode(display=False) as fc:
        fn()
    return int(fc.get_total_flops())


@cache
def measure(h: int, a: int, g: int, layers: int, vocab: int, s: int, b: int) -> dict[str, Any]:
    """Everything one configuration measures (deterministic; cached per process)."""
    torch.manual_seed(0)
    model = Decoder(h, a, a, layers, vocab, s)
    ids = torch.randint(0, vocab, (b, s))
    ref = nn.TransformerEncoderLayer(h, a, dim_feedforward=4 * h, batch_first=True)
    out: dict[str, Any] = {
        "torch_layer_params": _count(ref),
        "torch_layer_parts": {
            "qkv": ref.self_attn.in_proj_weight.numel() + ref.self_attn.in_proj_bias.numel(),
            "attn_out": _count(ref.self_attn.out_proj), "mlp_up": _count(ref.linear1),
            "mlp_down": _count(ref.linear2), "norms": _count(ref.norm1) + _count(ref.norm2),
            "attn_weights": ref.self_attn.in_proj_weight.numel() + ref.self_attn.out_proj.weight.numel(),
            "mlp_weights": ref.linear1.weight.numel() + ref.linear2.weight.numel()},
        "layer_params": _count(model.blocks[0]),
        "params": _count(model),
        "forward_flops": _flops(lambda: model(ids)),
        "train_flops": _flops(lambda: model(ids).float().sum().backward()),
    }
    with set_checkpoint_early_stop(False):  # the textbook recomputation: the whole forward runs again
        out["recompute_flops"] = _flops(lambda: checkpoint(model, ids, use_reentrant=False).sum().backward())
    # saved activations of one layer in bf16 (training mode: dropout masks are saved too)
    blk = Block(h, a, a).to(torch.bfloat16).train()
    x = torch.randn(b, s, h, dtype=torch.bfloat16, requires_grad=True)
    def layer() -> None:
        blk(x)

    out["layer_saved_bytes"] = saved_activation_bytes(layer, exclude=list(blk.parameters()))
    blk.recompute_core = True  # selective recomputation (the attention core checkpointed)
    out["selective_saved_bytes"] = saved_activation_bytes(layer, exclude=list(blk.parameters()))
    blk.recompute_core = False
    out["full_saved_bytes"] = saved_activation_bytes(  # full recomputation: the whole layer checkpointed
        lambda: checkpoint(blk, x, use_reentrant=False), exclude=list(blk.parameters()))
    out["attention_core_saved_bytes"] = _saved_where(blk, x, lambda t: t.dim() >= 2 and tuple(t.shape[-2:]) == (s, s))
    out["layernorm_stats_saved_bytes"] = _saved_where(blk, x, lambda t: t.dim() >= 1 and t.shape[-1] == 1)
    mask = _saved_where(None, x, lambda t: True, lambda: F.dropout(x, DROPOUT, True))
    out["cpu_dropout_mask_bytes"] = mask // x.numel()
    # the KV cache after a prefill of s tokens, bf16, for MHA (g = a), GQA (g) and MQA (1)
    out["kv_cache_bytes"] = {}
    for name, heads in (("mha", a), ("gqa", g), ("mqa", 1)):
        torch.manual_seed(0)
        dec = Decoder(h, a, heads, layers, vocab, s).to(torch.bfloat16).eval()
        kv: list[torch.Tensor] = []
        with torch.no_grad():
            dec(ids, kv)
        out["kv_cache_bytes"][name] = storage_bytes(kv, set())
    return out


def _saved_where(blk: Block | None, x: torch.Tensor, keep: Any, fn: Any = None) -> int:
    """Bytes of the distinct storages autograd saves while the block (or ``fn``) runs on x, for the saved tensors
    ``keep`` selects: s × s (the attention core: softmax output, its dropout mask, the dropped-out matrix, which
    selective recomputation does not keep), last dimension 1 (LayerNorm's mean and rstd)."""
    seen: set[int] = set()
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        st = t.untyped_storage()
        if keep(t) and st.data_ptr() not in seen:
            seen.add(st.data_ptr())
            total += st.nbytes()
        return t

    run = fn if fn is not None else (lambda: blk(x) if blk is not None else None)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return total


LINEAR_REAL_MAX = 2**22  # token × h² multiply-adds run on real CPU tensors; larger shapes on the meta device


@cache
def linear_intensity(tokens: int, h: int) -> dict[str, int]:
    """FLOPs (FlopCounterMode) and bytes moved (input, weight and output tensors) of one bf16 h×h linear; a shape
    too large to multiply here (4,096 tokens at h = 4,096, 10⁹ tokens) runs on the meta device, where
    FlopCounterMode counts the same FLOPs and the tensors have the same sizes."""
    torch.manual_seed(0)
    device = "cpu" if tokens * h * h <= LINEAR_REAL_MAX else "meta"
    x = torch.randn(tokens, h, dtype=torch.bfloat16, device=device)
    w = torch.randn(h, h, dtype=torch.bfloat16, device=device)
    y: list[torch.Tensor] = []
    flops = _flops(lambda: y.append(F.linear(x, w)))
    return {"flops": flops, "bytes": x.nbytes + w.nbytes + y[0].nbytes}

"""Expert parallelism on Gloo ranks: an MoE layer whose dispatch and combine are all-to-alls built from isend/irecv.

    python -c "from verify.measure.experiments.llm_probe import probe; print(probe(4)['moe'])"

E = 2N experts (E/N per rank), T tokens of h features per rank, top-k routing. The router is balanced by design:
slot j of token i goes to expert (i·k + j) mod E, so every expert receives T·k/E slots from every rank. The
exchange counts the bytes it hands to ``isend`` for other ranks (a rank's slots for its own experts stay
local), so what is measured is what an all-to-all moves. Forward and backward run through an autograd function
whose backward is the transposed exchange; output and gradients are compared with a single-process reference
(fp64).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from verify.measure.meters.comm import phase

MOE_SHAPE = {"tokens": 12, "hidden": 8, "top_k": 2}


class Exchange:
    """All-to-all of variable-size chunks on isend/irecv; counts elements sent to other ranks and calls."""

    def __init__(self) -> None:
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.sent_elements = 0
        self.calls: dict[str, int] = {}

    def __call__(self, chunks: list[torch.Tensor], recv_rows: list[int], label: str) -> list[torch.Tensor]:
        from verify.measure.meters.comm import _PHASE

        key = f"{label}/{_PHASE.get()}"
        self.calls[key] = self.calls.get(key, 0) + 1
        width = chunks[0].shape[1:]
        out = [torch.empty((n, *width), dtype=chunks[0].dtype) for n in recv_rows]
        reqs = []
        for peer in range(self.world):
            if peer == self.rank:
                out[peer].copy_(chunks[peer])
                continue
            payload = chunks[peer].contiguous()
            reqs.append(dist.isend(payload, peer))
            reqs.append(dist.irecv(out[peer], peer))
            self.sent_elements += payload.numel()
        for r in reqs:
            if r is not None:
                r.wait()
        return out


class _A2A(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, ex: Exchange, send: list[int], recv: list[int], label: str) -> torch.Tensor:
        ctx.ex, ctx.send, ctx.recv, ctx.label = ex, send, recv, label
        return torch.cat(ex(list(x.split(send)), recv, label))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        back = ctx.ex(list(grad.contiguous().split(ctx.recv)), ctx.send, ctx.label)
        return torch.cat(back), None, None, None, None


def _routing(rank: int, n: int) -> list[tuple[int, int]]:
    """(token, expert) slots of one rank: slot j of token i → expert (i·k + j + rank) mod E."""
    sh, experts = MOE_SHAPE, 2 * n
    return [(i, (i * sh["top_k"] + j + rank) % experts) for i in range(sh["tokens"]) for j in range(sh["top_k"])]


def moe(n: int) -> dict[str, Any]:
    rank, sh = dist.get_rank(), MOE_SHAPE
    experts, per = 2 * n, 2
    torch.manual_seed(0)
    weights = torch.randn(experts, sh["hidden"], sh["hidden"], dtype=torch.float64)
    gates = torch.rand(n, sh["tokens"], sh["top_k"], dtype=torch.float64)
    xs = torch.randn(n, sh["tokens"], sh["hidden"], dtype=torch.float64)
    # reference: every rank's tokens through their experts in one process
    w_ref = weights.clone().requires_grad_()
    x_ref = xs.clone().requires_grad_()
    y_ref = torch.zeros_like(xs)
    for r in range(n):
        for slot, (i, e) in enumerate(_routing(r, n)):
            y_ref[r, i] = y_ref[r, i] + gates[r, i, slot % sh["top_k"]] * (x_ref[r, i] @ w_ref[e])
    y_ref.square().sum().backward()
    # distributed: this rank's experts e with e // per == rank
    w_mine = weights[rank * per:(rank + 1) * per].clone().requires_grad_()
    x = xs[rank].clone().requires_grad_()
    slots = sorted(enumerate(_routing(rank, n)), key=lambda s_: s_[1][1] // per)  # by destination rank
    send = [sum(1 for _, (_, e) in slots if e // per == peer) for peer in range(n)]
    recv_slots = {src: [(i, e) for i, e in _routing(src, n) if e // per == rank] for src in range(n)}
    recv_slots = {src: sorted(v, key=lambda s_: s_[1] // per) for src, v in recv_slots.items()}
    recv = [len(recv_slots[src]) for src in range(n)]
    ex = Exchange()
    with phase("forward"):
        dispatched = _A2A.apply(x[[i for _, (i, _) in slots]], ex, send, recv, "all_to_all")  # type: ignore[no-untyped-call]
        experts_of = [e - rank * per for src in range(n) for _, e in recv_slots[src]]
        out = torch.stack([dispatched[j] @ w_mine[e] for j, e in enumerate(experts_of)])
        back = _A2A.apply(out, ex, recv, send, "all_to_all")  # type: ignore[no-untyped-call]
        gate = torch.stack([gates[rank, i, sl % sh["top_k"]] for sl, (i, _) in slots])
        y = torch.zeros_like(x).index_add(0, torch.tensor([i for _, (i, _) in slots]), back * gate[:, None])
    sent_forward = ex.sent_elements
    with phase("backward"):
        y.square().sum().backward()
    assert x.grad is not None and w_mine.grad is not None and x_ref.grad is not None and w_ref.grad is not None
    return {
        "shape": {**sh, "experts": experts},
        "sent_elements_forward": sent_forward,
        "sent_elements_step": ex.sent_elements,
        "calls": dict(ex.calls),
        "max_abs_diff": max(float((y.detach() - y_ref[rank].detach()).abs().max()),
                            float((x.grad - x_ref.grad[rank]).abs().max()),
                            float((w_mine.grad - w_ref.grad[rank * per:(rank + 1) * per]).abs().max())),
    }

"""Everything the starter checks measure on Gloo ranks, in one launch per world size.

    python -c "from verify.measure.experiments.dist_probe import probe; print(probe(2))"

Per rank: bytes its sockets sent for each collective (``ss`` counters), all-reduce vs reduce-scatter +
all-gather, DDP's bucketed all-reduces, a tensor-parallel layer's collectives and its agreement with
the unsharded layer, and FSDP2's collectives for each ``reshard_after_forward`` mode.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from verify.measure.experiments.calllog import CallLog
from verify.measure.experiments.megatron import Layer, TPLayer
from verify.measure.experiments.sizes import WIRE_ELEMENTS
from verify.measure.meters.comm import phase, warm_up
from verify.measure.meters.wire import sent_bytes

TP_SHAPE = {"b": 2, "s": 4, "h": 16, "heads": 4, "ffn": 64}
DDP_CAPS_MB: tuple[float | None, ...] = (None, 0.5)  # default caps, then 0.5 MiB for every bucket
DDP_LAYERS, DDP_WIDTH = 8, 256


def _collective_ops(n: int, m: int) -> dict[str, Any]:
    src, out = torch.arange(m, dtype=torch.float32), torch.empty(m)
    return {
        "all_reduce": lambda: dist.all_reduce(src.clone()),
        "reduce_scatter": lambda: dist.reduce_scatter_single(torch.empty(m // n), src),
        "all_gather": lambda: dist.all_gather_single(out, src[: m // n].clone()),
        "broadcast": lambda: dist.broadcast(src.clone(), src=0),
        "all_to_all": lambda: dist.all_to_all_single(out, src),
    }


def wire_bytes(n: int) -> dict[str, int | None]:
    """Bytes this rank's sockets sent for one call of each collective on a 1 MiB fp32 payload."""
    out: dict[str, int | None] = {}
    for name, op in _collective_ops(n, WIRE_ELEMENTS).items():
        op()  # connect and allocate once
        dist.barrier()
        before = sent_bytes()
        op()
        dist.barrier()  # every send of the op has left before we read (the barrier adds ~100 bytes)
        after = sent_bytes()
        out[name] = None if before is None or after is None else after - before
    return out


def allreduce_vs_rs_ag(n: int) -> dict[str, Any]:
    """The same rank-dependent tensor through all_reduce and through reduce_scatter + all_gather."""
    rank, m = dist.get_rank(), 12 * n
    x = torch.arange(m, dtype=torch.float64) * (rank + 1) + rank
    with CallLog() as log:
        ar = x.clone()
        dist.all_reduce(ar)
        shard = torch.empty(m // n, dtype=torch.float64)
        dist.reduce_scatter_single(shard, x.clone())
        rs_ag = torch.empty(m, dtype=torch.float64)
        dist.all_gather_single(rs_ag, shard)
    return {
        "max_abs_diff": float((ar - rs_ag).abs().max()),
        "equal": bool(torch.equal(ar, rs_ag)),
        "payload_elements": {r["kind"]: r["bytes"] // 8 for r in log.records},
        "m": m,
    }


def ddp_buckets() -> dict[str, Any]:
    """Per-call all-reduce payloads of DDP's third backward (after the bucket rebuild)."""
    out: dict[str, Any] = {}
    for cap in DDP_CAPS_MB:
        torch.manual_seed(0)
        model = nn.Sequential(*[nn.Linear(DDP_WIDTH, DDP_WIDTH) for _ in range(DDP_LAYERS)])
        kwargs: dict[str, Any] = {} if cap is None else {"bucket_cap_mb": cap}
        ddp = nn.parallel.DistributedDataParallel(model, **kwargs)
        x = torch.randn(4, DDP_WIDTH)
        for _ in range(2):
            ddp(x).sum().backward()
        with CallLog() as log:
            ddp(x).sum().backward()
        out[str(cap)] = {
            "grad_bytes_reverse_order": [
                p.numel() * p.element_size() for p in reversed(list(model.parameters()))
            ],
            "allreduce_bytes": [r["bytes"] for r in log.records if r["kind"] == "all_reduce"],
            "other_collectives": [r["kind"] for r in log.records if r["kind"] != "all_reduce"],
        }
    return out


def _grad(t: torch.Tensor) -> torch.Tensor:
    if t.grad is None:
        raise RuntimeError(f"no gradient reached a tensor of shape {tuple(t.shape)}")
    return t.grad


def tensor_parallel(n: int) -> dict[str, Any]:
    """Run the TP layer and the unsharded layer on the same input; count and compare."""
    rank, sh = dist.get_rank(), TP_SHAPE
    torch.manual_seed(0)
    ref = Layer(sh["h"], sh["heads"], sh["ffn"]).double()
    x = torch.randn(sh["b"], sh["s"], sh["h"], dtype=torch.float64)
    x_ref = x.clone().requires_grad_()
    ref(x_ref).square().sum().backward()
    tp = TPLayer(ref, rank, n)
    x_tp = x.clone().requires_grad_()
    with CallLog() as log:
        with phase("forward"):
            y = tp(x_tp)
        with phase("backward"):
            y.square().sum().backward()
    ref_grad_qkv = torch.cat([w.chunk(n)[rank] for w in _grad(ref.qkv.weight).chunk(3)])
    with torch.no_grad():
        y_ref = ref(x)
    diffs = {
        "output": float((y.detach() - y_ref).abs().max()),
        "input_grad": float((_grad(x_tp) - _grad(x_ref)).abs().max()),
        "qkv_weight_grad": float((_grad(tp.qkv_w) - ref_grad_qkv).abs().max()),
        "fc1_weight_grad": float((_grad(tp.fc1_w) - _grad(ref.fc1.weight).chunk(n)[rank]).abs().max()),
        "fc2_weight_grad": float((_grad(tp.fc2_w) - _grad(ref.fc2.weight).chunk(n, dim=1)[rank]).abs().max()),
        "proj_weight_grad": float(
            (_grad(tp.proj_w) - _grad(ref.proj.weight).chunk(n, dim=1)[rank]).abs().max()
        ),
    }
    return {
        "records": log.records,
        "max_abs_diff": diffs,
        "shape": sh,
        "element_size": 8,
        "matmul_weight_elements": sum(w.numel() for w in tp.matmul_weights()),
        "unsharded_matmul_weight_elements": sum(
            m.weight.numel() for m in (ref.qkv, ref.proj, ref.fc1, ref.fc2)
        ),
    }


class _Net(nn.Module):
    """Two FSDP units (blocks) plus a head that belongs to the root unit."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(16, 16) for _ in range(2)])
        self.head = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for b in self.blocks:
            x = torch.relu(b(x))
        out: torch.Tensor = self.head(x)
        return out


def _local_numel(module: nn.Module) -> int:
    return sum(getattr(p, "to_local", lambda p=p: p)().numel() for p in module.parameters(recurse=False))


def fsdp2(n: int, modes: tuple[bool | int | None, ...]) -> dict[str, Any]:
    """FSDP2 collectives by phase and group, and a block's local parameter elements after forward."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh("cpu", (n,))
    out: dict[str, Any] = {}
    for mode in modes:
        torch.manual_seed(0)
        net = _Net()
        for b in net.blocks:
            fully_shard(b, mesh=mesh, reshard_after_forward=mode)
        fully_shard(net, mesh=mesh, reshard_after_forward=mode)
        x = torch.randn(4, 16)
        net(x).sum().backward()  # warm-up step (lazy init)
        with CallLog() as log:
            with phase("forward"):
                y = net(x)
            held = _local_numel(net.blocks[0])
            with phase("backward"):
                y.sum().backward()
        out[repr(mode)] = {
            "records": log.records,
            "block_held_after_forward": held,
            "block_unsharded": 16 * 16 + 16,
            "units": 3,
        }
    return out


def probe_rank(n: int) -> dict[str, Any]:
    """This rank's probe results (inside an initialised Gloo group of n ranks: its own launch or the sweep's)."""
    return _rank(n)


def _rank(n: int) -> dict[str, Any]:
    result: dict[str, Any] = {"wire": wire_bytes(n), "rs_ag": allreduce_vs_rs_ag(n)}
    if n == 2:
        result["ddp"] = ddp_buckets()
        result["tp"] = tensor_parallel(n)
        result["fsdp2"] = fsdp2(n, (True, False, None))
    if n == 4:
        result["fsdp2"] = fsdp2(n, (True, False, None, 2))  # every mode where k = 2 divides the ranks
    return result


_FROM_SWEEP: dict[int, tuple[dict[str, Any], ...]] = {}


def store(n: int, ranks: list[dict[str, Any]]) -> None:
    """Keep the probe results the sweep's own ranks measured at world size n (no second launch)."""
    _FROM_SWEEP[n] = tuple(ranks)


def forget() -> None:
    """Drop the sweep's probe results (a new run measures again)."""
    _FROM_SWEEP.clear()


def probe_ranks(n: int) -> tuple[dict[str, Any], ...]:
    """Every rank's result at world size n: from the sweep's ranks when it ran at n, else one launch of its own
    (once per process)."""
    if n in _FROM_SWEEP:
        return _FROM_SWEEP[n]
    return _launched(n)


@cache
def _launched(n: int) -> tuple[dict[str, Any], ...]:
    from verify.measure.launch import launch

    warm_up()
    return tuple(launch(_rank, n, args=(n,), timeout_s=120.0))


def probe(n: int) -> dict[str, Any]:
    """Rank 0's result, with the wire bytes of every rank under "wire_by_rank"."""
    ranks = probe_ranks(n)
    return {**ranks[0], "wire_by_rank": [r["wire"] for r in ranks]}

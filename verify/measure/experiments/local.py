"""Single-process measurements: activation checkpointing, mixed-precision state, number formats.

    python -c "from verify.measure.experiments.local import checkpointing; print(checkpointing())"

Memory peaks come from ``verify.measure.meters.memory.cpu_peak_bytes`` (profiler allocation events in time
order); persistent bytes from ``storage_bytes`` (distinct storages); activations saved for backward
from ``torch.autograd.graph.saved_tensors_hooks``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential
from torch.utils.flop_counter import FlopCounterMode

from verify.measure.meters.memory import cpu_peak_bytes, storage_bytes

CKPT_LAYERS, CKPT_WIDTH, CKPT_BATCH = 16, 128, 512  # one saved activation = batch·width·4 bytes
CKPT_SEGMENTS = (None, 2, 4, 8)


def _mlp(layers: int, width: int) -> nn.Sequential:
    """Linear+ReLU pairs: each pair saves one batch×width tensor (ReLU's output, the next Linear's input)."""
    torch.manual_seed(0)
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.ReLU())])


@cache
def checkpointing(layers: int = CKPT_LAYERS) -> dict[str, Any]:
    """Peak bytes of forward+backward, Linear forwards and the FLOPs of forward + backward + recomputation
    (``FlopCounterMode``: the matmuls torch ran, counted in a step of their own), without and with k
    checkpointed segments."""
    model = _mlp(layers, CKPT_WIDTH)
    counter = [0]
    for mod in model:
        if isinstance(mod, nn.Linear):
            mod.register_forward_hook(lambda *_: counter.__setitem__(0, counter[0] + 1))
    x = torch.randn(CKPT_BATCH, CKPT_WIDTH, requires_grad=True)
    for p in model.parameters():  # gradients allocated once, outside the measured window
        p.grad = torch.zeros_like(p)
    x.grad = torch.zeros_like(x)
    out: dict[str, Any] = {"unit_bytes": CKPT_BATCH * CKPT_WIDTH * 4, "layers": layers, "runs": {}}
    for seg in CKPT_SEGMENTS:

        def step(seg: int | None = seg) -> None:
            y = checkpoint_sequential(model, seg, x, use_reentrant=False) if seg else model(x)
            y.sum().backward()

        step()  # warm-up
        counter[0] = 0
        peak = cpu_peak_bytes(step)
        out["runs"][str(seg)] = {"peak_bytes": peak, "linear_forwards": counter[0], "flops": step_flops(step)}
    return out


def step_flops(step: Callable[[], None]) -> int:
    """The FLOPs ``FlopCounterMode`` counts in one call of ``step`` (matmuls of forward, backward and any
    recomputation inside backward)."""
    with FlopCounterMode(display=False) as counted:
        step()
    return int(counted.get_total_flops())


def _state_bytes(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor | None],
    opt: torch.optim.Optimizer,
    extra: Sequence[torch.Tensor] | None = None,
) -> dict[str, int]:
    seen: set[int] = set()
    state = [t for s in opt.state.values() for k, t in s.items() if k != "step"]
    steps = [t for s in opt.state.values() for k, t in s.items() if k == "step"]
    return {
        "param": storage_bytes(params, seen),
        "grad": storage_bytes(grads, seen),
        "master": storage_bytes(extra or [], seen),
        "adam_m_v": storage_bytes(state, seen),
        "adam_step_counters": storage_bytes(steps, seen),
    }


@cache
def mixed_precision_state() -> dict[str, Any]:
    """After one mixed-precision Adam step: bf16 params and grads, fp32 master weights, fp32 m and v."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 256)).to(torch.bfloat16)
    params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_() for p in params]
    opt = torch.optim.Adam(master, lr=1e-3, foreach=False)
    model(torch.randn(8, 256, dtype=torch.bfloat16)).float().square().mean().backward()
    for m, p in zip(master, params, strict=True):
        m.grad = (
            p.grad.float() if p.grad is not None else None
        )  # the update reads the 16-bit gradient in fp32 ...
    opt.step()
    for m, p in zip(master, params, strict=True):
        m.grad = None  # ... and does not keep an fp32 copy of it
        p.data.copy_(m.data)
    psi = sum(p.numel() for p in params)
    return {"psi": psi, "bytes": _state_bytes(params, [p.grad for p in params], opt, master)}


@cache
def fp32_adam_state() -> dict[str, Any]:
    """After one plain fp32 Adam step: fp32 params, grads, m and v."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 256))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
    model(torch.randn(8, 256)).square().mean().backward()
    opt.step()
    params = list(model.parameters())
    return {
        "psi": sum(p.numel() for p in params),
        "bytes": _state_bytes(params, [p.grad for p in params], opt),
    }


def format_limits() -> dict[str, dict[str, float]]:
    """torch.finfo of fp32, fp16, bf16, plus where fp16 overflows and flushes to zero when casting."""
    out: dict[str, dict[str, float]] = {}
    for name, dt in (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)):
        f = torch.finfo(dt)
        sub = float(torch.nextafter(torch.zeros((), dtype=dt), torch.ones((), dtype=dt)))
        out[name] = {
            "max": f.max,
            "smallest_normal": f.smallest_normal,
            "smallest_subnormal": sub,
            "eps": f.eps,
        }
    return out


def loss_scaling(scale: float = 2.0**16) -> dict[str, Any]:
    """Tiny gradients cast to fp16 as they are, and scaled by S before the cast then unscaled in fp32."""
    values = torch.tensor([2.0**-25, 2.0**-26, 1e-8, 3e-9], dtype=torch.float64)
    plain = values.to(torch.float16).to(torch.float64)
    scaled = (values * scale).to(torch.float16).to(torch.float64) / scale
    return {
        "values": values.tolist(),
        "plain_fp16": plain.tolist(),
        "scaled_unscaled": scaled.tolist(),
        "max_rel_error_scaled": float(((scaled - values).abs() / values).max()),
    }


def grad_scaler(steps: int | None = None) -> dict[str, Any]:
    """GradScaler's defaults, and what one overflow and ``growth_interval`` clean steps do to the scale."""
    import warnings

    w = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([w], lr=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a CPU GradScaler may warn about its device on some builds
        scaler = torch.amp.GradScaler("cpu")
    out: dict[str, Any] = {
        "init_scale": scaler.get_scale(),
        "growth_factor": scaler.get_growth_factor(),
        "backoff_factor": scaler.get_backoff_factor(),
        "growth_interval": scaler.get_growth_interval(),
    }
    scaler.scale((w * float("inf")).sum()).backward()  # an overflowing step
    scaler.step(opt)
    scaler.update()
    out["after_overflow"] = scaler.get_scale()
    clean = 0
    limit = steps if steps is not None else out["growth_interval"]
    while clean < limit:
        opt.zero_grad()
        scaler.scale((w * 1.0).sum()).backward()
        scaler.step(opt)
        scaler.update()
        clean += 1
        if clean == limit - 1:
            out["after_interval_minus_one"] = scaler.get_scale()
    out["after_interval"] = scaler.get_scale()
    return out


def bf16_stagnation(weight: float = 1.0, update: float = 1e-3) -> dict[str, float]:
    """weight + update computed in bf16 and in fp32."""
    bf = torch.tensor(weight, dtype=torch.bfloat16) + torch.tensor(update, dtype=torch.bfloat16)
    fp = torch.tensor(weight, dtype=torch.float32) + torch.tensor(update, dtype=torch.float32)
    return {"bf16": float(bf), "fp32": float(fp)}


def _saved_bytes_counter(skip: set[int]) -> tuple[Callable[[torch.Tensor], torch.Tensor], Callable[[], int]]:
    """A pack hook summing distinct storages saved for backward (except ``skip``), and its reader."""
    seen: set[int] = set()
    total = [0]

    def pack(t: torch.Tensor) -> torch.Tensor:
        ptr = t.untyped_storage().data_ptr()
        if ptr not in skip and ptr not in seen:
            seen.add(ptr)
            total[0] += t.untyped_storage().nbytes()
        return t

    return pack, lambda: total[0]


def saved_activation_bytes(batches: tuple[int, ...] = (8, 16, 32)) -> dict[str, Any]:
    """Bytes autograd saves for backward (parameters excluded) and model-state bytes, per batch size."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64), nn.LayerNorm(64))
    param_ptrs = {p.untyped_storage().data_ptr() for p in model.parameters()}
    out: dict[str, Any] = {}
    for b in batches:
        pack, total = _saved_bytes_counter(param_ptrs)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = model(torch.randn(b, 64))
        y.sum().backward()
        out[str(b)] = {
            "saved_bytes": total(),
            "model_state_bytes": storage_bytes([*model.parameters(), *(p.grad for p in model.parameters())]),
        }
        model.zero_grad(set_to_none=False)
    return out

"""A sharded checkpoint written by ``torch.distributed.checkpoint`` (DCP) from FSDP2 ranks: bytes on disk.

    python -c "from verify.measure.experiments.llm_probe import probe; print(probe(2)['dcp'])"

Four Linear(512, 512) layers, fully sharded with FSDP2 (fp32 parameters), one Adam step, then
``dcp.save`` of the model's and the optimizer's sharded state dicts (``get_state_dict``) into a private temp
folder. Measured: each rank's data file (``__<rank>_0.distcp``), the ``.metadata`` file, and whether
``dcp.load`` into a freshly initialised copy gives back the same parameters and Adam moments.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

DCP_LAYERS, DCP_WIDTH = 4, 512  # Ψ = 1,050,624: DCP's per-item framing (~1 KB) stays under 1%


def _model(mesh: Any) -> tuple[nn.Module, torch.optim.Optimizer]:
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(DCP_WIDTH, DCP_WIDTH) for _ in range(DCP_LAYERS)])
    for layer in model:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model, torch.optim.Adam(model.parameters(), lr=1e-2)


def _local(t: Any) -> torch.Tensor:
    local: torch.Tensor = t.to_local() if hasattr(t, "to_local") else t
    return local


def dcp(n: int) -> dict[str, Any]:
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
    from torch.distributed.checkpoint.state_dict_loader import load as dcp_load
    from torch.distributed.checkpoint.state_dict_saver import save as dcp_save
    from torch.distributed.device_mesh import init_device_mesh

    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (n,))
    model, opt = _model(mesh)
    model(torch.randn(8, DCP_WIDTH)).square().mean().backward()
    opt.step()
    folder = tempfile.mkdtemp(prefix="verify-dcp-") if rank == 0 else ""
    box = [folder]
    dist.broadcast_object_list(box, src=0)
    folder = box[0]
    try:
        msd, osd = get_state_dict(model, opt)
        dcp_save({"model": msd, "optim": osd}, checkpoint_id=folder)
        dist.barrier()
        files = {f: os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)}
        # load into a fresh copy whose weights differ, then compare
        model2, opt2 = _model(mesh)
        with torch.no_grad():
            for prm in model2.parameters():
                prm.add_(1.0)
        model2(torch.randn(8, DCP_WIDTH)).square().mean().backward()
        opt2.step()
        msd2, osd2 = get_state_dict(model2, opt2)
        state: dict[str, Any] = {"model": msd2, "optim": osd2}
        dcp_load(state, checkpoint_id=folder)
        set_state_dict(model2, opt2, model_state_dict=state["model"], optim_state_dict=state["optim"])
        diff = max(float((_local(a) - _local(b)).detach().abs().max())
                   for a, b in zip(model.parameters(), model2.parameters(), strict=True))
        for p1, p2 in zip(model.parameters(), model2.parameters(), strict=True):
            s1, s2 = opt.state[p1], opt2.state[p2]
            for key in ("exp_avg", "exp_avg_sq"):
                diff = max(diff, float((_local(s1[key]) - _local(s2[key])).detach().abs().max()))
        dist.barrier()
    finally:
        if rank == 0:
            shutil.rmtree(folder, ignore_errors=True)
    psi = sum(_local(p).numel() for p in model.parameters())  # this rank's shard
    return {"files": files, "psi": DCP_LAYERS * (DCP_WIDTH * DCP_WIDTH + DCP_WIDTH), "psi_local": psi,
            "roundtrip_max_abs_diff": diff}

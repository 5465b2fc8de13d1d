"""Merge the ranks' measurements into runs and put the ledger's predictions next to them; write JSON.

    python -m verify --world-sizes 2,4 --json out/verify.json

A run is one (impl, stage, world size). Memory and wire figures are the maximum over ranks (per-rank
lists kept where ranks differ); payloads are per rank and equal on every rank. Reference runs are
predicted with Ψ_pad (exact); PyTorch's runs with the paper's formulas (bf16, K = 12) so that where they
differ is visible, with a note saying why.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from verify.known import ledger
from verify.measure.model import layer_specs

TORCH_NOTES = {  # where PyTorch's implementation departs from the paper's formulas, and why
    "torch-ddp": (
        "fp32 parameters are the master weights (4Ψ), fp32 gradients all-reduced in fp32 (payload 4Ψ bytes, "
        "twice the paper's fp16), Adam m+v 8Ψ plus a 4-byte step per tensor: 16Ψ total, split 4+4+8 "
        "instead of 2+2+12"),
    "torch-ddp-default": (
        "PyTorch's default gradient_as_bucket_view=False: every .grad is its own tensor and the reducer keeps "
        "a bucket it copies them into before the all-reduce, so gradients take twice their bytes (measured as "
        "retained_bytes − persistent_bytes); same communication as torch-ddp"),
    "torch-zero-redundancy": (
        "keeps DDP's all-reduce of full gradients, then broadcasts every parameter from the rank that owns "
        "it: more communication than DDP, not the same; whole parameters per rank, so optimizer shards "
        "are uneven"),
    "torch-fsdp2-no-reshard": (
        "reshard_after_forward=False keeps unsharded parameters from forward to backward: no second "
        "all-gather (ZeRO-2 traffic), but parameters are sharded between steps (not ZeRO-2's 2Ψ); sharded "
        "fp32 parameters double as master weights, gradient shards fp32; pads dim 0 of every parameter"),
    "torch-fsdp2-reshard": (
        "ZeRO-3 traffic (all-gather in forward and in backward, reduce-scatter); sharded fp32 parameters "
        "double as master weights, gradient shards fp32 (4Ψ/N), m+v 8Ψ/N: 16Ψ/N total split 4+4+8; pads "
        "dim 0 of every parameter"),
}

TRANSIENTS = {  # what the forward/backward peak holds above the persistent bytes, and why
    "ddp": "activations + one layer's fresh gradient (autograd adds it into .grad) + Gloo's buffers",
    "zero1": "activations + one layer's fresh gradient; reduce-scatter and all-gather run in the step",
    "zero2": ("activations + one layer's unsharded gradient until its reduce-scatter + Gloo's full-size "
              "clone of it (the worker thread may free earlier layers' clones late)"),
    "zero3": ("activations + one layer's unsharded parameter (forward) or unsharded gradient + gradient "
              "shard (backward) + Gloo's full-size temporaries; bound: zero3_transient_bound_bytes"),
}


def psi_padded(impl: str, stage: str, dims: list[int], n: int) -> int:
    specs = layer_specs(dims)
    if impl == "reference":
        return sum(s.numel for s in specs) if stage == "ddp" else ledger.padded_numel(
            sizes=[s.numel for s in specs], n=n)
    if impl.startswith("torch-fsdp2"):  # dim 0 of each weight and bias rounded up to N
        return sum(math.ceil(s.d_out / n) * n * (s.d_in + 1) for s in specs)
    return sum(s.numel for s in specs)


def predicted_for(stage: ledger.Stage, psi: int, psi_pad: int | None, n: int, b: int = 2) -> dict[str, Any]:
    kw: dict[str, Any] = {"stage": stage, "psi": psi, "n": n, "psi_pad": psi_pad}
    return {
        "param_bytes": ledger.param_bytes(**kw, bytes_per_element=b),
        "grad_bytes": ledger.grad_bytes(**kw, bytes_per_element=b),
        "optim_bytes": ledger.optim_bytes(**kw),
        "model_state_bytes": ledger.model_state_bytes(**kw, bytes_per_element=b),
        "comm_payload_bytes": ledger.comm_payload_bytes(**kw, bytes_per_element=b),
        "ring_volume_bytes": ledger.ring_volume_bytes(**kw, bytes_per_element=b),
        "gloo_wire_bytes": ledger.gloo_wire_bytes(**kw, bytes_per_element=b),
    }


def build_run(records: list[dict[str, Any]], n: int, dims: list[int], batch_per_rank: int) -> dict[str, Any]:
    """One run from the per-rank records of one variant."""
    r0 = records[0]
    impl, stage = r0["impl"], r0["stage"]
    specs = layer_specs(dims)
    psi = sum(s.numel for s in specs)
    pad = psi_padded(impl, stage, dims, n)

    def top(key: str) -> Any:
        values = [r[key] for r in records]
        return None if any(v is None for v in values) else max(values)

    measured = {k: top(k) for k in ("param_bytes", "grad_bytes", "optim_bytes", "persistent_bytes",
                                    "peak_bytes",
                                    "peak_bytes_floor", "peak_transient_bytes", "peak_transient_bytes_floor",
                                    "wire_bytes_sent")}
    measured.update({
        "comm_payload_bytes": r0["comm_payload_bytes"],
        "comm_payload_elements": r0.get("comm_payload_elements"),
        "comm_payload_bytes_by_phase": r0["comm_payload_bytes_by_phase"],
        "comm_calls": r0["comm_calls"],
        "wire_bytes_sent_per_rank": [r["wire_bytes_sent"] for r in records],
        "optim_bytes_per_rank": [r["optim_bytes"] for r in records],
        "retained_bytes": top("retained_bytes") if all("retained_bytes" in r for r in records) else None,
        "peak_transient_bytes_samples": [r.get("peak_transient_bytes_samples") for r in records],
    })
    if all(r.get("ring") for r in records):  # the ring step ran (reference stages, unless --collectives native)
        measured["ring_sent_bytes_per_rank"] = [r["ring"]["sent_bytes"] for r in records]
        measured["ring_sends_per_rank"] = [r["ring"]["sends"] for r in records]
        measured["ring_wire_bytes_per_rank"] = [r["ring"]["wire_bytes"] for r in records]
    run: dict[str, Any] = {
        "impl": impl, "stage": stage, "world_size": n, "psi": psi, "psi_padded": pad,
        "bytes_per_element": 2 if impl == "reference" else 4,
        "layers": len(specs), "dims": dims, "batch_per_rank": batch_per_rank,
        "step_time_s": top("step_time_s"),
        "steps": r0.get("steps"),
        "predicted": predicted_for(stage, psi, pad if impl == "reference" else None, n),
        "measured": measured,
    }
    if impl == "reference":
        max_layer = max(ledger.padded_numel(sizes=[s.numel], n=n if stage != "ddp" else 1) for s in specs)
        act = ledger.activation_bytes(batch=batch_per_rank, dims=dims)
        run["predicted"]["zero3_transient_bound_bytes"] = ledger.zero3_transient_bound_bytes(
            max_layer_numel_pad=max_layer, n=n, activation_bytes=act)
        if all(r.get("ring") for r in records):  # the ring pass: the bound from measured terms
            rings = [r["ring"] for r in records]
            terms = {"saved_activation_bytes": max(x["saved_activation_bytes"] for x in rings),
                     "largest_layer_bytes": max(x["largest_layer_bytes"] for x in rings),
                     "reduce_scatter_temporary_bytes": max(x["reduce_scatter_temporary_bytes"] for x in rings)}
            run["predicted"]["zero3_ring_bound_terms"] = terms
            run["predicted"]["zero3_ring_bound_bytes"] = ledger.zero3_transient_bound_bytes(
                max_layer_numel_pad=terms["largest_layer_bytes"] // 2, n=n,
                activation_bytes=2 * terms["saved_activation_bytes"],  # saved activations + their gradients
                temporaries_bytes=terms["reduce_scatter_temporary_bytes"])
            measured["ring_peak_transient_bytes"] = max(x["peak_transient_bytes"] for x in rings)
        run["predicted"]["unsharded_model_bytes"] = 2 * pad
        run["transient"] = TRANSIENTS[stage]
    else:
        run["predicted_basis"] = "paper (bf16 parameters and gradients, K = 12, no padding)"
        run["note"] = TORCH_NOTES.get(impl, "")
        run["measured_over_paper"] = _over_paper(run)
    return run


def _over_paper(run: dict[str, Any]) -> dict[str, float]:
    """Measured / paper ratios for a PyTorch run: where it departs from the formulas, and by how much."""
    me, pr = run["measured"], run["predicted"]
    out = {k: round(me[k] / pr[k], 3) for k in ("param_bytes", "grad_bytes", "optim_bytes") if pr[k]}
    out["model_state_bytes"] = round(me["persistent_bytes"] / pr["model_state_bytes"], 3)
    paid = sum(me["comm_payload_bytes"].values())
    out["comm_payload_bytes"] = round(paid / sum(pr["comm_payload_bytes"].values()), 3)
    if me["wire_bytes_sent"] is not None:
        out["wire_bytes_sent_vs_ring"] = round(me["wire_bytes_sent"] / pr["ring_volume_bytes"], 3)
    return out


def build_runs(per_world: dict[int, list[list[dict[str, Any]]]], dims: list[int],
               batch_per_rank: int) -> list[dict[str, Any]]:
    """``per_world[n][rank]`` is the list of variant records rank returned; one run per variant."""
    runs = []
    for n, ranks in sorted(per_world.items()):
        for i in range(len(ranks[0])):
            runs.append(build_run([ranks[r][i] for r in range(len(ranks))], n, dims, batch_per_rank))
    return runs


def write_json(report: dict[str, Any], path: str | Path) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

"""Each reference stage equals single-process Adam on the full batch after k steps."""

from __future__ import annotations

import pytest
import torch

from verify.measure.adam import single_process_reference
from verify.measure.launch import launch
from verify.measure.model import layer_dims
from verify.measure.stages import REFERENCE_STAGES, StageConfig

STEPS = 3


def _train_all(dims: list[int], dtype: torch.dtype) -> dict[str, list[torch.Tensor]]:
    out = {}
    for name, cls in REFERENCE_STAGES.items():
        st = cls(StageConfig(dims=dims, dtype=dtype))
        for _ in range(STEPS):
            st.train_step()
        out[name] = st.full_master()
    return out


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("world", [2, 4])
def test_fp32_stages_match_single_process_adam(world: int) -> None:
    dims = layer_dims(20_000)
    masters = launch(_train_all, world, args=(dims, torch.float32), timeout_s=100)[0]
    expected = single_process_reference(dims, steps=STEPS, world=world, dtype=torch.float32)
    for stage, got in masters.items():
        for layer, (g, e) in enumerate(zip(got, expected, strict=True)):
            torch.testing.assert_close(g, e, msg=lambda m, s=stage, i=layer: f"{s} layer {i}: {m}")  # type: ignore[misc]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_bf16_stages_agree_and_track_single_process_adam() -> None:
    # bf16 gradients summed over ranks round differently from one full-batch bf16 gradient, and Adam's
    # normalised step turns that into up to ±lr per step, so the single-process bound is k·2·lr. The four
    # stages sum the same bf16 gradients with the same collectives and must agree bit for bit.
    world, dims = 2, layer_dims(20_000)
    masters = launch(_train_all, world, args=(dims, torch.bfloat16), timeout_s=100)[0]
    expected = single_process_reference(dims, steps=STEPS, world=world, dtype=torch.bfloat16)
    for stage, got in masters.items():
        for g, d in zip(got, masters["ddp"], strict=True):
            torch.testing.assert_close(g, d, rtol=0, atol=0, msg=lambda m, s=stage: f"{s} vs ddp: {m}")  # type: ignore[misc]
        for g, e in zip(got, expected, strict=True):
            torch.testing.assert_close(g, e, rtol=0, atol=STEPS * 2 * 1e-3)

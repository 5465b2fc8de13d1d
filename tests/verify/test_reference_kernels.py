"""The reference stages' matrix products run without oneDNN (``verify.measure.sweep.run_variant``): its bf16 scratch
depends on the CPU, and the ZeRO-3 peak judged must be the algorithm's own on every machine."""

from __future__ import annotations

import pytest


def test_reference_stages_multiply_without_onednn(monkeypatch: pytest.MonkeyPatch) -> None:
    """oneDNN's bf16 GEMM scratch depends on the CPU (AVX512-BF16 packs operands, AVX2 does not), so the reference
    stages run with it off and their peak is the algorithm's on every CPU; PyTorch's own variants keep it; the
    setting is restored afterwards, even when a variant fails."""
    import torch

    from verify.measure import sweep

    seen: dict[str, bool] = {}

    def record(variant: str, opts: object) -> dict[str, object]:
        seen[variant] = torch._C._get_mkldnn_enabled()
        if variant == "zero2":
            raise RuntimeError("a failing variant")
        return {}
    monkeypatch.setattr(sweep, "_run_variant", record)
    before = torch._C._get_mkldnn_enabled()
    opts = sweep.SweepOptions(dims=[4, 4])
    sweep.run_variant("zero3", opts)
    sweep.run_variant("torch-fsdp2-reshard", opts)
    with pytest.raises(RuntimeError, match="a failing variant"):
        sweep.run_variant("zero2", opts)
    assert seen == {"zero3": False, "torch-fsdp2-reshard": before, "zero2": False}
    assert torch._C._get_mkldnn_enabled() == before

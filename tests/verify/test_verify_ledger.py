"""Known values of the ledger: ZeRO paper Figure 1, padding, ring volumes."""

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.known import ledger


@pytest.mark.parametrize(("stage", "gb"), [("ddp", 120.0), ("zero1", 31.4), ("zero2", 16.6), ("zero3", 1.9)])
def test_figure_1(stage: ledger.Stage, gb: float) -> None:
    # Rajbhandari et al. SC'20, Figure 1: Ψ = 7.5B, N = 64, K = 12.
    got = ledger.model_state_bytes(stage=stage, psi=7.5e9, n=64, k=12) / 1e9
    assert round(got, 1) == gb


def test_figure_1_exact() -> None:
    assert ledger.model_state_bytes(stage="zero1", psi=7.5e9, n=64) == 31_406_250_000
    assert ledger.model_state_bytes(stage="zero2", psi=7.5e9, n=64) == 16_640_625_000
    assert ledger.model_state_bytes(stage="zero3", psi=7.5e9, n=64) == 1_875_000_000


def test_components_and_padding() -> None:
    assert ledger.padded_numel(sizes=[5, 8, 3], n=4) == 8 + 8 + 4
    kw: dict[str, Any] = {"psi": 16.0, "n": 4, "psi_pad": 20.0}
    assert ledger.param_bytes(stage="ddp", **kw) == 32  # replicated, never padded
    assert ledger.param_bytes(stage="zero1", **kw) == 40
    assert ledger.param_bytes(stage="zero3", **kw) == 10
    assert ledger.grad_bytes(stage="zero1", **kw) == 40
    assert ledger.grad_bytes(stage="zero2", **kw) == 10
    assert ledger.optim_bytes(stage="ddp", **kw) == 192
    assert ledger.optim_bytes(stage="zero1", **kw) == 60
    assert ledger.optim_bytes(stage="zero1", psi=16, n=4, k=16) == 64
    assert ledger.param_bytes(stage="ddp", psi=10, n=2, bytes_per_element=4) == 40


def test_sixteen_psi_and_limits() -> None:
    assert ledger.model_state_bytes(stage="ddp", psi=16e9, n=8) == 256e9
    assert ledger.memory_limit_bytes(stage="zero1", psi=1) == 4
    assert ledger.memory_limit_bytes(stage="zero2", psi=1) == 2
    assert ledger.memory_limit_bytes(stage="zero3", psi=1) == 0


def test_payload_and_ring_volume() -> None:
    assert ledger.comm_payload_elements(stage="ddp", psi=10, n=2) == {"all_reduce/backward": 10}
    assert sum(ledger.comm_payload_elements(stage="zero3", psi=10, n=2, psi_pad=12).values()) == 36
    assert ledger.comm_payload_bytes(stage="zero1", psi=10, n=2) == {"reduce_scatter/step": 20,
                                                                     "all_gather/step": 20}
    for stage in ("ddp", "zero1", "zero2"):
        assert ledger.ring_volume_elements(stage=stage, psi=8, n=4) == pytest.approx(12.0)
    assert ledger.ring_volume_elements(stage="zero3", psi=8, n=4) == pytest.approx(18.0)
    assert ledger.ring_volume_limit_elements(stage="zero3", psi=1) == 3
    assert ledger.gloo_wire_bytes(stage="zero1", psi=8, n=4, bytes_per_element=1) == pytest.approx(18.0)


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown stage 'zero4'"):
        ledger.param_bytes(stage="zero4", psi=1, n=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="world size must be >= 1, got 0"):
        ledger.grad_bytes(stage="ddp", psi=1, n=0)


def test_ledger_has_no_torch_import() -> None:
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(ledger.__file__).read_text())
    names = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
             for a in getattr(node, "names", [])}
    mods = {getattr(node, "module", None) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "torch" not in names and "torch" not in mods


@given(sizes=st.lists(st.integers(1, 10_000), min_size=1, max_size=8), n=st.integers(1, 64))
def test_sharded_state_is_sixteen_psi_pad_over_n(sizes: list[int], n: int) -> None:
    psi, pad = sum(sizes), ledger.padded_numel(sizes=sizes, n=n)
    assert pad % n == 0 and psi <= pad < psi + n * len(sizes)
    assert ledger.model_state_bytes(stage="zero3", psi=psi, n=n, psi_pad=pad) * n == 16 * pad
    assert ledger.model_state_bytes(stage="ddp", psi=psi, n=n, psi_pad=pad) == 16 * psi
    ring = {s: ledger.ring_volume_elements(stage=s, psi=psi, n=n, psi_pad=pad) for s in ledger.STAGES}
    assert ring["zero1"] == ring["zero2"] == pytest.approx(ring["ddp"] * pad / psi)
    assert ring["zero3"] == pytest.approx(1.5 * ring["zero1"])

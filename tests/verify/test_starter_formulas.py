"""Known values of the starter deck's formulas, and the simulators against them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verify.known.formulas import checkpointing, collectives, ddp, fsdp, mixed_precision, offload, pipeline
from verify.known.formulas import tensor_parallel as tp
from verify.measure.sim.pipeline import simulate
from verify.measure.sim.ring import ring_allreduce


@pytest.mark.parametrize(("n", "sent"), [(2, 1.0), (4, 1.5), (8, 1.75)])
def test_ring_allreduce_send(n: int, sent: float) -> None:
    assert collectives.ring_send(op="all_reduce", n=n, m=1.0) == sent
    assert collectives.ring_steps(op="all_reduce", n=n) == 2 * (n - 1)
    assert collectives.gloo_send(op="reduce_scatter", n=n, m=1.0) == sent


def test_ring_simulator_sums_and_counts() -> None:
    data = [[float(r * 10 + i) for i in range(12)] for r in range(4)]
    run = ring_allreduce(data)
    assert all(row == [sum(col) for col in zip(*data, strict=True)] for row in run.result)
    assert run.sent == [18, 18, 18, 18]  # 2·3/4·12
    assert run.steps == {"reduce_scatter": 3, "all_gather": 3}


def test_binomial_broadcast() -> None:
    assert collectives.tree_broadcast_root_send(n=4, m=1) == 2
    assert collectives.tree_broadcast_total_send(n=4, m=1) == 3
    assert collectives.tree_broadcast_rounds(n=5) == 3


def test_ddp_buckets_close_at_the_cap() -> None:
    assert ddp.bucket_sizes(grad_bytes=[1, 600_000, 1, 600_000, 1, 600_000], first_cap_bytes=1 << 20) == [
        1_200_002,
        600_001,
    ]
    assert ddp.allreduce_example()["sent_bytes"] == 3.5e9


def test_mixed_precision_ledger() -> None:
    mp = mixed_precision.state_bytes_per_param()
    assert (mp["total"], mp["optimizer"]) == (16, 12)
    assert mixed_precision.fp32_adam_bytes_per_param()["total"] == 16
    assert mixed_precision.megatron_bytes_per_param(param_dtype="bf16", grad_dtype="fp32") == 18
    assert mixed_precision.megatron_bytes_per_param(param_dtype="fp16", grad_dtype="fp16") == 20
    fp16 = mixed_precision.format_limits(fmt="fp16")
    assert (fp16.max, fp16.smallest_normal, fp16.smallest_subnormal, fp16.eps) == (
        65504,
        2**-14,
        2**-24,
        2**-10,
    )
    assert mixed_precision.format_limits(fmt="bf16").max == pytest.approx(3.3895e38, rel=1e-4)
    assert mixed_precision.transformer_layer_activation_bytes(s=2048, b=1, h=4096, a=32) == 956_301_312


def test_offload_arithmetic() -> None:
    assert offload.pcie_bandwidth_gb_s(gen=4) == pytest.approx(31.5077, abs=1e-4)
    assert offload.offload_pcie_bytes(psi=7e9)["total"] == 28e9
    assert offload.breakeven_tokens(flops_per_s=1e14, pcie_bytes_per_s=2.5e10) == pytest.approx(
        2666.667, abs=1e-3
    )
    assert offload.cpu_adam_bytes_per_param() == 28
    assert offload.nvme_optimizer_bytes(psi=1) == 24


def test_checkpointing_schedule() -> None:
    assert [checkpointing.peak_units(layers=16, segments=k) for k in (None, 2, 4, 8)] == [16, 9, 7, 9]
    assert checkpointing.optimal_segments(layers=16) == 4
    assert checkpointing.optimal_segments(layers=64) == 8
    assert [checkpointing.layer_forwards(layers=16, segments=k) for k in (None, 2, 4, 8)] == [16, 24, 28, 30]
    assert checkpointing.compute_overhead(layers=16, segments=4) == 0.25
    with pytest.raises(ValueError, match="must divide"):
        checkpointing.peak_units(layers=16, segments=3)


def test_tensor_parallel_counts() -> None:
    assert tp.allreduces_per_layer() == {"forward": 2, "backward": 2}
    assert tp.weights_per_rank(h=16, t=2) == 12 * 16 * 16 / 2
    assert tp.send_per_layer_step(b=1, s=4096, h=8192, t=8)["sent_per_layer_step"] == 448 * 2**20


def test_fsdp_modes() -> None:
    assert fsdp.per_unit(mode=True, n=4)["ring_volume_per_psi"] == Fraction(9, 4)
    assert fsdp.per_unit(mode=False, n=4)["ring_volume_per_psi"] == Fraction(3, 2)
    assert fsdp.per_unit(mode=None, n=4, root=True)["backward_all_gather"] == []
    assert fsdp.per_unit(mode=2, n=4)["backward_all_gather"] == [2]
    with pytest.raises(ValueError, match="non-trivial divisor"):
        fsdp.per_unit(mode=4, n=4)


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
@pytest.mark.parametrize(("p", "m"), [(4, 8), (4, 32), (2, 1), (8, 3), (5, 13)])
def test_pipeline_simulator_matches_formulas(schedule: str, p: int, m: int) -> None:
    run = simulate(schedule, p=p, m=m, t_f=1.0, t_b=2.0)
    assert run.makespan == pipeline.step_time(p=p, m=m)
    assert run.bubble_fraction == pytest.approx(pipeline.bubble_fraction(p=p, m=m))
    assert run.peak_in_flight == [
        pipeline.peak_in_flight(schedule=schedule, p=p, m=m, stage=s) for s in range(p)
    ]


def test_bubble_known_values() -> None:
    assert pipeline.bubble_fraction(p=4, m=8) == pytest.approx(3 / 11)
    assert pipeline.bubble_over_ideal(p=4, m=8) == 0.375
    assert pipeline.bubble_over_ideal(p=4, m=8, v=2) == 0.1875


@pytest.mark.parametrize(("p", "m", "v"), [(4, 8, 2), (4, 8, 4), (3, 9, 3)])
def test_interleaved_simulator_matches_narayanan(p: int, m: int, v: int) -> None:
    run = simulate("interleaved", p=p, m=m, v=v)
    assert run.bubble_over_ideal == pytest.approx(pipeline.bubble_over_ideal(p=p, m=m, v=v))
    with pytest.raises(ValueError, match="multiple of p"):
        simulate("interleaved", p=p, m=m + 1, v=v)

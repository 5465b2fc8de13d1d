"""ZeRO-Offload and ZeRO-Infinity: what stays on the GPU, what crosses PCIe, and when compute hides it.

    python -c "from verify.known.formulas.offload import pcie_bandwidth_gb_s; print(pcie_bandwidth_gb_s(gen=4))"

Ledger formulas: ``verify.known.formulas.offload``. What stays on the "GPU", what sits on the "CPU" and what
crosses between them is counted on a ZeRO-Offload step run for real on this CPU with two memory pools
(``verify.measure.experiments.offload``: storages of each pool, every cross-pool copy recorded by a dispatch
mode). What the host optimizer reads and writes per step is counted on a real host Adam step
(``verify.measure.experiments.host_optimizer_io``: the kept storages its ops touch; the tensor records of the
``torch.save`` files a swapper loads and writes back). Times and bandwidths stay calculated: nothing here has a
GPU, PCIe or NVMe to time.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sympy as sp

from verify.known.formulas import offload as off
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import F, T
from verify.known.vocabulary.zero import Psi

SYMBOLS = (
    SymbolSpec("r", "PCIe lane rate (GT/s)", integer=False),
    SymbolSpec("B", "PCIe bandwidth (bytes/s)", integer=False),
)
r, B = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {"pcie": ("serial", "overlapped")}  # PCIe directions one after the other, or both


@cache
def _offload_run() -> dict[str, Any]:
    from verify.measure.experiments.offload import offload_step

    return dict(offload_step())


def _offload_configs(_ev: Any) -> list[Config]:
    return [Config("offload step 4×Linear(256)", {"Psi": _offload_run()["psi"]})]


def _counted(read: Any) -> Measure:
    """A count of the offload step, at its own Ψ only (a worked example at other values is arithmetic)."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _offload_run()
        if sp.sympify(cfg.values.get("Psi")) != run["psi"]:
            return None
        return sp.Integer(read(run)), {}
    return measure


def _host_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.host_optimizer_io import cpu_adam_traffic

    return [Config("host Adam step 2×Linear(128)", {"Psi": cpu_adam_traffic()["psi"]})]


def _cpu_adam(_ev: Any, _cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]]:
    """Bytes per parameter of the host's kept tensors one Adam step reads plus those it writes."""
    from verify.measure.experiments.host_optimizer_io import cpu_adam_traffic

    run = cpu_adam_traffic()
    return sp.Rational(run["read"] + run["written"], run["psi"]), {}


def _nvme_swap(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """Tensor bytes the swapper's ``torch.load`` reads and ``torch.save`` writes in a step, at the run's Ψ only."""
    from verify.measure.experiments.host_optimizer_io import nvme_swap_bytes

    run = nvme_swap_bytes()
    if sp.sympify(cfg.values.get("Psi")) != run["psi"]:
        return None
    return sp.Integer(run["read"] + run["written"]), {}


FAMILIES: tuple[Family, ...] = (
    Family("offload", _offload_configs, "a ZeRO-Offload step on two CPU memory pools"),
    Family("host_optimizer", _host_configs, "a host Adam step: kept tensors touched, swap files' tensor bytes"),
)

QUANTITIES = (
    # counted on the two-pool offload step (verify.measure.experiments.offload)
    Quantity("offload_gpu_bytes", (), "bytes", "counted", "model state ZeRO-Offload keeps on the GPU: 2Ψ (counted: "
             "the device pool's storages after a step)", lambda: off.offload_memory_split(psi=Psi)["gpu"], "offload",
             _counted(lambda run: run["device_bytes"])),
    Quantity("offload_cpu_bytes", (), "bytes", "counted",
             "model state ZeRO-Offload keeps on the CPU: 2Ψ gradients + 12Ψ optimizer state (counted: the host pool's "
             "storages)", lambda: off.offload_memory_split(psi=Psi)["cpu"], "offload",
             _counted(lambda run: sum(run["host_bytes"].values()))),
    Quantity("offload_pcie_bytes", (), "bytes", "counted", "PCIe bytes per step: 2Ψ down + 2Ψ up (counted: every "
             "copy between the pools)", lambda: off.offload_pcie_bytes(psi=Psi)["total"], "offload",
             _counted(lambda run: run["copied_down"] + run["copied_up"])),
    Quantity("pcie_x16_bandwidth", (), "GB/s", "calculated",
             "PCIe x16 bandwidth per direction after 128b/130b encoding at r GT/s per lane: 16·r·128/130/8",
             lambda: off.pcie_lane_bandwidth_gb_s(gt_per_s=r, lanes=16)),
    # counted on a host Adam step (verify.measure.experiments.host_optimizer_io)
    Quantity("cpu_adam_bytes_per_param", (), "bytes", "counted",
             "CPU Adam memory traffic per parameter: master, m, v read and written (24) + gradient + parameter "
             "(counted: the kept host tensors one step reads and writes)",
             lambda: off.cpu_adam_bytes_per_param(), "host_optimizer", _cpu_adam),
    Quantity("nvme_optimizer_bytes", (), "bytes", "counted",
             "ZeRO-Infinity NVMe traffic per step with the optimizer state on NVMe: 12Ψ read + 12Ψ written "
             "(counted: the tensor records of the state file loaded and saved back)",
             lambda: off.nvme_optimizer_bytes(psi=Psi), "host_optimizer", _nvme_swap),
    Quantity("offload_compute_time", (), "s", "calculated", "GPU forward + backward time per step: 6TΨ/F",
             lambda: off.compute_seconds(tokens=T, psi=Psi, flops_per_s=F)),
    Quantity("offload_pcie_time", ("pcie",), "s", "calculated", "PCIe time per step: 4Ψ/B in series, 2Ψ/B overlapped",
             lambda mode: off.pcie_step_seconds(psi=Psi, pcie_bytes_per_s=B, overlapped=mode == "overlapped")),
    Quantity("offload_breakeven_tokens", ("pcie",), "tokens", "calculated",
             "tokens per GPU per step at which 6TΨ/F equals the PCIe time 4Ψ/B (2Ψ/B overlapped)",
             lambda mode: off.breakeven_tokens(flops_per_s=F, pcie_bytes_per_s=B, overlapped=mode == "overlapped")),
)

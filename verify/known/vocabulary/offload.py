"""ZeRO-Offload and ZeRO-Infinity: what stays on the GPU, what crosses PCIe, and when compute hides it.

    python -c "from verify.known.formulas.offload import pcie_bandwidth_gb_s; print(pcie_bandwidth_gb_s(gen=4))"

Ledger formulas: ``verify.known.formulas.offload``. All calculated: nothing here has a GPU, PCIe or NVMe to
measure (the offloaded share per rank is judged on the ZeRO sweep's reference stages).
"""

from __future__ import annotations

from verify.known.formulas import offload as off
from verify.known.vocabulary.records import Family, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import F, T
from verify.known.vocabulary.zero import Psi

SYMBOLS = (
    SymbolSpec("r", "PCIe lane rate (GT/s)", integer=False),
    SymbolSpec("B", "PCIe bandwidth (bytes/s)", integer=False),
)
r, B = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {"pcie": ("serial", "overlapped")}  # PCIe directions one after the other, or both
FAMILIES: tuple[Family, ...] = ()

QUANTITIES = (
    Quantity("offload_gpu_bytes", (), "bytes", "calculated", "model state ZeRO-Offload keeps on the GPU: 2Ψ",
             lambda: off.offload_memory_split(psi=Psi)["gpu"]),
    Quantity("offload_cpu_bytes", (), "bytes", "calculated",
             "model state ZeRO-Offload keeps on the CPU: 2Ψ gradients + 12Ψ optimizer state",
             lambda: off.offload_memory_split(psi=Psi)["cpu"]),
    Quantity("offload_pcie_bytes", (), "bytes", "calculated", "PCIe bytes per step: 2Ψ down + 2Ψ up",
             lambda: off.offload_pcie_bytes(psi=Psi)["total"]),
    Quantity("pcie_x16_bandwidth", (), "GB/s", "calculated",
             "PCIe x16 bandwidth per direction after 128b/130b encoding at r GT/s per lane: 16·r·128/130/8",
             lambda: off.pcie_lane_bandwidth_gb_s(gt_per_s=r, lanes=16)),
    Quantity("cpu_adam_bytes_per_param", (), "bytes", "calculated",
             "CPU Adam memory traffic per parameter: master, m, v read and written (24) + gradient + parameter",
             lambda: off.cpu_adam_bytes_per_param()),
    Quantity("nvme_optimizer_bytes", (), "bytes", "calculated",
             "ZeRO-Infinity NVMe traffic per step with the optimizer state on NVMe: 12Ψ read + 12Ψ written",
             lambda: off.nvme_optimizer_bytes(psi=Psi)),
    Quantity("offload_compute_time", (), "s", "calculated", "GPU forward + backward time per step: 6TΨ/F",
             lambda: off.compute_seconds(tokens=T, psi=Psi, flops_per_s=F)),
    Quantity("offload_pcie_time", ("pcie",), "s", "calculated", "PCIe time per step: 4Ψ/B in series, 2Ψ/B overlapped",
             lambda mode: off.pcie_step_seconds(psi=Psi, pcie_bytes_per_s=B, overlapped=mode == "overlapped")),
    Quantity("offload_breakeven_tokens", ("pcie",), "tokens", "calculated",
             "tokens per GPU per step at which 6TΨ/F equals the PCIe time 4Ψ/B (2Ψ/B overlapped)",
             lambda mode: off.breakeven_tokens(flops_per_s=F, pcie_bytes_per_s=B, overlapped=mode == "overlapped")),
)

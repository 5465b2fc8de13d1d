"""ZeRO-Offload / ZeRO-Infinity: where the bytes live, what crosses PCIe, and when compute hides it.

    python -c "from verify.known.formulas.offload import pcie_bandwidth_gb_s; print(pcie_bandwidth_gb_s(gen=4))"

Sources: Ren et al., "ZeRO-Offload: Democratizing Billion-Scale Model Training" (USENIX ATC 2021) §3
(fp16 parameters on GPU; fp16 gradients, fp32 master/m/v and the Adam step on CPU; 4Ψ bytes over
PCIe per step); Rajbhandari et al., "ZeRO-Infinity" (SC'21); PCI-SIG signalling rates (8, 16, 32 GT/s
for Gen3/4/5, 128b/130b encoding). All arithmetic: nothing here can be measured without a GPU. Numbers or
sympy symbols alike.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas import training_flops
from verify.known.formulas.symbolic import maximum

GT_PER_S = {3: 8.0, 4: 16.0, 5: 32.0}
ENCODING = 128 / 130  # Gen3 and later


def pcie_bandwidth_gb_s(*, gen: int, lanes: int = 16) -> float:
    """Theoretical GB/s per direction of PCIe generation ``gen``."""
    return float(pcie_lane_bandwidth_gb_s(gt_per_s=GT_PER_S[gen], lanes=lanes))


def pcie_lane_bandwidth_gb_s(*, gt_per_s: Any, lanes: Any = 16) -> Any:
    """GB/s per direction at r GT/s per lane: lanes × r × 128/130 / 8 bits."""
    return lanes * gt_per_s * ENCODING / 8


def offload_memory_split(*, psi: Any) -> dict[str, Any]:
    """Bytes per place: GPU keeps 16-bit params (2Ψ); CPU 16-bit grads (2Ψ) + fp32 master, m, v (12Ψ)."""
    return {
        "gpu": 2 * psi,
        "cpu_grads": 2 * psi,
        "cpu_optimizer": 12 * psi,
        "cpu": 14 * psi,
        "gpu_without_offload": 16 * psi,
    }


def offload_pcie_bytes(*, psi: Any) -> dict[str, Any]:
    """Per step: 2Ψ of gradients down, 2Ψ of updated 16-bit parameters up, 4Ψ in all."""
    return {"down": 2 * psi, "up": 2 * psi, "total": 4 * psi}


def breakeven_tokens(*, flops_per_s: Any, pcie_bytes_per_s: Any, overlapped: bool = False) -> Any:
    """Tokens per GPU per step at which the compute time 6·T·Ψ/F equals the PCIe time 4Ψ/B (2Ψ/B when both ways
    overlap): both are linear in Ψ, so T = PCIe time over the compute time of one token, at any Ψ."""
    pcie = pcie_step_seconds(psi=1, pcie_bytes_per_s=pcie_bytes_per_s, overlapped=overlapped)
    return pcie / compute_seconds(tokens=1, psi=1, flops_per_s=flops_per_s)


def cpu_adam_bytes_per_param() -> int:
    """Memory traffic of one CPU Adam step per parameter: master, m, v read and written (24),
    16-bit gradient read (2), 16-bit parameter written (2)."""
    return 3 * 4 * 2 + 2 + 2


def nvme_optimizer_bytes(*, psi: Any) -> Any:
    """Optimizer state (12Ψ) read from and written back to NVMe every step: 24Ψ."""
    return 2 * 12 * psi


def compute_seconds(*, tokens: Any, psi: Any, flops_per_s: Any) -> Any:
    """GPU forward + backward time per step: 6 FLOPs per parameter and token (2 forward, 4 backward)."""
    return training_flops.total_train_flops(params=psi, tokens=tokens) / flops_per_s


def pcie_step_seconds(*, psi: Any, pcie_bytes_per_s: Any, overlapped: bool = False) -> Any:
    """PCIe time per step: 2Ψ of 16-bit gradients down and 2Ψ of parameters up, in series (or overlapped: the
    larger direction, 2Ψ)."""
    moved = offload_pcie_bytes(psi=psi)
    return (maximum(moved["down"], moved["up"]) if overlapped else moved["total"]) / pcie_bytes_per_s

"""Drills on ZeRO-Offload: the PCIe time of a step.

    python -c "from verify.known.drills import *; k = 'offload-pcie-seconds'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import offload


def _offload_s(psi_b: float, gen: int) -> float:
    return float(offload.pcie_step_seconds(psi=psi_b * 1e9,
                                           pcie_bytes_per_s=offload.pcie_bandwidth_gb_s(gen=gen) * 1e9))


def _offload_worked(psi_b: float, gen: int) -> Worked:
    # 4Ψ bytes over a x16 link of r GT/s, 128b/130b encoding, 8 bits a byte
    return Worked("T", r"\frac{4\cdot\Psi}{16\cdot r\cdot\frac{128}{130}\cdot\frac{1}{8}}",
                  {r"\Psi": psi_b, "r": offload.GT_PER_S[gen]})


DRILLS = (
    Drill("offload-pcie-seconds", "zero-offload-infinity", {"psi_b": (1.3, 7, 13), "gen": (3, 4, 5)}, _offload_s, "s",
          "ZeRO-Offload, {psi_b}B parameters, PCIe Gen{gen} x16 at its theoretical rate, both directions in "
          "series: seconds of PCIe per step?",
          "ZeRO-Offload，{psi_b}B 参数，PCIe Gen{gen} x16 按理论带宽、上下行串行：每步 PCIe 需要多少秒？",
          worked=_offload_worked),
)

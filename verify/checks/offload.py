"""ZeRO-Offload: the break-even token count (legacy check; the card's other claims are judged by asserts).

python -m verify   # judges the ZeRO-Offload / Infinity card
"""

from __future__ import annotations

from verify.checks.registry import Evidence, Verdict, check
from verify.checks.starter_common import calculated, close
from verify.formulas import offload as F


@check("offload_breakeven")
def offload_breakeven(ev: Evidence) -> Verdict:
    got = {
        "serial": F.breakeven_tokens(flops_per_s=100e12, pcie_bytes_per_s=25e9),
        "overlapped": F.breakeven_tokens(flops_per_s=100e12, pcie_bytes_per_s=25e9, overlapped=True),
    }
    card = {"serial": 2667, "overlapped": 1333}
    return calculated(
        all(close(got[k], v, rel=0.001) for k, v in card.items()),
        card,
        got,
        "6TΨ/F = 4Ψ/B gives T = 2F/(3B) = 2e14/7.5e10 ≈ 2667 tokens (≈ 1333 with 2Ψ/B)",
        "6TΨ/F = 4Ψ/B 得 T = 2F/(3B) = 2e14/7.5e10 ≈ 2667 个 token（2Ψ/B 时约 1333）",
        condition="6Ψ FLOPs per token, F = 100 TFLOP/s achieved, B = 25 GB/s, CPU Adam not counted",
    )

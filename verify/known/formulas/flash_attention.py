"""HBM accesses of attention (Dao et al. 2022): standard Θ(Nd + N²), FlashAttention Θ(N²d²/M).

    python -c "from verify.known.formulas.flash_attention import *; print(standard_accesses(n=2048, d=64))"

In elements, sequence length n, head dim d, SRAM of M elements. Standard attention (the paper's
Algorithm 0) reads Q, K (2nd), writes S (n²), reads S and writes P (2n²), reads P and V (n² + nd) and
writes O (nd): 4nd + 4n². FlashAttention (Algorithm 1) with B_c = M/(4d) and B_r = min(B_c, d):
initialise O, ℓ, m (nd + 2n), read every K_j, V_j once (2nd), and for each of the n/B_c column blocks
read Q, O, ℓ, m and write O, ℓ, m (3nd + 4n): nd + 2n + 2nd + (4dn/M)(3nd + 4n) = Θ(n²d²/M).
"""

from __future__ import annotations

from typing import Any


def standard_accesses(*, n: Any, d: Any) -> Any:
    return 4 * n * d + 4 * n**2


def flash_block_cols(*, d: Any, sram: Any) -> Any:
    """B_c = M / (4d) (the paper's ⌈M/4d⌉ where it divides)."""
    return sram / (4 * d)


def flash_accesses(*, n: Any, d: Any, sram: Any) -> Any:
    passes = n / flash_block_cols(d=d, sram=sram)
    return n * d + 2 * n + 2 * n * d + passes * (3 * n * d + 4 * n)

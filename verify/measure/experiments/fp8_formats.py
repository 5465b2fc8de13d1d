"""FP8 formats measured: torch.finfo of float8_e4m3fn and float8_e5m2, and the rounding error of real casts.

    python -c "from verify.measure.experiments.fp8_formats import measure; print(measure())"

The relative error of casting normally distributed values, restricted to each format's normal range,
to the format and back (round-to-nearest-even), and what values above the format's max become.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch

DTYPES = {"fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


@cache
def measure() -> dict[str, dict[str, Any]]:
    torch.manual_seed(0)
    x = torch.randn(200_000, dtype=torch.float32) * 8
    out: dict[str, dict[str, Any]] = {}
    for name, dt in DTYPES.items():
        f = torch.finfo(dt)
        sub = float(torch.nextafter(torch.zeros((), dtype=torch.float32), torch.ones(()))
                    .to(dt).float()) if False else None
        tiny = torch.tensor(f.smallest_normal, dtype=torch.float32)
        sub = float(_smallest_positive(dt))
        normal = x[(x.abs() >= tiny) & (x.abs() <= f.max)]
        back = normal.to(dt).float()
        out[name] = {
            "max": float(f.max), "smallest_normal": float(f.smallest_normal), "smallest_subnormal": sub,
            "eps": float(f.eps), "max_rel_error": float(((back - normal).abs() / normal.abs()).max()),
            "bits": f.bits,
        }
    return out


def _smallest_positive(dt: torch.dtype) -> float:
    """The smallest positive value of the format: every 8-bit pattern decoded, the least positive kept."""
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dt).float()
    return float(codes[codes > 0].min())

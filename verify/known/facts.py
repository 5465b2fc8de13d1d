"""Facts that code produces, as a table the judges read without torch: number formats from torch.finfo and
their decoded bit patterns.

    OMP_NUM_THREADS=1 python -m verify.known.facts --write     # regenerate verify/known/facts.json (torch)

Per format (fp32, fp16, bf16, FP8 E4M3 and E5M2): total bits, exponent and mantissa bits, largest finite value,
smallest normal and smallest subnormal value (every bit pattern decoded for the 8- and 16-bit formats),
machine epsilon. Nothing in the table is typed in: ``tests/verify/test_facts.py`` computes it again and fails
when the committed file differs.
"""

from __future__ import annotations

import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("facts.json")
FORMATS = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp8_e4m3": "float8_e4m3fn",
           "fp8_e5m2": "float8_e5m2"}


def compute() -> dict[str, dict[str, Any]]:
    """The table, from torch (imported here only)."""
    import torch

    out: dict[str, dict[str, Any]] = {}
    for name, attr in FORMATS.items():
        dt = getattr(torch, attr)
        f = torch.finfo(dt)
        if f.bits <= 16:
            ints = torch.arange(2**f.bits, dtype=torch.int32).to(torch.int16 if f.bits == 16 else torch.uint8)
            values = ints.view(dt).float()
            smallest = float(values[values > 0].min())
        else:
            smallest = float(torch.tensor([1], dtype=torch.int32).view(dt)[0])
        mantissa = round(-math.log2(f.eps))
        out[name] = {"bits": f.bits, "exponent_bits": f.bits - 1 - mantissa, "mantissa_bits": mantissa,
                     "max": float(f.max), "smallest_normal": float(f.smallest_normal), "smallest_subnormal": smallest,
                     "eps": float(f.eps), "bytes": f.bits // 8}
    return out


@cache
def table() -> dict[str, dict[str, Any]]:
    """The committed table (no torch)."""
    data: dict[str, dict[str, Any]] = json.loads(FILE.read_text(encoding="utf-8"))
    return data


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = json.dumps(compute(), indent=1, sort_keys=True) + "\n"
    if args == ["--write"]:
        FILE.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

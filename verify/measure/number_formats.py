"""The number-format facts, produced by torch: what ``verify/known/facts.json`` holds.

    OMP_NUM_THREADS=1 python -m verify.measure.number_formats --write   # regenerate verify/known/facts.json

Per floating-point format (fp32, fp16, bf16, FP8 E4M3 and E5M2): total bits, exponent and mantissa bits, largest
and smallest finite value, smallest normal and smallest subnormal value (every bit pattern decoded for the 8-
and 16-bit formats), machine epsilon; per integer type (int8, uint8, int16, int32, torch.iinfo): bits, bytes,
largest and smallest value, how many values it holds; int4 and uint4 (dtypes torch.iinfo does not take) from their
bit patterns, sign-extended by an arithmetic shift. Nothing is typed in; ``tests/verify/test_facts.py``
computes the table again and fails when the committed file differs. The judges read the file
(``verify.known.facts``) without torch.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from verify.known.facts import FILE

FORMATS = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp8_e4m3": "float8_e4m3fn",
           "fp8_e5m2": "float8_e5m2"}
INTEGERS = {"int8": "int8", "uint8": "uint8", "int16": "int16", "int32": "int32"}
NARROW = {"int4": (4, True), "uint4": (4, False)}  # torch has the dtypes but no iinfo: decoded from bit patterns


def compute() -> dict[str, dict[str, Any]]:
    """The table, from torch."""
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
                     "eps": float(f.eps), "bytes": f.bits // 8, "min": -float(f.max)}
    for name, attr in INTEGERS.items():
        i = torch.iinfo(getattr(torch, attr))
        out[name] = {"bits": i.bits, "bytes": i.bits // 8, "max": i.max, "min": i.min, "levels": i.max - i.min + 1}
    for name, (bits, signed) in NARROW.items():
        patterns = torch.arange(2**bits, dtype=torch.int8)
        if signed:  # two's complement: the pattern's top bit sign-extended by an arithmetic shift
            patterns = (patterns << (8 - bits)) >> (8 - bits)
        lo, hi = int(patterns.min()), int(patterns.max())
        out[name] = {"bits": bits, "max": hi, "min": lo, "levels": hi - lo + 1}
    return out


def text() -> str:
    return json.dumps(compute(), indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--write"]:
        FILE.write_text(text(), encoding="utf-8")
    else:
        print(text(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

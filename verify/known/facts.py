"""Facts that code produced, as a table the judges read without torch: number formats from torch.finfo and
torch.iinfo and their decoded bit patterns (``verify/known/facts.json``).

    OMP_NUM_THREADS=1 python -m verify.measure.number_formats --write     # regenerate the file (torch)

The file is written by ``verify.measure.number_formats`` (nothing in it is typed in); ``tests/verify/test_facts.py``
computes it again and fails when the committed file differs.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("facts.json")


@cache
def table() -> dict[str, dict[str, Any]]:
    """The committed table (no torch)."""
    data: dict[str, dict[str, Any]] = json.loads(FILE.read_text(encoding="utf-8"))
    return data

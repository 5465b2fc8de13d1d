"""Every collective as one record: kind, phase, payload bytes and process-group size.

    with CallLog() as log: ...; log.records  # [{"kind": "all_reduce", "phase": "forward", ...}]

A thin layer over ``verify.measure.meters.comm.CommMeter`` (same payload convention: all-reduce its tensor,
reduce-scatter its input, all-gather its output), keeping each call instead of sums.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from verify.measure.meters.comm import CommMeter


class CallLog(CommMeter):
    """CommMeter that also keeps one record per collective call, with its group size."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict[str, Any]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if func.namespace != "c10d":
            return super().__torch_dispatch__(func, types, args, kwargs)
        calls, payload = dict(self.calls), dict(self.payload_bytes)
        out = super().__torch_dispatch__(func, types, args, kwargs)
        key = next((k for k, v in self.calls.items() if v != calls.get(k, 0)), "")
        group = None
        for a in args:
            if isinstance(a, torch.ScriptObject):
                with contextlib.suppress(Exception):
                    group = torch.distributed.ProcessGroup.unbox(a).size()
        kind, _, ph = key.partition("/")
        self.records.append(
            {
                "kind": kind,
                "phase": ph,
                "group": group,
                "bytes": self.payload_bytes.get(key, 0) - payload.get(key, 0),
            }
        )
        return out

    def count(self, kind: str, phase: str | None = None) -> int:
        return sum(1 for r in self.records if r["kind"] == kind and (phase is None or r["phase"] == phase))

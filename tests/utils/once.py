"""A value computed once per test run and shared by every pytest-xdist worker (a file lock + a JSON file).

The verify sweep (torch.distributed ranks, a minute or more on a busy 2-core machine) is a session fixture;
with ``-n 3 --dist loadfile`` each worker that runs a verify module would build its own. Here the first
worker that asks computes it while holding the lock and writes it as JSON under the run's shared temp
folder (``pytest-of-USER/pytest-N/``, one per run, so nothing leaks from an earlier run); the others wait
on the lock and read the file. Without xdist the value is simply computed.

Only for values the tests read: a test that exercises the computation itself (a mutation, a crash) still
runs it for real.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from filelock import FileLock


def computed_once(name: str, compute: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory,
                  worker_id: str) -> Any:
    """``compute()`` once per run for all workers; the JSON round trip is applied in every worker, so each
    one sees the same value (lists, not tuples) whether it computed it or read it."""
    if worker_id == "master":  # not under xdist
        return json.loads(json.dumps(compute()))
    shared = tmp_path_factory.getbasetemp().parent / f"once-{name}.json"
    with FileLock(f"{shared}.lock"):
        if not shared.is_file():
            text = json.dumps(compute())
            tmp = shared.with_suffix(".tmp")
            tmp.write_text(text)
            tmp.replace(shared)
        return json.loads(shared.read_text())

"""Run ``python -m verify`` as a separate process (the web server never imports torch)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from app.core.config import PROJECT_ROOT


class VerifyRunError(RuntimeError):
    """The verify process failed; the message carries its exit code and the end of its output."""


def verify_command(json_path: Path, *, backend: str | None = None, world_sizes: str | None = None,
                   params: int | None = None, cards_dir: Path | None = None, with_torch: bool = True) -> list[str]:
    cmd = [sys.executable, "-m", "verify", "--json", str(json_path)]
    if not with_torch:
        cmd.append("--no-torch")
    if backend:
        cmd += ["--backend", backend]
    if world_sizes:
        cmd += ["--world-sizes", world_sizes]
    if params:
        cmd += ["--params", str(params)]
    if cards_dir:
        cmd += ["--cards", str(cards_dir)]
    return cmd


def run_verify(*, backend: str | None = None, world_sizes: str | None = None, params: int | None = None,
               cards_dir: Path | None = None, with_torch: bool = True, timeout: float = 900,
               show_output: bool = False) -> dict[str, Any]:
    """Run the sweep and return its JSON report."""
    with tempfile.TemporaryDirectory(prefix="proofdeck-verify-") as tmp:
        out = Path(tmp) / "report.json"
        cmd = verify_command(out, backend=backend, world_sizes=world_sizes, params=params, cards_dir=cards_dir,
                             with_torch=with_torch)
        try:
            proc = subprocess.run(cmd, cwd=PROJECT_ROOT, timeout=timeout, text=True,
                                  stdout=None if show_output else subprocess.PIPE,
                                  stderr=None if show_output else subprocess.STDOUT)
        except subprocess.TimeoutExpired:
            raise VerifyRunError(f"verify did not finish within {timeout:.0f} s") from None
        # exit 1 means the sweep ran and some claim could not be judged (error): those are reported as
        # verdicts in the JSON; 2 and 3 (bad environment, crashed or hung rank) leave no usable report
        if proc.returncode not in (0, 1) or not out.exists():
            tail = (proc.stdout or "")[-2000:]
            raise VerifyRunError(f"verify exited with code {proc.returncode}: {tail.strip()}")
        data: dict[str, Any] = json.loads(out.read_text())
        return data

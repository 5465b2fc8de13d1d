"""Run ``python -m verify`` as a separate process (the web server never imports torch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.core.config import PROJECT_ROOT
from app.core.progress import Progress


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


def _followed(cmd: list[str], env: dict[str, str], echo: Path, timeout: float, progress: Progress) -> int:
    """Run ``cmd`` (its output on ours), a progress tick per line its rank 0 notes; its exit code."""
    from verify.measure.progress import Follower

    follower = Follower(str(echo))
    progress.step("sweep", unit="done")
    deadline = time.monotonic() + timeout
    with subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env) as proc:
        while True:
            try:
                code: int | None = proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
            for line in follower.new_lines():
                progress.advance(note=line)
            if code is not None:
                return code
            if time.monotonic() > deadline:
                proc.kill()
                raise VerifyRunError(f"verify did not finish within {timeout:.0f} s")


def run_verify(*, backend: str | None = None, world_sizes: str | None = None, params: int | None = None,
               cards_dir: Path | None = None, with_torch: bool = True, timeout: float = 900,
               show_output: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    """Run the sweep and return its JSON report. ``show_output``: its progress bars and messages reach the
    terminal; its own claims table does not (``VERIFY_QUIET``: ``proofdeck verify`` prints a summary that fits).
    ``progress`` (with ``show_output``, where the output is a log: the sweep draws bars only on a terminal)
    ticks once per step its rank 0 notes (``verify.measure.progress``, ``VERIFY_PROGRESS_ECHO``)."""
    from verify.measure.progress import ECHO_ENV

    with tempfile.TemporaryDirectory(prefix="proofdeck-verify-") as tmp:
        out = Path(tmp) / "report.json"
        cmd = verify_command(out, backend=backend, world_sizes=world_sizes, params=params, cards_dir=cards_dir,
                             with_torch=with_torch)
        output = ""
        if show_output and progress is not None:
            echo = Path(tmp) / "progress"
            code = _followed(cmd, {**os.environ, "VERIFY_QUIET": "1", ECHO_ENV: str(echo)}, echo, timeout, progress)
        else:
            try:
                proc = subprocess.run(cmd, cwd=PROJECT_ROOT, timeout=timeout, text=True,
                                      env={**os.environ, "VERIFY_QUIET": "1"} if show_output else None,
                                      stdout=None if show_output else subprocess.PIPE,
                                      stderr=None if show_output else subprocess.STDOUT)
            except subprocess.TimeoutExpired:
                raise VerifyRunError(f"verify did not finish within {timeout:.0f} s") from None
            code, output = proc.returncode, proc.stdout or ""
        # exit 1 means the sweep ran and some claim could not be judged (error): those are reported as
        # verdicts in the JSON; 2 and 3 (bad environment, crashed or hung rank) leave no usable report
        if code not in (0, 1) or not out.exists():
            raise VerifyRunError(f"verify exited with code {code}: {output[-2000:].strip()}")
        data: dict[str, Any] = json.loads(out.read_text())
        return data

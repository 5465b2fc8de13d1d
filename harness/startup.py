"""How long ``proofdeck … --help`` takes to start, next to a bare interpreter measured in the same run.

Shared by ``tests/cli/test_help_start.py`` (the ratio's bound) and ``bench/cli_start.py`` (the figures).
Each command's starts alternate with bare ``python -c pass`` starts, so both see the same load; the ratio
is median over median. The children run without ``PYTHONDONTWRITEBYTECODE`` (this machine sets it; a
user's shell does not): with it, every start would compile typer and rich from source again, and the
figure would measure the compiler. A first, unmeasured start of each writes the bytecode caches.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BARE = [sys.executable, "-c", "pass"]


def proofdeck() -> list[str]:
    """The installed ``proofdeck`` script next to this interpreter (what users run), else ``-m``."""
    script = Path(sys.executable).with_name("proofdeck")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "app.cli.main"]


def help_commands() -> list[list[str]]:
    """Every command and group of the CLI, as its ``--help`` argv (the top level first)."""
    import typer.main

    from app.cli.main import cli

    out: list[list[str]] = []

    def walk(cmd: object, path: list[str]) -> None:
        out.append([*path, "--help"])
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            if not getattr(sub, "hidden", False):
                walk(sub, [*path, name])

    walk(typer.main.get_command(cli), [])
    return out


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["COLUMNS"] = "100"
    return env


def _start(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=120)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return took


@dataclass(frozen=True)
class Start:
    args: list[str]
    median_s: float
    bare_s: float  # the bare interpreter's median, measured between this command's starts

    @property
    def ratio(self) -> float:
        return self.median_s / self.bare_s


def measure(args: list[str], starts: int = 5) -> Start:
    """Median start of ``proofdeck ARGS`` and of a bare interpreter, ``starts`` each, alternating."""
    env = _env()
    cmd = [*proofdeck(), *args]
    _start(cmd, env)  # bytecode caches written, files in the page cache
    ours, bare = [], []
    for _ in range(starts):
        bare.append(_start(BARE, env))
        ours.append(_start(cmd, env))
    return Start(args, statistics.median(ours), statistics.median(bare))

"""``make run``'s install, as a new user sees it: a fresh virtual environment, uv fetched by pip, what serving
needs installed by uv; the log says what is installing (with the wheel's size and each package) and how big
the result is, without pip's "running as root" or "Location … is ignored" notices. (The server's part of
the log, the start-up sync's progress and the login link, is tests/core/test_serve.py's.)"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from harness.server import ROOT


@pytest.mark.slow
def test_serving_install_log_says_what_installs_and_nothing_else(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "PIP_ROOT_USER_ACTION"))}
    proc = subprocess.run(["make", "--no-print-directory", f"VENV={venv}", f"{venv}/.installed-serve"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    assert "running as root" not in log.lower() and "is ignored" not in log and "Looking in" not in log, log
    assert re.search(r"^== fetching uv.*\n(.*\n)*.*uv-[\d.]+-.*\.whl \([\d.]+ [kM]B\)", log, re.MULTILINE), log
    assert re.search(r"^Installed \d+ packages", log, re.MULTILINE) and "\n + fastapi==" in log, log
    assert re.search(r"^== installed: .* holds [\d.]+[KMG]", log, re.MULTILINE), log
    assert not re.search(r"^\S*(python3 -m|uv pip install|touch) ", log, re.MULTILINE), "make echoes its commands"
    assert (venv / "bin" / "proofdeck").is_file() and not (venv / "bin" / "pytest").exists()


def test_a_failing_pip_fails_the_fetch(tmp_path: Path) -> None:
    """The notices are filtered out of pip's output, not its exit status (``set -o pipefail``)."""
    venv = tmp_path / ".venv"
    fake = tmp_path / "bin"
    fake.mkdir()
    python = fake / "python3"
    python.write_text('#!/bin/sh\n[ "$2" = venv ] && exec python3 "$@"\n'
                      "echo \"WARNING: Location 'file:///x/' is ignored: it is neither a file nor a directory.\"\n"
                      'echo "ERROR: No matching distribution found for uv"; exit 1\n')
    python.chmod(0o755)
    proc = subprocess.run(["make", "--no-print-directory", f"VENV={venv}", f"PYTHON={python}",
                           f"{venv}/.uv/bin/uv"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "ERROR: No matching distribution found for uv" in proc.stdout and "is ignored" not in proc.stdout

"""The production cost of password hashing (the test process hashes cheaply: tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_production_passwords_use_argon2id_at_rfc_9106_low_memory_cost() -> None:
    code = ("from app.auth.security import hash_password, verify_password; h = hash_password('pw'); "
            "print(h); print(verify_password('pw', h), verify_password('pW', h))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         timeout=120).stdout.split("\n")
    assert out[0].startswith("$argon2id$v=19$m=65536,t=3,p=4$")  # 64 MiB, 3 passes, 4 lanes
    assert out[1] == "True False"

"""Real bytes a rank sent, from the kernel's per-socket TCP counters (``ss -tinpH``).

    ss -tinpH   # what sent_bytes(pid) parses: users:(("python",pid=...)) then bytes_sent:N

Gloo runs over loopback TCP here; the file:// rendezvous sends nothing, so the sockets a rank owns are
its Gloo pairs. Counters include TCP retransmits but not headers. Returns None where ``ss`` is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

_PID = re.compile(r"pid=(\d+)")
_SENT = re.compile(r"bytes_sent:(\d+)")


def parse_ss(text: str, pid: int) -> int:
    """Sum of bytes_sent over sockets owned by ``pid`` in ``ss -tinpH`` output."""
    total = 0
    owner: set[int] = set()
    for line in text.splitlines():
        if line and not line[0].isspace():  # a socket line; its info follows on indented lines
            owner = {int(p) for p in _PID.findall(line)}
            m = _SENT.search(line)  # some ss versions print everything on one line
            if m and pid in owner:
                total += int(m.group(1))
                owner = set()
        else:
            m = _SENT.search(line)
            if m and pid in owner:
                total += int(m.group(1))
    return total


def sent_bytes(pid: int | None = None) -> int | None:
    """Bytes sent so far by the TCP sockets of ``pid`` (default: this process), or None without ss."""
    exe = shutil.which("ss")
    if exe is None:
        return None
    out = subprocess.run([exe, "-tinpH"], capture_output=True, text=True, check=False).stdout
    return parse_ss(out, os.getpid() if pid is None else pid)

"""Real bytes a rank put on the wire, from the kernel's per-socket TCP counters (``TCP_INFO``).

    python -c "from verify.measure.meters.wire import sent_bytes; print(sent_bytes())"

Gloo runs over loopback TCP here; the file:// rendezvous sends nothing, so the TCP sockets a rank holds are
its Gloo pairs. Each is read where it is, in the rank's own file table: every ``/proc/self/fd`` entry that is
a socket gets ``getsockopt(IPPROTO_TCP, TCP_INFO)``, the kernel's ``struct tcp_info`` (the same counters
``ss -tinp`` prints, read without spawning it: ~0.1 ms instead of 60–90 ms a reading). Counted:
``tcpi_bytes_sent − tcpi_bytes_retrans`` per socket, i.e. every byte of the stream sent once, headers not
included. Retransmits are left out because they depend on the machine, not on the collective: on a busy
machine the receiving rank can be descheduled long enough for the sender's tail-loss probe or retransmission
timer to fire even on loopback, and the kernel sends the tail of the stream again (measured: 96 B to 36 KB
per step on a 2-core machine at load 8, i.e. up to +4 % of a step's traffic; with retransmits removed every
run gives the same count to the byte). Returns None where the kernel has no such counters (``tcp_info``
shorter than ``tcpi_bytes_retrans``: Linux before 4.19, or no ``/proc``): claims that need them are then
``unverifiable``. ``ss_sent_bytes(pid)`` reads another process's sockets through ``ss`` (iproute2): the tests
cross-check the two readings.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess

# struct tcp_info (linux/tcp.h): __u64 tcpi_bytes_sent at byte 200, tcpi_bytes_retrans at 208 (since 4.19)
_BYTES_SENT_AT = 200
_TCP_INFO_LEN = 232
_FD_DIR = "/proc/self/fd"
NO_COUNTERS = ("no socket counters: this kernel's TCP_INFO has no tcpi_bytes_sent (Linux 4.19 or later has it) "
               "or /proc is not mounted; run on such a machine to measure wire bytes")


def _socket_counters(fd: int) -> tuple[int, int] | None:
    """(bytes_sent, bytes_retrans) of the TCP socket at ``fd``; None when it is not a TCP socket or has no
    such counters. Raises ``LookupError`` when the kernel's ``tcp_info`` is too short to hold them."""
    try:
        if not os.readlink(f"{_FD_DIR}/{fd}").startswith("socket:"):
            return None
    except OSError:  # closed meanwhile (a backend thread)
        return None
    try:
        s = socket.socket(fileno=fd)  # wraps the descriptor; detached below, never closed here
    except OSError:
        return None
    try:
        if s.family not in (socket.AF_INET, socket.AF_INET6) or s.type != socket.SOCK_STREAM:
            return None
        info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    except OSError:
        return None
    finally:
        s.detach()
    if len(info) < _BYTES_SENT_AT + 16:
        raise LookupError(f"tcp_info is {len(info)} bytes: no tcpi_bytes_sent (Linux < 4.19)")
    sent, retrans = struct.unpack_from("=QQ", info, _BYTES_SENT_AT)
    return sent, retrans


def sent_bytes() -> int | None:
    """Bytes sent once so far by this process's TCP sockets, or None without per-socket counters."""
    try:
        fds = [int(name) for name in os.listdir(_FD_DIR)]
    except OSError:
        return None
    total = 0
    try:
        for fd in fds:
            counters = _socket_counters(fd)
            if counters is not None:
                total += counters[0] - counters[1]
    except LookupError:
        return None
    return total


_PID = re.compile(r"pid=(\d+)")
_SENT = re.compile(r"\bbytes_sent:(\d+)")
_RETRANS = re.compile(r"\bbytes_retrans:(\d+)")


def _unique_bytes(info: str) -> int:
    sent = _SENT.search(info)
    if sent is None:
        return 0
    retrans = _RETRANS.search(info)
    return int(sent.group(1)) - (int(retrans.group(1)) if retrans else 0)


def parse_ss(text: str, pid: int) -> int:
    """Sum of bytes_sent − bytes_retrans over sockets owned by ``pid`` in ``ss -tinpH`` output."""
    total = 0
    owner: set[int] = set()
    for line in text.splitlines():
        if line and not line[0].isspace():  # a socket line; its info follows on indented lines
            owner = {int(p) for p in _PID.findall(line)}
            if pid in owner and _SENT.search(line):  # some ss versions print everything on one line
                total += _unique_bytes(line)
                owner = set()
        elif pid in owner:
            total += _unique_bytes(line)
    return total


def ss_sent_bytes(pid: int) -> int | None:
    """The same count for any process, from ``ss -tinpH`` (None where ``ss`` is missing)."""
    exe = shutil.which("ss")
    if exe is None:
        return None
    out = subprocess.run([exe, "-tinpH"], capture_output=True, text=True, check=False).stdout
    return parse_ss(out, pid)

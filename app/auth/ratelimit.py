"""Slow down password and token guessing on ``/login``: after N failures, answer 429 for a while.

Failures are counted per key, ``(client address, username)`` for the password form and
``(client address, "")`` for login links, in a sliding window: at ``max_failures`` failures within
``window_s`` seconds the key is locked until its oldest failure leaves the window, and the caller
gets the seconds to wait (``Retry-After``). A success clears only its own key, so one user logging in
never unlocks an attacker's guesses at another. Nothing else is slowed: other users and other
addresses keep logging in.

The store is in process memory: each uvicorn worker counts on its own (N workers allow N times the
attempts), and a restart forgets. It is bounded (``max_keys``): a flood of distinct keys evicts the
oldest, and a failure only ever adds one timestamp. The clock is injectable so tests need no sleeps.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

Key = tuple[str, str]


@dataclass
class LoginLimiter:
    """Sliding-window failure counter per key; thread-safe (routes run in a thread pool)."""

    max_failures: int = 5
    window_s: float = 15 * 60.0
    max_keys: int = 10_000
    clock: Callable[[], float] = time.monotonic
    _failures: dict[Key, deque[float]] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_failures < 1 or self.window_s <= 0:
            raise ValueError(f"max_failures must be >= 1 and window_s > 0; got {self.max_failures}, {self.window_s}")

    def _recent(self, key: Key, now: float) -> deque[float] | None:
        times = self._failures.get(key)
        if times is None:
            return None
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._failures[key]
            return None
        return times

    def retry_after(self, key: Key) -> int | None:
        """Whole seconds to wait before ``key`` may try again, or None when it may try now."""
        with self._lock:
            now = self.clock()
            times = self._recent(key, now)
            if times is None or len(times) < self.max_failures:
                return None
            return max(1, math.ceil(times[-self.max_failures] + self.window_s - now))

    def failed(self, key: Key) -> None:
        """Record one failed attempt for ``key``."""
        with self._lock:
            now = self.clock()
            times = self._recent(key, now)
            if times is None:
                if len(self._failures) >= self.max_keys:
                    self._failures.pop(next(iter(self._failures)))  # the key that failed first
                times = self._failures[key] = deque()
            times.append(now)
            while len(times) > self.max_failures:
                times.popleft()  # only the last max_failures decide the lockout

    def succeeded(self, key: Key) -> None:
        """A good login clears its own key (only)."""
        with self._lock:
            self._failures.pop(key, None)

    def __len__(self) -> int:
        return len(self._failures)

"""The login limiter on its own: a fake clock, no sleeps."""

from __future__ import annotations

import pytest

from app.auth.ratelimit import LoginLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_locks_after_max_failures_and_says_how_long(clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=3, window_s=60, clock=clock)
    key = ("10.0.0.1", "alice")
    for _ in range(2):
        limiter.failed(key)
        clock.now += 1
    assert limiter.retry_after(key) is None  # two failures: still free to try
    limiter.failed(key)  # third failure at t=1002; the first was at t=1000
    assert limiter.retry_after(key) == 58  # until the first failure leaves the 60 s window
    clock.now += 57.5
    assert limiter.retry_after(key) == 1  # rounded up, never 0
    clock.now += 0.5
    assert limiter.retry_after(key) is None  # the window slid past the first failure


def test_sliding_window_forgets_old_failures(clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=2, window_s=10, clock=clock)
    key = ("10.0.0.1", "alice")
    limiter.failed(key)
    clock.now += 11
    limiter.failed(key)
    assert limiter.retry_after(key) is None  # the first one is too old to count
    limiter.failed(key)
    assert limiter.retry_after(key) == 10


def test_keys_are_independent_and_success_clears_only_its_own(clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=2, window_s=60, clock=clock)
    attacker_on_bob = ("10.6.6.6", "bob")
    alice = ("10.0.0.1", "alice")
    limiter.failed(attacker_on_bob)
    limiter.failed(attacker_on_bob)
    assert limiter.retry_after(attacker_on_bob) == 60
    assert limiter.retry_after(("10.6.6.6", "carol")) is None  # another username from the same address
    assert limiter.retry_after(("10.0.0.2", "bob")) is None  # the same username from another address
    limiter.failed(alice)
    limiter.succeeded(alice)  # alice logs in: her counter is cleared ...
    assert limiter.retry_after(attacker_on_bob) == 60  # ... the attacker's is not
    limiter.failed(alice)
    assert limiter.retry_after(alice) is None  # counted from zero again


def test_memory_is_bounded(clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=3, window_s=60, max_keys=100, clock=clock)
    for i in range(1000):
        for _ in range(5):
            limiter.failed((f"10.0.{i // 256}.{i % 256}", "admin"))
    assert len(limiter) == 100
    assert all(len(times) == 3 for times in limiter._failures.values())  # only the last max_failures kept
    assert limiter.retry_after(("10.0.3.231", "admin")) == 60  # the newest keys are kept (i = 999)
    assert limiter.retry_after(("10.0.0.0", "admin")) is None  # the oldest were evicted


def test_expired_keys_are_dropped(clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=3, window_s=60, clock=clock)
    limiter.failed(("10.0.0.1", "alice"))
    clock.now += 61
    assert limiter.retry_after(("10.0.0.1", "alice")) is None
    assert len(limiter) == 0


@pytest.mark.parametrize(("max_failures", "window_s"), [(0, 60.0), (3, 0.0)])
def test_bad_configuration_is_refused(max_failures: int, window_s: float) -> None:
    with pytest.raises(ValueError, match="max_failures must be >= 1 and window_s > 0"):
        LoginLimiter(max_failures=max_failures, window_s=window_s)

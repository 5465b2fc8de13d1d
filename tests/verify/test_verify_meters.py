"""Measured bytes equal the ledger exactly where the ledger is exact; meters' own behaviour."""

from __future__ import annotations

import functools
import os
import socket
import threading
from typing import Any

import pytest
import torch

from verify.known import ledger
from verify.measure.meters import memory, wire
from verify.measure.meters.comm import CommMeter, phase

pytestmark = pytest.mark.timeout(900)  # a hang bound: the first test waits for the shared sweep (>300 s at load ~20)


def _ref(ref_runs: list[dict[str, Any]], stage: str, n: int) -> dict[str, Any]:
    return next(r for r in ref_runs if r["stage"] == stage and r["world_size"] == n)


@pytest.mark.slow
def test_psi_is_odd_and_needs_padding(ref_runs: list[dict[str, Any]]) -> None:
    for n in (2, 4):
        run = _ref(ref_runs, "zero1", n)
        assert run["psi"] % 2 == 1 and run["psi_padded"] > run["psi"]


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("stage", ledger.STAGES)
def test_persistent_bytes_equal_ledger(ref_runs: list[dict[str, Any]], stage: str, n: int) -> None:
    run = _ref(ref_runs, stage, n)
    pad = None if stage == "ddp" else run["psi_padded"]
    kw: dict[str, Any] = {"stage": stage, "psi": run["psi"], "n": n, "psi_pad": pad}
    me = run["measured"]
    assert me["param_bytes"] == ledger.param_bytes(**kw)
    assert me["grad_bytes"] == ledger.grad_bytes(**kw)
    assert me["optim_bytes"] == ledger.optim_bytes(**kw)
    assert me["optim_bytes_per_rank"] == [me["optim_bytes"]] * n  # even shards on every rank


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("stage", ledger.STAGES)
def test_payload_bytes_equal_ledger(ref_runs: list[dict[str, Any]], stage: str, n: int) -> None:
    run = _ref(ref_runs, stage, n)
    pad = None if stage == "ddp" else run["psi_padded"]
    expected = ledger.comm_payload_bytes(stage=stage, psi=run["psi"], n=n, psi_pad=pad)  # type: ignore[arg-type]
    assert run["measured"]["comm_payload_bytes_by_phase"] == expected


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4])
def test_zero3_peak_within_transient_bound(ref_runs: list[dict[str, Any]], n: int) -> None:
    """The ring pass's peak, the one claims judge (no backend thread holds a tensor), within its bound and
    never the whole unsharded model. The native pass's peak is shown, not asserted: Gloo frees its
    reduce-scatter clones when its threads get to it, so two to six 71,824-byte layers were live at that
    peak in runs of one commit (253,532 to 469,780 B at N = 4 against a bound of 343,636 B; alone on a quiet
    machine it was over the bound twice in two runs)."""
    run = _ref(ref_runs, "zero3", n)
    peak = run["measured"]["ring_peak_transient_bytes"]
    assert peak <= run["predicted"]["zero3_ring_bound_bytes"]
    assert peak < run["predicted"]["unsharded_model_bytes"]


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("stage", ledger.STAGES)
def test_gloo_wire_bytes_match_backend_model(ref_runs: list[dict[str, Any]], stage: str, n: int) -> None:
    # Gloo's reduce-scatter is a full all-reduce on the wire; its small-message algorithms, the barrier
    # and protocol framing come on top of the ring model: measured +0.1 % (DDP, N = 2) to +2.0 % (N = 4),
    # the same to the byte in every run (the meter leaves out TCP retransmits, which a busy machine adds:
    # up to +4 % before). So: never below the model, at most 3 % above it.
    run = _ref(ref_runs, stage, n)
    sent = run["measured"]["wire_bytes_sent"]
    if sent is None:
        pytest.skip("ss is not installed")
    model = run["predicted"]["gloo_wire_bytes"]
    assert model <= sent <= 1.03 * model


@pytest.mark.slow
def test_comm_meter_sees_cpp_collectives_of_pytorch_ddp(report: dict[str, Any]) -> None:
    ddp = next(r for r in report["runs"] if r["impl"] == "torch-ddp" and r["world_size"] == 2)
    assert ddp["measured"]["comm_payload_bytes"] == {"all_reduce": 4 * ddp["psi"]}  # fp32 gradients


def test_storage_bytes_dedupes_views() -> None:
    flat = torch.zeros(100)
    assert memory.storage_bytes([flat, flat[:10], flat[50:].view(5, 10), None]) == 400
    seen: set[int] = set()
    assert memory.storage_bytes([flat], seen) == 400 and memory.storage_bytes([flat[1:]], seen) == 0


def test_cpu_peak_bytes_counts_freed_temporaries() -> None:
    def work() -> None:
        a = torch.empty(1_000_000)  # 4 MB
        b = torch.empty(500_000)  # 2 MB
        del a, b

    assert memory.cpu_peak_bytes(work) == 6_000_000


def test_a_free_from_before_the_window_does_not_lower_the_peak() -> None:
    """The peak is what the call allocates on top of what it found: releasing an older 4 MB tensor first
    must not hide the 2 MB the call then needs (the running sum would read 0)."""
    old = [torch.empty(1_000_000)]

    def work() -> None:
        old.clear()
        b = torch.empty(500_000)
        del b

    assert memory.cpu_peak_bytes(work) == 2_000_000


def _allocate_block(box: list[torch.Tensor]) -> None:
    box.append(torch.empty(4_000, dtype=torch.uint8))


def _phantom_of_4000_bytes(attempts: int = 20) -> list[torch.Tensor]:
    """A 1,000-byte tensor at the address of a 4,000-byte block allocated while profiling and freed on
    another thread. Whether malloc hands that address back depends on what the process allocated before
    (one attempt in about 30 misses in a loop, and one CI worker missed once): each attempt is a fresh
    block, and the test fails only if none of them can be set up."""
    for _ in range(attempts):
        box: list[torch.Tensor] = []
        memory.cpu_peak_bytes(functools.partial(_allocate_block, box))
        address = box[0].data_ptr()
        freer = threading.Thread(target=box.clear)
        freer.start()
        freer.join()
        held = [torch.empty(1_000, dtype=torch.uint8) for _ in range(200)]
        reused = [t for t in held if t.data_ptr() == address]
        del held
        if reused:
            return reused
    raise AssertionError(f"malloc reused no address in {attempts} attempts: the phantom cannot be set up")


def test_a_phantom_free_does_not_lower_the_peak() -> None:
    """A block allocated while profiling and freed on an unprofiled thread (as Gloo's threads do) stays in
    the CPU allocator's size table; when malloc gives its address to an unprofiled 1,000-byte allocation,
    the profiler reports that block's free as −4,000 B. The meter must drop it, not subtract it."""
    freed = _phantom_of_4000_bytes()

    def work() -> None:
        freed.clear()  # the profiler reports −4,000 B here
        b = torch.empty(3_000, dtype=torch.uint8)
        del b

    events = memory._cpu_memory_events(work)
    assert [size for _, size, _ in events] == [-4_000, 3_000, -3_000]  # the phantom, as the profiler reports it
    running = [0]
    for size in memory.window_sizes(events):
        running.append(running[-1] + size)
    assert max(running) == 3_000


def test_peak_meter_choice() -> None:
    assert memory.peak_meter_for("cpu") is memory.cpu_peak_bytes
    assert memory.peak_meter_for("cuda") is memory.cuda_peak_bytes
    assert memory.peak_meter_for("cuda:3") is memory.cuda_peak_bytes
    with pytest.raises(ValueError, match="no peak-memory meter for device 'mps'"):
        memory.peak_meter_for("mps")


def test_parse_ss_sums_sockets_of_one_pid() -> None:
    text = (
        'ESTAB 0 0 127.0.0.1:1 127.0.0.1:2 users:(("python",pid=42,fd=5))\n'
        "\t cubic bytes_sent:1000 bytes_acked:1000\n"
        'ESTAB 0 0 127.0.0.1:3 127.0.0.1:4 users:(("python",pid=43,fd=6))\n'
        "\t cubic bytes_sent:7 bytes_acked:7\n"
        'ESTAB 0 0 127.0.0.1:5 127.0.0.1:6 users:(("python",pid=42,fd=7)) bytes_sent:24\n'
        'ESTAB 0 0 127.0.0.1:7 127.0.0.1:8 users:(("python",pid=42,fd=8))\n'
        "\t cubic bytes_sent:65600 bytes_retrans:65536 bytes_acked:64\n"  # a retransmitted tail counts once
    )
    assert wire.parse_ss(text, 42) == 1088
    assert wire.parse_ss(text, 43) == 7
    assert wire.parse_ss(text, 44) == 0


def _loopback_pair() -> tuple[socket.socket, socket.socket, socket.socket]:
    srv = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(srv.getsockname())
    peer, _ = srv.accept()
    return srv, client, peer


def test_socket_counters_count_each_byte_this_process_sends_once() -> None:
    """TCP_INFO read from this process's own descriptors: every byte sent, whichever socket sent it; a byte
    received is not counted; ``ss`` (where installed) reads the same kernel counters from outside."""
    srv, client, peer = _loopback_pair()
    try:
        before = wire.sent_bytes()
        ss_before = wire.ss_sent_bytes(os.getpid())
        client.sendall(b"x" * 100_000)
        got = 0
        while got < 100_000:
            got += len(peer.recv(1 << 20))
        peer.sendall(b"y" * 777)
        assert client.recv(1000) == b"y" * 777
        after = wire.sent_bytes()
        assert before is not None and after is not None
        assert after - before == 100_777
        if ss_before is not None:  # iproute2 present: the independent reading agrees to the byte
            assert wire.ss_sent_bytes(os.getpid()) == after
    finally:
        for s in (client, peer, srv):
            s.close()


def test_socket_counters_missing_is_none_not_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel whose tcp_info has no tcpi_bytes_sent, or no /proc: no reading at all (claims unverifiable)."""
    srv, client, peer = _loopback_pair()
    try:
        assert wire.sent_bytes() is not None
        monkeypatch.setattr(wire, "_BYTES_SENT_AT", 10_000)  # counters beyond what the kernel returns
        assert wire.sent_bytes() is None
        monkeypatch.undo()
        monkeypatch.setattr(wire, "_FD_DIR", "/nonexistent/fd")
        assert wire.sent_bytes() is None
    finally:
        for s in (client, peer, srv):
            s.close()


def test_comm_meter_labels_phase_outside_collectives() -> None:
    with CommMeter() as m, phase("forward"):
        torch.ones(3).add_(1)
    assert m.payload_bytes == {} and m.calls == {}

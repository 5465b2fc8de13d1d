"""Launcher: backend/device/start-method selection (incl. NCCL paths on CPU) and failing or hung ranks."""

from __future__ import annotations

import os
import time

import pytest
import torch.distributed as dist
import torch.multiprocessing as mp

from verify import cli
from verify.measure.launch import (
    RankFailed,
    RankTimeout,
    TorchrunEnv,
    device_for,
    launch,
    start_method_for,
    torchrun_env,
)


def test_backend_selection() -> None:
    assert start_method_for("gloo") == "fork"
    assert start_method_for("nccl") == "spawn"
    assert device_for("gloo", 3) == "cpu"
    assert device_for("nccl", 3) == "cuda:3"
    with pytest.raises(ValueError, match="unknown backend 'mpi'"):
        start_method_for("mpi")


def test_torchrun_env_detection() -> None:
    env = {"RANK": "5", "WORLD_SIZE": "16", "LOCAL_RANK": "1", "MASTER_ADDR": "h", "MASTER_PORT": "29500"}
    assert torchrun_env(env) == TorchrunEnv(rank=5, world_size=16, local_rank=1)
    assert torchrun_env({"RANK": "0"}) is None


def test_nccl_without_cuda_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--backend", "nccl"]) == 2
    assert "needs CUDA" in capsys.readouterr().err


def _rank_pid() -> int:
    return os.getpid()


def _fail_on_rank_1() -> None:
    if dist.get_rank() == 1:
        raise RuntimeError("boom on rank 1")
    dist.barrier()  # rank 0 waits for a peer that is gone


def _hang() -> None:
    time.sleep(600)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_launch_returns_rank_results() -> None:
    pids = launch(_rank_pid, 2, timeout_s=30)
    assert len(set(pids)) == 2 and all(_gone(p) for p in pids)


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_failing_rank_ends_run_with_clear_error() -> None:
    # RankFailed, not RankTimeout: the launcher ended the run on the failure, not at its 30 s deadline
    with pytest.raises(RankFailed, match=r"rank 1 of 3 failed(.|\n)*boom on rank 1"):
        launch(_fail_on_rank_1, 3, timeout_s=30)
    assert mp.active_children() == []


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_hung_rank_is_killed_after_timeout() -> None:
    # the ranks sleep 600 s: a launcher that waited for them would hit this test's 60 s timeout
    with pytest.raises(RankTimeout, match="did not finish within 3 s"):
        launch(_hang, 2, timeout_s=3)
    assert mp.active_children() == []


def test_sweep_device_per_backend() -> None:
    dims = [32, 9, 10]
    assert cli.sweep_options("gloo", dims, variants=("ddp",)).device == "cpu"
    assert cli.sweep_options("nccl", dims, variants=("ddp",)).device == "cuda"  # launcher set_device(rank)
    assert cli.sweep_options("nccl", dims, variants=("ddp",), local_rank=3).device == "cuda:3"  # torchrun
    assert cli.sweep_options("gloo", dims, variants=("ddp",), local_rank=3).device == "cpu"


def _crashing_sweep(opts: object) -> None:
    raise RuntimeError("rank blew up mid-sweep")


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_cli_reports_a_crashed_rank(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli, "sweep_rank", _crashing_sweep)
    assert cli.main(["--world-sizes", "2", "--params", "20000", "--no-torch"]) == 3
    err = capsys.readouterr().err
    assert "error: rank" in err and "of 2 failed" in err and "rank blew up mid-sweep" in err
    assert mp.active_children() == []


def test_world_size_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--world-sizes", "1,2"]) == 2
    assert "needs values >= 2" in capsys.readouterr().err


def _notes(k: int) -> int:
    from verify.measure import progress

    for i in range(k):
        progress.note(f"rank {dist.get_rank()} step {i}")
    return dist.get_rank()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_progress_lines_of_rank_0_reach_the_parent_while_ranks_run() -> None:
    lines: list[str] = []
    assert launch(_notes, 2, args=(3,), timeout_s=60, on_progress=lines.append) == [0, 1]
    assert lines == ["rank 0 step 0", "rank 0 step 1", "rank 0 step 2"]  # rank 1 writes nothing
    assert launch(_notes, 2, args=(2,), timeout_s=60) == [0, 1]  # no follower: nothing written anywhere


def test_progress_follower_returns_only_complete_new_lines(tmp_path: os.PathLike[str]) -> None:
    from verify.measure.progress import Follower

    path = os.path.join(tmp_path, "p")
    f = Follower(path)
    assert f.new_lines() == []  # no file yet
    with open(path, "w", encoding="utf-8") as out:
        out.write("N=2 ddp\nN=2 zer")
    assert f.new_lines() == ["N=2 ddp"]
    with open(path, "a", encoding="utf-8") as out:
        out.write("o1\nN=2 zero2 ✓\n")
    assert f.new_lines() == ["N=2 zero1", "N=2 zero2 ✓"]
    assert f.new_lines() == []


def _fn_started_at() -> float:
    return time.monotonic()  # CLOCK_MONOTONIC: one clock for every process on the machine


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_no_rank_starts_its_function_before_every_rank_has_joined(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: os.PathLike[str]) -> None:
    """The launch flake of the ninth session: a rank that finished a short function and left closed its socket
    under a peer whose init had not returned yet ("Gloo connectFullMesh failed ... Connection closed by peer").
    Rank 1 is made to lag right after its own init returns (the window the peer was in); rank 0 must not start
    the function before that lag ends. The order is compared on one clock, not against a time bound."""
    real_init = dist.init_process_group
    joined = os.path.join(tmp_path, "rank1-joined")

    def lagging_init(*args: object, **kwargs: object) -> None:
        real_init(*args, **kwargs)  # type: ignore[arg-type]
        if kwargs.get("rank") == 1:
            time.sleep(1.0)
            with open(joined, "w", encoding="utf-8") as f:
                f.write(repr(time.monotonic()))

    monkeypatch.setattr(dist, "init_process_group", lagging_init)  # forked ranks inherit it
    started = launch(_fn_started_at, 2, timeout_s=60)
    with open(joined, encoding="utf-8") as f:
        rank1_ready = float(f.read())
    assert started[0] > rank1_ready, "rank 0 ran its function while rank 1 was still joining the group"

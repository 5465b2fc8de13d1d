"""Start N ranks, run one function in each, collect what they return; fail loudly and leave no orphans.

    python -m verify --backend gloo --world-sizes 2,4          # fork, file:// rendezvous
    torchrun --nnodes 2 --nproc_per_node 8 ... -m verify       # ranks from torchrun's env vars

Gloo ranks start by fork after torch is imported in the parent (~0.1 s for 4 ranks); NCCL ranks by
spawn (CUDA cannot be forked). Rendezvous goes through a file in a private temp folder, never a guessed
port. A rank that raises or exits ends the run at once (``start_processes`` terminates the others); a
hung run is killed after ``timeout_s`` with ``RankTimeout``.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
from torch.multiprocessing.spawn import ProcessExitedException, ProcessRaisedException, start_processes

from verify.measure import progress


class RankFailed(RuntimeError):
    """A rank raised or died; the message names the rank and carries its traceback."""


class RankTimeout(RuntimeError):
    """The ranks did not finish within the timeout; all of them were killed."""


@dataclass(frozen=True)
class TorchrunEnv:
    rank: int
    world_size: int
    local_rank: int


def torchrun_env(env: Mapping[str, str] | None = None) -> TorchrunEnv | None:
    """The rank layout torchrun exported, or None when not under torchrun."""
    env = os.environ if env is None else env
    needed = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
    if not all(k in env for k in needed):
        return None
    return TorchrunEnv(int(env["RANK"]), int(env["WORLD_SIZE"]), int(env["LOCAL_RANK"]))


def start_method_for(backend: str) -> str:
    """fork for Gloo (cheap, torch already imported), spawn for NCCL (CUDA cannot be forked)."""
    if backend == "gloo":
        return "fork"
    if backend == "nccl":
        return "spawn"
    raise ValueError(f"unknown backend {backend!r}; expected 'gloo' or 'nccl'")


def device_for(backend: str, local_rank: int = 0) -> str:
    """The device a rank computes on: cpu for Gloo, cuda:<local rank> for NCCL."""
    start_method_for(backend)  # validates the name
    return f"cuda:{local_rank}" if backend == "nccl" else "cpu"


_REFUSAL: BaseException | None = None  # set in a judged-ahead child (verify.judge.ahead): it must not start ranks


def refuse_launches(why: BaseException | None) -> None:
    """Make every later ``launch`` in this process raise ``why`` (None allows launches again)."""
    global _REFUSAL
    _REFUSAL = why


def preload_for_fork() -> None:
    """Import, once in the parent, what every rank would otherwise import after the fork: torch._dynamo, which
    torch.optim's and FSDP2's ``disable``-decorated functions import on first call (3–6 s of CPU per rank on
    2 cores; forked ranks share the parent's modules)."""
    import torch._dynamo  # noqa: F401


def join_group(backend: str, local_rank: int, **init: Any) -> None:
    """``init_process_group``, then a barrier: no rank returns before every rank's group is up.

    Gloo's ``init_process_group`` returns on a rank as soon as *its* side of each pair is connected; the peer
    may still be between accepting that connection and marking its pair ready. A rank that then ran a short
    function and destroyed the group closed the socket under the peer, whose init failed with "Gloo
    connectFullMesh failed ... Connection closed by peer" (strace: the peer's accept, its 8-byte sequence
    read, then EOF 5 ms later, the first rank having already written its result). Six processes launching at
    once hit it in 21 of 480 two-rank launches of a trivial function, 0 with the barrier
    (``scripts/stress_launches.py``; docs/test-durations.md, "Tenth session"). A rank sends its barrier
    message only once its own init has returned, so after the barrier every rank's init has succeeded and any
    rank may leave."""
    dist.init_process_group(backend, **init)
    if backend == "nccl":
        dist.barrier(device_ids=[local_rank])
    else:
        dist.barrier()


def _rank_main(rank: int, world: int, backend: str, init_file: str, out_dir: str,
               fn: Callable[..., Any], args: tuple[Any, ...], timeout_s: float, progress_file: str | None) -> None:
    torch.set_num_threads(1)
    if progress_file and rank == 0:
        os.environ[progress.ENV] = progress_file
    else:
        os.environ.pop(progress.ENV, None)
    if backend == "nccl":
        torch.cuda.set_device(rank)
    join_group(backend, rank, init_method=f"file://{init_file}", rank=rank, world_size=world,
               timeout=timedelta(seconds=timeout_s))
    try:
        result = fn(*args)
        with open(os.path.join(out_dir, f"result-{rank}.pkl"), "wb") as f:
            pickle.dump(result, f)
    finally:
        dist.destroy_process_group()


def launch(fn: Callable[..., Any], world_size: int, *, args: tuple[Any, ...] = (), backend: str = "gloo",
           timeout_s: float = 120.0, on_progress: Callable[[str], None] | None = None) -> list[Any]:
    """Run ``fn(*args)`` in ``world_size`` fresh ranks; return each rank's result, rank order.

    ``on_progress`` receives each line rank 0 notes (``verify.measure.progress.note``) while the ranks run."""
    if _REFUSAL is not None:
        raise _REFUSAL
    if start_method_for(backend) == "fork":
        preload_for_fork()
    out_dir = tempfile.mkdtemp(prefix="verify-")
    progress_file = os.path.join(out_dir, "progress") if on_progress else None
    follower = progress.Follower(progress_file) if progress_file else None
    ctx = start_processes(
        _rank_main, args=(world_size, backend, os.path.join(out_dir, "rendezvous"), out_dir, fn, args,
                          timeout_s, progress_file),
        nprocs=world_size, join=False, start_method=start_method_for(backend))
    deadline = time.monotonic() + timeout_s
    try:
        while not ctx.join(timeout=0.2):
            if follower and on_progress:
                for line in follower.new_lines():
                    on_progress(line)
            if time.monotonic() > deadline:
                raise RankTimeout(f"ranks of world size {world_size} did not finish within {timeout_s:.0f} s;"
                                  " all were killed")
        if follower and on_progress:
            for line in follower.new_lines():
                on_progress(line)
        results = []
        for rank in range(world_size):
            with open(os.path.join(out_dir, f"result-{rank}.pkl"), "rb") as f:
                results.append(pickle.load(f))
        return results
    except ProcessRaisedException as e:
        raise RankFailed(_failure_message(ctx.error_files, e.error_index, world_size)) from None
    except ProcessExitedException as e:
        raise RankFailed(f"rank {e.error_index} of {world_size} exited with code {e.exit_code}") from None
    finally:
        for p in ctx.processes:
            if p.is_alive() and p.pid is not None:
                os.kill(p.pid, signal.SIGKILL)
            p.join(timeout=5)
        shutil.rmtree(out_dir, ignore_errors=True)


_PEER_LOST = ("Connection closed by peer", "remote worker crashing", "Connection reset by peer")


def _failure_message(error_files: list[Any], first: int, world_size: int) -> str:
    """Name the rank that failed first on its own; ranks that only lost a peer come after it."""
    traces: dict[int, str] = {}
    for rank, path in enumerate(error_files):
        if path and os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, "rb") as f:
                traces[rank] = pickle.load(f)
    if not traces:
        return f"rank {first} of {world_size} failed"
    order = sorted(traces, key=lambda r: (any(p in traces[r] for p in _PEER_LOST), r != first, r))
    root = order[0]
    msg = f"rank {root} of {world_size} failed:\n{traces[root]}"
    others = order[1:]
    if others:
        msg += f"\n(then rank(s) {', '.join(map(str, others))} failed too, having lost their peer)"
    return msg


def run_under_torchrun(fn: Callable[..., Any], env: TorchrunEnv, *, args: tuple[Any, ...] = (),
                       backend: str = "gloo", timeout_s: float = 120.0) -> list[Any] | None:
    """This process is one rank of a torchrun job: run ``fn``, gather results on rank 0 (else None)."""
    torch.set_num_threads(1)
    if backend == "nccl":
        torch.cuda.set_device(env.local_rank)
    join_group(backend, env.local_rank, init_method="env://", timeout=timedelta(seconds=timeout_s))
    try:
        result = fn(*args)
        gathered: list[Any] = [None] * env.world_size
        dist.all_gather_object(gathered, result)
        return gathered if env.rank == 0 else None
    finally:
        dist.destroy_process_group()

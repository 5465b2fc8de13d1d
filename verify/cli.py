"""Command line: run the sweep, judge every card's claims, print verdicts, write JSON.

    python -m verify [--backend gloo|nccl] [--world-sizes 2,4] [--params N] [--json FILE] [--cards DIR]
    torchrun --nnodes 2 --nproc_per_node 8 --rdzv-endpoint HOST:PORT -m verify --backend nccl

The app calls ``verify.cli.main(argv)`` (returns an exit code) or ``verify.cli.run_verify(...)`` (returns
the report dict). Default: CPU, Gloo, N ∈ {2, 4}, ~1M parameters, every reference stage and PyTorch's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from verify.judge import Evidence, judge
from verify.judge.ahead import Ahead
from verify.judge.contradictions import contradictions
from verify.judge.statements.deck import judge_deck
from verify.measure.experiments import dist_probe, llm_probe
from verify.measure.launch import RankFailed, RankTimeout, device_for, launch, run_under_torchrun, torchrun_env
from verify.measure.meters.comm import warm_up
from verify.measure.model import layer_dims
from verify.measure.stages import REFERENCE_STAGES
from verify.measure.stages.torch_impls import TORCH_IMPLS
from verify.measure.sweep import SweepOptions, sweep_and_probe_rank, sweep_rank
from verify.reading.asserts import AssertError, names
from verify.reading.claims import Claim, read_cards
from verify.report.runs import build_runs, write_json

PEAK_JUDGED = frozenset({"impl_peak_bytes"})  # the quantities judged on the gathering variants' native peak passes
DEFAULT_CARDS = Path(__file__).resolve().parent.parent / "cards"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m verify", description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=("gloo", "nccl"), default="gloo")
    p.add_argument("--world-sizes", default="2,4", help="comma-separated N values (ignored under torchrun)")
    p.add_argument("--params", type=int, default=1_000_000, help="approximate parameter count Ψ")
    p.add_argument("--json", dest="json_path", default=None, help="write the report here")
    p.add_argument("--cards", default=str(DEFAULT_CARDS), help="folder of card files (*.md)")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch's DDP/ZeRO/FSDP2 cross-check")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds before a hung launch is killed")
    p.add_argument("--batch-per-rank", type=int, default=8)
    p.add_argument("--timed-steps", type=int, default=2, help="steps timed per variant after warm-up")
    p.add_argument("--no-ring", action="store_true",
                   help="skip the step on send/recv ring collectives (ideal-ring volume and the ZeRO-3 peak bound "
                        "then come out unverifiable)")
    return p.parse_args(argv)


PROBE_TIMEOUT_S = 240.0  # what the probes may add to a launch (dist_probe and llm_probe: 120 s each on their own)
MIN_PARAMS = 10_000  # below this the MLP's hidden width is < 30: activations and per-message headers rival Ψ


class UsageError(ValueError):
    """A command-line value that cannot run; the message says which and how to fix it (exit 2)."""


def parse_world_sizes(text: str) -> tuple[int, ...]:
    """"2,4" → (2, 4); anything else raises UsageError naming the bad part."""
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise UsageError(f"--world-sizes: {part!r} is not a whole number; give comma-separated world sizes "
                             "such as --world-sizes 2,4")
        sizes.append(int(part))
    if not sizes or min(sizes) < 2:
        raise UsageError(f"--world-sizes needs values >= 2 (communication volumes vanish at N = 1), got {text!r}")
    return tuple(sizes)


def check_params(params: int) -> int:
    if params < MIN_PARAMS:
        raise UsageError(f"--params {params} is below {MIN_PARAMS:,}: the model would be too small for its "
                         f"parameters to dominate what is measured; use --params {MIN_PARAMS} or more")
    return params


def peak_samples_for(claims: Iterable[Claim]) -> int:
    """``SweepOptions.peak_samples`` for a deck: the default where a claim judges PyTorch's peak (``PEAK_JUDGED``,
    the worst pass), else 1: the peak is then shown and judged by nothing (the passes were half the rank time)."""
    for c in claims:
        try:
            if c.asserts and PEAK_JUDGED & {name for name, _ in names(c.asserts)}:
                return SweepOptions.peak_samples
        except AssertError:
            continue  # reported by the judge
    return 1


def sweep_options(backend: str, dims: list[int], *, variants: tuple[str, ...], batch_per_rank: int = 8,
                  timed_steps: int = 2, local_rank: int | None = None) -> SweepOptions:
    """Gloo computes on the CPU; NCCL on "cuda" (the rank's current device, set by the launcher) or, under
    torchrun, on cuda:<LOCAL_RANK>."""
    if backend == "nccl" and local_rank is None:
        device = "cuda"
    else:
        device = device_for(backend, local_rank or 0)
    return SweepOptions(dims=dims, batch_per_rank=batch_per_rank, variants=variants, timed_steps=timed_steps,
                        device=device)


def run_verify(*, backend: str = "gloo", world_sizes: tuple[int, ...] = (2, 4), params: int = 1_000_000,
               cards: str | Path = DEFAULT_CARDS, with_torch: bool = True, timeout_s: float = 300.0,
               batch_per_rank: int = 8, timed_steps: int = 2, progress: bool = False,
               ring: bool = True) -> dict[str, Any]:
    """Sweep, judge and return the report (the JSON shape of ``--json``).

    Without torchrun: one launch per world size runs every variant and then (on Gloo) the probes in the same
    ranks; meanwhile forked children judge what needs no run (``verify.judge.ahead``). The profiled peak passes
    follow the deck (``peak_samples_for``). The report's ``environment.timings_s`` says where the wall time
    went."""
    dims = layer_dims(params)
    variants = (*REFERENCE_STAGES, *(TORCH_IMPLS if with_torch else ()))
    env = torchrun_env()
    opts = sweep_options(backend, dims, variants=variants, batch_per_rank=batch_per_rank,
                         timed_steps=timed_steps, local_rank=None if env is None else env.local_rank)
    per_world: dict[int, list[list[dict[str, Any]]]] = {}
    timings: dict[str, float] = {}
    done: dict[int, dict[str, Any]] = {}  # claim index -> verdict
    t0 = time.perf_counter()
    t = time.perf_counter()
    claims = read_cards(cards)
    timings["read cards"] = time.perf_counter() - t
    opts = replace(opts, ring=ring, peak_samples=peak_samples_for(claims))  # the passes a claim judges
    if env is not None:
        ahead = Ahead(claims) if env.rank == 0 else None  # forked before the process group starts its threads
        try:
            t = time.perf_counter()
            gathered = run_under_torchrun(sweep_rank, env, args=(opts,), backend=backend, timeout_s=timeout_s)
            if gathered is None or ahead is None:  # not rank 0
                return {}
            per_world[env.world_size] = gathered
            world_sizes = (env.world_size,)
            timings["sweep"] = time.perf_counter() - t
            runs = _runs(per_world, dims, batch_per_rank, backend, forked=False)
            ev = Evidence(runs, backend)
            _judge_beside(ahead, claims, ev, done, timings, timeout_s)
        finally:
            if ahead is not None:
                ahead.cancel()
    else:
        dist_probe.forget()
        llm_probe.forget()
        ahead = Ahead(claims)  # forked before any thread starts (rich's bar runs one)
        try:
            warm_up()
            with _bar(progress) as bar:
                per_world = _launch_all(world_sizes, backend, opts, timeout_s, bar, timings)
            runs = _runs(per_world, dims, batch_per_rank, backend, forked=True)
            ev = Evidence(runs, backend)
            _judge_beside(ahead, claims, ev, done, timings, timeout_s)
        finally:
            ahead.cancel()
    t = time.perf_counter()
    with _bar(progress) as bar:
        task = bar.add_task("judging", total=len(claims))
        bar.update(task, advance=len(done))
        verdicts = []
        for i, c in enumerate(claims):
            if i not in done:
                done[i] = judge(c, ev, ahead.prepared)
                bar.update(task, advance=1, description=f"judging {c.card}")
            verdicts.append(done[i])
    timings["judge"] = time.perf_counter() - t
    t = time.perf_counter()
    statements, auto_contradictions = judge_deck(cards, verdicts, ev, ahead.prepared if ahead is not None else None)
    timings["judge the statements no claim annotates"] = time.perf_counter() - t
    return {
        "environment": {"torch": torch.__version__, "backend": backend, "device": "cuda" if backend == "nccl"
                        else "cpu", "world_sizes": list(world_sizes), "psi": runs[0]["psi"] if runs else None,
                        "sweep_wall_s": round(time.perf_counter() - t0, 3), "torchrun": env is not None,
                        "timings_s": {k: round(v, 3) for k, v in timings.items()}},
        "runs": runs,
        "claims": verdicts,
        "statements": statements,
        "contradictions": contradictions(verdicts) + auto_contradictions,
    }


def _judge_beside(ahead: Ahead, claims: list[Claim], ev: Evidence, done: dict[int, dict[str, Any]],
                  timings: dict[str, float], timeout_s: float) -> None:
    """Once the runs are in: judge here the claims no judged-ahead child has started, then keep the children's."""
    t = time.perf_counter()
    for i in iter(ahead.steal, None):
        done[i] = judge(claims[i], ev, ahead.prepared)
    timings["judge beside the judged-ahead children"] = time.perf_counter() - t
    t = time.perf_counter()
    if not ahead.collect(timeout_s):
        print("warning: judging ahead failed; judging the rest now", file=sys.stderr)
    done.update(ahead.verdicts)
    timings["waiting for the judged-ahead child"] = time.perf_counter() - t


def _runs(per_world: dict[int, list[list[dict[str, Any]]]], dims: list[int], batch_per_rank: int, backend: str,
          forked: bool) -> list[dict[str, Any]]:
    runs = build_runs(per_world, dims, batch_per_rank)
    for r in runs:
        r["backend"], r["launcher"] = backend, "fork" if forked else "torchrun"
    return runs


class _NoBar:
    """Stands in for rich's Progress when nothing is shown (not a terminal, tests)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *_a: Any, **_k: Any) -> int:
        return 0

    def update(self, *_a: Any, **_k: Any) -> None:
        return None


def _bar(show: bool) -> Any:
    if not show:
        return _NoBar()
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=True)


def _sweep_and_probe(opts: SweepOptions) -> dict[str, Any]:
    """In each rank: this module's ``sweep_rank`` (what a test may replace), then the probe."""
    return sweep_and_probe_rank(opts, sweep=sweep_rank)


def _launch_all(world_sizes: tuple[int, ...], backend: str, opts: SweepOptions, timeout_s: float, bar: Any,
                timings: dict[str, float]) -> dict[int, list[list[dict[str, Any]]]]:
    """One launch per N; on Gloo the same ranks also run the probes (stored for the judge)."""
    out: dict[int, list[list[dict[str, Any]]]] = {}
    with_probe = backend == "gloo"
    per_n = len(opts.variants) + (1 if with_probe else 0)
    task = bar.add_task(f"sweep N={world_sizes[0]}", total=per_n * len(world_sizes))
    for n in world_sizes:
        bar.update(task, description=f"sweep N={n}: {opts.variants[0]}")
        order = [*opts.variants, *(["probe"] if with_probe else [])]

        def step(line: str, order: list[str] = order) -> None:
            done = line.split(" ", 1)[-1]
            nxt = order[order.index(done) + 1] if done in order and order.index(done) + 1 < len(order) else "…"
            bar.update(task, advance=1, description=f"sweep {line.split(' ', 1)[0]}: {nxt}")
        t = time.perf_counter()
        if with_probe:
            # each probe had a launch (and 120 s) of its own before it joined the sweep's ranks: keep their allowance
            ranks = launch(_sweep_and_probe, n, args=(opts,), backend=backend,
                           timeout_s=timeout_s + PROBE_TIMEOUT_S, on_progress=step)
            out[n] = [r["runs"] for r in ranks]
            dist_probe.store(n, [r["probe"] for r in ranks])
            if ranks[0]["llm_probe"] is not None:
                llm_probe.store(n, [r["llm_probe"] for r in ranks])
        else:
            out[n] = launch(sweep_rank, n, args=(opts,), backend=backend, timeout_s=timeout_s, on_progress=step)
        timings[f"sweep N={n}" + (" (+ probe)" if with_probe else "")] = time.perf_counter() - t
    return out


def summary_console(width: int | None = None) -> Any:
    """A console as wide as the terminal (``COLUMNS`` or 160 columns when not on one: a pipe or a log)."""
    import shutil

    from rich.console import Console

    return Console(width=width or shutil.get_terminal_size((160, 24)).columns, soft_wrap=False)


def print_summary(report: dict[str, Any], console: Any = None) -> None:
    """The runs, the verdicts and the zh/en contradictions as tables that fit the console: numbers never wrap,
    long text folds onto more lines instead of being cut."""
    from rich.table import Table

    console = console or summary_console()
    from rich import box

    wide = console.width >= 130  # exact byte counts where they fit; MB (3 significant decimals) where not

    def size(x: float) -> str:
        return f"{int(x):,}" if wide else f"{x / 1e6:.3f}M"
    t = Table(title=f"runs ({report['environment']['sweep_wall_s']} s; bytes per rank" +
              ("" if wide else ", M = 10⁶, pt = PyTorch") + ")", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    for col in ("impl", "stage", "N", "state", "predicted", "peak", "payload", "wire", "step ms"):
        t.add_column(col, no_wrap=col != "impl", overflow="fold",
                     justify="right" if col not in ("impl", "stage") else "left")
    for r in report["runs"]:
        me, pr = r["measured"], r["predicted"]
        impl = r["impl"] if wide else r["impl"].replace("reference", "ref").replace("torch-", "pt-")
        t.add_row(impl, r["stage"], str(r["world_size"]), size(me["persistent_bytes"]),
                  size(pr["model_state_bytes"]), size(me["peak_bytes"]), size(sum(me["comm_payload_bytes"].values())),
                  size(me["wire_bytes_sent"] or 0), f"{r['step_time_s'] * 1000:.1f}")
    console.print(t)
    v = Table(title="claims", expand=True, box=box.SIMPLE_HEAD)
    v.add_column("card", overflow="fold", ratio=1)
    v.add_column("claim", overflow="fold", ratio=2)
    v.add_column("verdict", no_wrap=True)
    v.add_column("reason", overflow="fold", ratio=6)
    for c in report["claims"]:
        v.add_row(c.get("card", ""), c["claim_id"], c["verdict"], c["reason_en"])
    console.print(v)
    if report.get("contradictions"):
        x = Table(title="zh and en say different things", expand=True, box=box.SIMPLE_HEAD)
        for col, ratio in (("card", 1), ("quantity", 2), ("zh", 4), ("en", 4)):
            x.add_column(col, overflow="fold", ratio=ratio)
        for row in report["contradictions"]:
            x.add_row(row["card"], row["quantity"], f"{row['zh']['verdict']}: {row['zh']['text_zh']}",
                      f"{row['en']['verdict']}: {row['en']['text_en']}")
        console.print(x)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m verify`` (and, later, ``proofdeck verify``).

    Exit codes: 0 every claim judged; 1 some claim is ``error``; 2 bad environment;
    3 a rank crashed or the run timed out (message on stderr, no ranks left running).
    """
    a = parse_args(argv)
    try:
        sizes = parse_world_sizes(a.world_sizes)
        check_params(a.params)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.backend == "nccl" and not torch.cuda.is_available():
        print("error: --backend nccl needs CUDA; this machine has none", file=sys.stderr)
        return 2
    try:
        report = run_verify(backend=a.backend, world_sizes=sizes, params=a.params, cards=a.cards,
                            with_torch=not a.no_torch, timeout_s=a.timeout, batch_per_rank=a.batch_per_rank,
                            timed_steps=a.timed_steps, progress=sys.stderr.isatty(), ring=not a.no_ring)
    except (RankFailed, RankTimeout) as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    if not report:  # a non-zero torchrun rank
        return 0
    if a.json_path:
        write_json(report, a.json_path)
    if os.environ.get("VERIFY_QUIET") != "1":
        print_summary(report)
    bad = [c for c in report["claims"] if c["verdict"] == "error"]
    return 1 if bad else 0

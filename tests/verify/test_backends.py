"""Every backend, every size: a claim that cannot be measured where the run asked is unverifiable, with why.

Judged from the stored sweep (``data/sweep_runs.json``) relabelled as another backend or launcher: what a GPU
or torchrun run would report for the quantities only a local Gloo probe or socket counters can measure.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.utils.judging import judge_assertion
from verify import cli
from verify.judge import Evidence

DATA = Path(__file__).parent / "data" / "sweep_runs.json"


@pytest.fixture(scope="module")
def runs() -> list[dict[str, Any]]:
    return list(json.loads(DATA.read_text())["runs"])


def _relabel(runs: list[dict[str, Any]], **fields: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(runs)
    for r in out:
        r.update(fields)
    return out


@pytest.mark.parametrize("statement", ["gloo_wire_send(all_reduce) == 2*(N-1)/N*M", "wire_bytes(zero3) > 0"])
def test_gloo_quantities_are_unverifiable_on_nccl(runs: list[dict[str, Any]], statement: str) -> None:
    nccl = _relabel(runs, backend="nccl")
    j = judge_assertion(statement, Evidence(nccl, "nccl"))
    assert j.verdict == "unverifiable"
    assert "nccl" in j.condition


def test_probe_quantities_are_unverifiable_under_torchrun(runs: list[dict[str, Any]]) -> None:
    j = judge_assertion("gloo_wire_send(all_reduce) == 2*(N-1)/N*M", Evidence(_relabel(runs, launcher="torchrun")))
    assert j.verdict == "unverifiable" and "torchrun" in j.condition


def test_ring_volume_is_judged_on_any_backend(runs: list[dict[str, Any]]) -> None:
    """The ring step runs on the asked backend's ranks (send/recv exist on NCCL): still judged there."""
    j = judge_assertion("comm_volume(zero3) / comm_volume(ddp) == 3/2", Evidence(_relabel(runs, backend="nccl")))
    assert j.verdict == "confirmed"


def test_missing_socket_counters_are_unverifiable_not_refuted(runs: list[dict[str, Any]]) -> None:
    no_counters = copy.deepcopy(runs)
    for r in no_counters:
        r["measured"]["wire_bytes_sent"] = None  # what verify.measure.meters.wire.sent_bytes() gives without counters
    j = judge_assertion("wire_bytes(ddp) == 2*(N-1)/N*Psi*2", Evidence(no_counters))
    assert j.verdict == "unverifiable" and "no socket counters" in j.condition and "TCP_INFO" in j.condition


def test_without_the_ring_step_volume_is_unverifiable(runs: list[dict[str, Any]]) -> None:
    no_ring = copy.deepcopy(runs)
    for r in no_ring:
        r["measured"].pop("ring_sent_bytes_per_rank", None)
        r["measured"].pop("ring_peak_transient_bytes", None)
    for statement in ("comm_volume(zero3) / comm_volume(ddp) == 3/2", "peak_over_bound(zero3) <= 1"):
        j = judge_assertion(statement, Evidence(no_ring))
        assert j.verdict == "unverifiable", statement
        assert "ring" in j.condition


@pytest.mark.parametrize(("argv", "needle"), [
    (["--world-sizes", "abc"], "'abc' is not a whole number"),
    (["--world-sizes", "2,x"], "'x' is not a whole number"),
    (["--world-sizes", "1"], "values >= 2"),
    (["--params", "500"], "--params 500 is below 10,000"),
])
def test_bad_arguments_exit_2_with_a_clear_message(argv: list[str], needle: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_nccl_without_cuda_exits_2(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # as on this machine, and on a GPU one too
    assert cli.main(["--backend", "nccl"]) == 2
    assert "needs CUDA" in capsys.readouterr().err

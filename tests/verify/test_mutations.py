"""Mutation tests: a verification is honest only if a wrong formula, ledger or measurement changes a verdict.

Each mutation is applied alone (``monkeypatch`` undoes it) and must flip at least one verdict of the deck's
claims. Ledger and formula mutations are judged on the stored sweep (``data/sweep_runs.json``: reference
stages with their ring step, PyTorch's implementations, N = 2 and 4) so they run in seconds; mutations of the
measuring code run a small real Gloo sweep (``TestMeasuringCode``). Every quantity a claim names and
something measures is also mutated at its meter (its reading × 5/4): a quantity no mutation can flip fails.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import sympy as sp

from tests.utils.judging import judge_all, judge_assertion
from verify.judge import Evidence
from verify.judge.pipeline import reset_caches
from verify.known import ledger
from verify.known.formulas import collectives as coll
from verify.known.formulas import pipeline as pipe
from verify.known.vocabulary import QUANTITIES, SYMBOLS
from verify.reading.claims import Claim, read_cards

DATA = Path(__file__).parent / "data" / "sweep_runs.json"
CARDS = Path(__file__).resolve().parents[2] / "cards"
MP = pytest.MonkeyPatch


@pytest.fixture(scope="module")
def runs() -> list[dict[str, Any]]:
    return list(json.loads(DATA.read_text())["runs"])


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return [c for c in read_cards(CARDS) if c.asserts]


def _uses(c: Claim, names: set[str]) -> bool:
    return any(f"{n}(" in c.asserts for n in names)


def verdicts(claims: list[Claim], runs: list[dict[str, Any]], names: set[str] | None = None,
             ledger_changed: bool = True) -> dict[str, str]:
    """Verdicts of the claims naming one of ``names``; the ledger's cached formulas are dropped before and
    after when a mutation changed them (a meter's mutation leaves them valid)."""
    chosen = [c for c in claims if names is None or _uses(c, names)]
    if ledger_changed:
        reset_caches()
    try:
        return {f"{r['card']}:{r['claim_id']}": r["verdict"] for r in judge_all(chosen, Evidence(runs))}
    finally:
        if ledger_changed:
            reset_caches()


def flipped(before: dict[str, str], after: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {k: (before[k], after[k]) for k in before if after.get(k) != before[k]}


# ------------------------------------------------------------------ ledger and formula mutations

def _with_k14(mp: MP) -> None:  # ledger K 12 → 14 (bytes of optimizer state per parameter)
    for fn in (ledger.optim_bytes, ledger.model_state_bytes):
        mp.setattr(fn, "__kwdefaults__", {**(fn.__kwdefaults__ or {}), "k": 14})


def _ring_factor_1(mp: MP) -> None:  # an all-reduce costs one pass instead of two
    mp.setitem(coll._PASSES, "all_reduce", 1)


def _zero3_without_backward_gather(mp: MP) -> None:
    orig = ledger.comm_payload_elements

    def payload(*, stage: str, psi: Any, n: Any, psi_pad: Any = None) -> dict[str, Any]:
        out = orig(stage=stage, psi=psi, n=n, psi_pad=psi_pad)  # type: ignore[arg-type]
        return {k: v for k, v in out.items() if not (stage == "zero3" and k == "all_gather/backward")}
    mp.setattr(ledger, "comm_payload_elements", payload)


def _zero2_without_gradient_shard(mp: MP) -> None:
    orig = ledger.grad_bytes

    def grad(*, stage: str, **kw: Any) -> Any:
        return orig(stage="zero1" if stage == "zero2" else stage, **kw)  # type: ignore[arg-type]
    mp.setattr(ledger, "grad_bytes", grad)


def _bubble(mp: MP) -> None:  # (p−1)/(m+p−1) → (p−1)/m
    mp.setattr(pipe, "bubble_fraction", lambda *, p, m: (p - 1) / m)


def _sqrt_l(mp: MP) -> None:  # the checkpointing peak (k−1) + L/k → k + L/k: 2√L instead of 2√L − 1 at k = √L
    L, k = SYMBOLS["L"], SYMBOLS["k"]
    q = QUANTITIES["checkpoint_peak_units"]
    mp.setitem(QUANTITIES, q.name, dataclasses.replace(q, formula=lambda: k + L / k))


def _ring_send_without_n_minus_1(mp: MP) -> None:  # 2(N−1)/N·M → 2M
    orig = coll.ring_send
    mp.setattr(coll, "ring_send", lambda *, op, n, m: orig(op=op, n=n, m=m) * n / (n - 1))


LEDGER_MUTATIONS: dict[str, tuple[Callable[[MP], None], set[str]]] = {
    "ledger K 12 -> 14": (_with_k14, {"optim_bytes", "model_state_bytes"}),
    "ring factor 2 -> 1": (_ring_factor_1, {"comm_volume"}),
    "ZeRO-3 without backward all-gather": (_zero3_without_backward_gather, {"comm_volume", "comm_payload"}),
    "ZeRO-2 without gradient shard": (_zero2_without_gradient_shard, {"grad_bytes", "model_state_bytes"}),
    "bubble (p-1)/(m+p-1) -> (p-1)/m": (_bubble, {"bubble_fraction"}),
    "sqrt(L): peak (k-1)+L/k -> k+L/k": (_sqrt_l, {"checkpoint_peak_units"}),
    "ring 2(N-1)/N -> 2": (_ring_send_without_n_minus_1, {"ring_send"}),
}


@pytest.mark.parametrize("name", list(LEDGER_MUTATIONS))
def test_ledger_mutation_flips_a_verdict(name: str, claims: list[Claim], runs: list[dict[str, Any]],
                                         fresh: None) -> None:
    mutate, names = LEDGER_MUTATIONS[name]
    before = verdicts(claims, runs, names)
    with pytest.MonkeyPatch.context() as mp:
        mutate(mp)
        after = verdicts(claims, runs, names)
    assert flipped(before, after), f"{name}: no verdict among {sorted(before)} changed"


def test_zero_redundancy_treated_as_ddp_flips_its_verdicts(runs: list[dict[str, Any]]) -> None:
    """ZeroRedundancyOptimizer broadcasts every parameter after DDP's all-reduce and shards whole parameters
    unevenly; a measuring path that ran plain DDP in its place must lose those verdicts."""
    statements = ["impl_comm_payload(zero_redundancy, broadcast) > 0",
                  "impl_comm_payload(zero_redundancy, broadcast) == impl_comm_payload(zero_redundancy, all_reduce)",
                  "impl_model_state_bytes(zero_redundancy) < impl_model_state_bytes(torch_ddp)"]
    mutant = copy.deepcopy(runs)
    ddp = {r["world_size"]: r for r in runs if r["impl"] == "torch-ddp"}
    for r in mutant:
        if r["impl"] == "torch-zero-redundancy":
            r["measured"] = copy.deepcopy(ddp[r["world_size"]]["measured"])
    for s in statements:
        assert judge_assertion(s, Evidence(runs)).verdict == "confirmed", s
        assert judge_assertion(s, Evidence(mutant)).verdict == "refuted", s


def _impl_swapped(runs: list[dict[str, Any]], impl: str, source: str,
                  edit: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """The stored runs with ``impl``'s measurements replaced by ``source``'s (then ``edit``ed)."""
    mutant = copy.deepcopy(runs)
    src = {r["world_size"]: r for r in runs if r["impl"] == source}
    for r in mutant:
        if r["impl"] == impl:
            r["measured"] = copy.deepcopy(src[r["world_size"]]["measured"])
            if edit:
                edit(r["measured"])
    return mutant


def _full_between_steps(measured: dict[str, Any]) -> None:  # parameters kept unsharded between steps
    measured["persistent_bytes"] += 3 * measured["param_bytes"]


IMPL_CLAIM_MUTATIONS = [  # (card claim judged on PyTorch's implementations, mutation of the stored runs)
    ("zero-sharding", "zero1-identical-to-pytorch-ddp-as-implemented",
     lambda runs: _impl_swapped(runs, "torch-zero-redundancy", "torch-ddp")),  # ZeRO-1 run as plain DDP
    ("zero-sharding", "followup-fsdp2-false-no-second-gather",
     lambda runs: _impl_swapped(runs, "torch-fsdp2-no-reshard", "torch-fsdp2-reshard")),  # gathers again
    ("fsdp-zero", "reshard-false-still-sharded-between-steps",
     lambda runs: _impl_swapped(runs, "torch-fsdp2-no-reshard", "torch-fsdp2-no-reshard", _full_between_steps)),
]


@pytest.mark.parametrize(("slug", "claim_id", "mutate"), IMPL_CLAIM_MUTATIONS,
                         ids=[c for _, c, _ in IMPL_CLAIM_MUTATIONS])
def test_card_claims_on_pytorch_implementations_follow_their_measurement(
        runs: list[dict[str, Any]], slug: str, claim_id: str, mutate: Callable[[Any], Any]) -> None:
    chosen = [c for c in read_cards(CARDS) if (c.card, c.claim_id) == (slug, claim_id)]
    assert len(chosen) == 1 and "impl_" in chosen[0].asserts
    before = judge_all(chosen, Evidence(runs))[0]
    after = judge_all(chosen, Evidence(mutate(runs)))[0]
    assert before["method"] == after["method"] == "measured"
    assert before["verdict"] != after["verdict"], (before["reason_en"], after["reason_en"])


def test_pytorch_defaults_are_measured(runs: list[dict[str, Any]]) -> None:
    """DDP's default gradient_as_bucket_view=False keeps a bucket copy of the gradients (fp32: 4Ψ bytes) that
    the view mode does not; FSDP2 without resharding holds more at its peak than with it."""
    ev = Evidence(runs)
    # at least the bucket copy (measured: 1× the gradients at N = 4, 2× at N = 2 in the stored sweep)
    extra = "impl_hidden_bytes(ddp_default) - impl_hidden_bytes(torch_ddp)"
    hidden = judge_assertion(f"{extra} >= 99/100*impl_grad_bytes(ddp_default)", ev)
    assert hidden.verdict == "confirmed", hidden.evaluated
    peak = judge_assertion("impl_peak_bytes(fsdp2_no_reshard) > impl_peak_bytes(fsdp2_reshard)", ev)
    assert peak.verdict == "confirmed", peak.evaluated


def test_fsdp2_payload_is_counted_in_elements(runs: list[dict[str, Any]]) -> None:
    """FSDP2 keeps fp32 parameters and all-gathers them in bf16: each all-gather carries Ψ elements (2Ψ bytes).
    Its bytes over an assumed fp32 element size would read Ψ/2 per all-gather and refute both."""
    ev = Evidence(runs)
    for impl, gathers in (("fsdp2_reshard", 2), ("fsdp2_no_reshard", 1)):  # forward + backward, forward only
        j = judge_assertion(f"impl_comm_payload({impl}, all_gather) == {gathers}*Psi", ev)
        assert j.verdict == "confirmed", j.evaluated
    bf16 = [r for r in runs if r["impl"].startswith("torch-fsdp2")]
    assert bf16 and all(r["measured"]["comm_payload_bytes"]["all_gather"]
                        == 2 * r["measured"]["comm_payload_elements"]["all_gather"] for r in bf16)


# ------------------------------------------------------------------ card text mutations (text/assertion pairing)

TEXT_MUTATIONS = [  # (card, claim, old, new): a number edited in the prose and the claim's quote alike
    # 16 is mixed Adam's ledger value inside the assertion's difference term, not this relation's 18
    ("mixed-precision-memory", "megatron-18-bytes", "counts 18 bytes per parameter", "counts 16 bytes per parameter"),
    ("zero-sharding", "zero1-memory-4x", r"reduces memory by $4\times$", r"reduces memory by $8\times$"),
]


@pytest.mark.parametrize(("slug", "claim_id", "old", "new"), TEXT_MUTATIONS)
def test_a_wrong_card_number_is_a_mismatch(tmp_path: Path, runs: list[dict[str, Any]], slug: str, claim_id: str,
                                           old: str, new: str) -> None:
    import shutil

    deck = tmp_path / "cards"
    shutil.copytree(CARDS, deck)
    card = deck / f"{slug}.md"

    def verdict() -> str:
        chosen = [c for c in read_cards(deck) if c.card == slug and c.claim_id == claim_id]
        assert chosen, claim_id
        return str(judge_all(chosen, Evidence(runs))[0]["verdict"])
    assert verdict() != "mismatch"
    text = card.read_text(encoding="utf-8")
    assert text.count(old) >= 2, old  # the prose and the claim quoting it
    card.write_text(text.replace(old, new), encoding="utf-8")
    assert verdict() == "mismatch"


# ------------------------------------------------------------------ every measured quantity, at its meter

def _measured_names(claims: list[Claim]) -> list[str]:
    """Measured quantities the claims name; the LLM-arithmetic families have their own, cheaper meter test
    (tests/verify/test_llm_cards.py, one claim per quantity)."""
    from tests.verify.test_llm_cards import LLM_FAMILIES

    used = {n for c in claims for n in QUANTITIES if f"{n}(" in c.asserts}
    return sorted(n for n in used if QUANTITIES[n].measure is not None and QUANTITIES[n].family not in LLM_FAMILIES)


def _scaled(measure: Any) -> Any:
    """The meter's reading × (5/4 + a share that grows with the configuration's values) + 1: a zero reading
    moves too, and a quantity compared with itself at other values (``q() == q(b=8)``) no longer agrees."""
    def mutated(ev: Any, cfg: Any, args: tuple[str, ...]) -> Any:
        got = measure(ev, cfg, args)
        if got is None:
            return None
        value, syms = got
        at = sum(sp.Rational(x) for x in cfg.values.values() if sp.sympify(x).is_number)
        return sp.nsimplify(value) * (sp.Rational(5, 4) + at / 1000) + 1, syms
    return mutated


def test_every_measured_quantity_has_a_flipping_mutation(claims: list[Claim], runs: list[dict[str, Any]],
                                                         fresh: None) -> None:
    names = _measured_names(claims)
    assert {"comm_volume", "peak_over_bound", "model_state_bytes", "ring_send"} <= set(names)
    unflipped = []
    for name in names:
        # the claims naming the quantity, one at a time until one flips (one is enough to show the verdicts
        # depend on the meter; judging every one of them, before and after, was most of this test's minute)
        seen = {}
        for claim in (c for c in claims if _uses(c, {name})):
            before = verdicts([claim], runs, ledger_changed=False)
            with pytest.MonkeyPatch.context() as mp:
                q = QUANTITIES[name]
                mp.setitem(QUANTITIES, name, dataclasses.replace(q, measure=_scaled(q.measure)))
                after = verdicts([claim], runs, ledger_changed=False)
            if flipped(before, after):
                break
            seen.update(before)
        else:
            unflipped.append(f"{name}: {seen}")
    assert not unflipped, "measured quantities whose meter no verdict depends on:\n" + "\n".join(unflipped)


# ------------------------------------------------------------------ mutations of the measuring code (real ranks)

def _sweep(n: int, variants: tuple[str, ...]) -> list[dict[str, Any]]:
    from verify.measure.launch import launch
    from verify.measure.model import layer_dims
    from verify.measure.sweep import SweepOptions, sweep_rank
    from verify.report.runs import build_runs

    dims = layer_dims(40_000)
    opts = SweepOptions(dims=dims, variants=variants, timed_steps=0, peak_samples=1)
    runs = build_runs({n: launch(sweep_rank, n, args=(opts,), timeout_s=60)}, dims, opts.batch_per_rank)
    for r in runs:
        r["backend"] = "gloo"
    return runs


def _claim_verdict(statement: str, runs: list[dict[str, Any]]) -> str:
    return judge_assertion(statement, Evidence(runs)).verdict


@pytest.mark.slow
class TestMeasuringCode:
    """Each mutation patches the measuring code in the parent; Gloo ranks are forked, so they run it."""

    def test_zero3_keeping_two_gathered_layers_is_refuted(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from verify.measure.stages import zero3

        statement = "peak_over_bound(zero3) <= 1"
        assert _claim_verdict(statement, _sweep(2, ("zero3",))) == "confirmed"
        kept: list[Any] = []
        orig = zero3.all_gather_layer

        def keep_previous(shard: Any, world: int, c: Any) -> Any:
            full = orig(shard, world, c)
            kept[:] = [*kept[-1:], full]  # the previous layer's unsharded parameter stays alive
            return full
        monkeypatch.setattr(zero3, "all_gather_layer", keep_previous)
        runs = _sweep(2, ("zero3",))
        assert _claim_verdict(statement, runs) == "refuted", runs[0]["measured"]["ring_peak_transient_bytes"]

    def test_ring_sending_whole_buffers_is_refuted(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A 'ring' that sends the whole buffer to its neighbour every step: the volume claims must fail."""
        from verify.measure.stages.collectives import RingCollectives

        statement = "comm_volume(ddp) == 2*(N-1)/N*Psi"
        assert _claim_verdict(statement, _sweep(2, ("ddp",))) == "confirmed"
        orig = RingCollectives._exchange

        def whole(self: RingCollectives, send: Any, recv: Any) -> None:
            orig(self, send, recv)
            self.sent_bytes += send.numel() * send.element_size()  # as if sent twice
        monkeypatch.setattr(RingCollectives, "_exchange", whole)
        assert _claim_verdict(statement, _sweep(2, ("ddp",))) == "refuted"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_fsdp2_without_resharding_is_judged_on_its_worst_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the last profiled pass holds one more layer-sized buffer: a peak read from one pass (the first)
    would miss it; ``impl_peak_bytes`` is the worst pass, so it must show the buffer."""
    import torch

    from verify.measure.launch import launch
    from verify.measure.model import layer_dims
    from verify.measure.stages.torch_impls import TorchImpl
    from verify.measure.sweep import SweepOptions, sweep_rank

    dims = layer_dims(40_000)
    samples = 3
    # Ten fp32 copies of the whole model: more than any pass holds without it, however late Gloo's worker thread
    # frees a collective's temporaries (a layer-sized buffer was not: under load the first pass came within
    # 10,548 B of the leaky one, CI 2026-12-02). So the leaky pass is the worst one, and the first cannot show it.
    extra_bytes = 10 * sum(d_in * d_out + d_out for d_in, d_out in pairwise(dims)) * 4
    calls = {"n": 0}
    orig = TorchImpl.forward_backward

    def leaky(self: TorchImpl) -> None:
        calls["n"] += 1  # 2 warm-up steps, 1 metered step, then the profiled passes
        if calls["n"] == 3 + samples:
            held = torch.ones(extra_bytes // 4)
            orig(self)
            del held
            return
        orig(self)
    monkeypatch.setattr(TorchImpl, "forward_backward", leaky)
    opts = SweepOptions(dims=dims, variants=("torch-fsdp2-no-reshard",), timed_steps=0, peak_samples=samples,
                        ring=False)
    for rank in launch(sweep_rank, 2, args=(opts,), timeout_s=240):
        run = rank[0]
        assert len(run["peak_transient_bytes_samples"]) == samples
        first, *_, last = run["peak_transient_bytes_samples"]
        assert run["peak_transient_bytes"] == max(run["peak_transient_bytes_samples"]) == last
        assert last >= extra_bytes > first  # the buffer is in the worst pass, and a first-pass reading misses it

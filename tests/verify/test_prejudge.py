"""Judging ahead (``verify.judge.ahead``): forked children compute what needs no run while the ranks run; the
parent must end with exactly what it would have computed itself, each claim computed once (the parent takes what
no child started), and a ledger mutation must still be judged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.utils.judging import judge_all
from verify.judge import Evidence, Prepared, judge
from verify.judge.ahead import Ahead
from verify.judge.drift import drift
from verify.judge.pipeline import reset_caches
from verify.judge.symbolic import symbolic
from verify.known import ledger
from verify.measure.probes import LOCAL_RUNS
from verify.reading.asserts import parse
from verify.reading.claims import Claim, read_cards

CARDS = Path(__file__).resolve().parents[2] / "cards"
CHOSEN = {("mixed-precision-memory", "megatron-18-bytes"), ("mixed-precision-memory", "mixed-precision-16-bytes"),
          ("zero-sharding", "zero1-memory-4x"), ("zero-sharding", "en-zero3-memory-16psi-over-n"),
          ("3d-parallelism", "bubble")}


@pytest.fixture()
def claims() -> Iterator[list[Claim]]:
    reset_caches()
    chosen = [c for c in read_cards(CARDS) if (c.card, c.claim_id) in CHOSEN]
    assert len(chosen) == len(CHOSEN)
    yield chosen
    reset_caches()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_child_computes_what_the_parent_would(claims: list[Claim], monkeypatch: pytest.MonkeyPatch) -> None:
    before = judge_all(claims, Evidence([]))  # judged in this process, nothing ahead
    reset_caches()
    kept = LOCAL_RUNS.export()
    LOCAL_RUNS.clear()  # the child starts without this process's experiments
    try:
        ahead = Ahead(claims)
        assert ahead.collect(timeout_s=240)
        # the numerics claim's single-process experiment ran in the child and came back
        assert ("mixed_precision_state",) in LOCAL_RUNS.export()
    finally:
        LOCAL_RUNS.adopt(kept)
    for c in claims:
        key = (c.text_zh, c.text_en, c.asserts)
        assert ahead.prepared.drift[key] == drift(*key)
        assert ahead.prepared.symbolic[c.asserts] == symbolic(parse(c.asserts))
    # measured sides that read no run (the pipeline simulator, the numerics experiment) came back whole; the
    # ZeRO claims read the sweep's runs: left to this process
    by_id = {c.claim_id: c.asserts for c in claims}
    assert by_id["bubble"] in ahead.prepared.measured and by_id["megatron-18-bytes"] in ahead.prepared.measured
    assert by_id["zero1-memory-4x"] not in ahead.prepared.measured
    # a claim that reads no run came back judged whole, as this process judges it; the others did not
    whole = {claims[i].claim_id for i in ahead.verdicts}
    assert {"bubble", "megatron-18-bytes"} <= whole and "zero1-memory-4x" not in whole
    assert all(v == before[i] for i, v in ahead.verdicts.items())
    assert [judge(c, Evidence([]), ahead.prepared) for c in claims] == before


def test_judging_ahead_starts_no_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim measured by Gloo ranks is left to the parent (the sweep's ranks run its probe): the child refuses
    to launch, and launching works again once it is done."""
    from verify.judge.ahead import compute
    from verify.measure import launch
    from verify.measure.experiments import dist_probe

    gloo = [c for c in read_cards(CARDS) if (c.card, c.claim_id) == ("collectives", "gloo-reduce-scatter-is-allreduce")]
    assert len(gloo) == 1
    dist_probe.forget()
    started: list[int] = []
    monkeypatch.setattr(launch, "preload_for_fork", lambda: started.append(1))  # reached only past the refusal
    got = compute(gloo)["prepared"]
    assert gloo[0].asserts not in got.measured and gloo[0].asserts in got.symbolic and not started
    assert launch._REFUSAL is None


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_ledger_mutation_after_judging_ahead_is_still_judged(claims: list[Claim],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ahead = Ahead(claims)
    assert ahead.collect(timeout_s=240)
    zero3 = next(c for c in claims if c.claim_id == "en-zero3-memory-16psi-over-n")
    assert ahead.prepared.symbolic[zero3.asserts].verdict == "confirmed"  # type: ignore[union-attr]
    for fn in (ledger.optim_bytes, ledger.model_state_bytes):  # K 12 -> 14
        monkeypatch.setattr(fn, "__kwdefaults__", {**(fn.__kwdefaults__ or {}), "k": 14})
    reset_caches()  # what every mutation test calls
    # what was worked out before the mutation belongs to that run; a new run (a new Prepared) judges afresh
    assert judge(zero3, Evidence([]), Prepared())["verdict"] == "refuted"
    assert symbolic(parse(zero3.asserts)).verdict == "refuted"  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_failed_child_seeds_nothing(claims: list[Claim], monkeypatch: pytest.MonkeyPatch) -> None:
    import verify.judge.ahead as pj

    def boom(_items: object) -> dict[str, object]:
        raise RuntimeError("child failed")
    monkeypatch.setattr(pj, "_compute", boom)  # the children are forked: they run the patched function
    ahead = Ahead(claims)
    assert not ahead.collect(timeout_s=60)
    assert ahead.prepared == Prepared() and not ahead.verdicts


def test_split_keeps_cards_whole_and_parts_even() -> None:
    from verify.judge.ahead import split

    deck = read_cards(CARDS)
    parts = split(deck, 2)
    assert sorted(i for p in parts for i in p) == list(range(len(deck)))  # every claim once
    for card in {c.card for c in deck}:
        assert sum(any(deck[i].card == card for i in p) for p in parts) == 1  # a card in one part
    sizes = sorted(len(p) for p in parts)
    assert sizes[1] - sizes[0] <= max(sum(c.card == k for c in deck) for k in {c.card for c in deck})
    assert split(deck[:1], 4) == [[0]]  # no empty parts


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_claim_the_parent_takes_is_judged_by_no_child(claims: list[Claim]) -> None:
    """The parent steals from the end of each part while the children take from the start: each claim is
    computed once, by one of them, and together they cover every claim."""
    ahead = Ahead(claims, k=2)
    stolen = set(iter(ahead.steal, None))
    assert ahead.steal() is None
    assert ahead.collect(timeout_s=240)
    by_children = {i for i, c in enumerate(claims) if (c.text_zh, c.text_en, c.asserts) in ahead.prepared.drift}
    assert not stolen & by_children
    assert stolen | by_children == set(range(len(claims)))
    assert set(ahead.verdicts) <= by_children


def test_a_deck_without_claims_starts_no_child_and_leaves_nothing_to_take() -> None:
    ahead = Ahead([])
    assert ahead.procs == [] and ahead.steal() is None
    assert ahead.collect(timeout_s=5) and ahead.verdicts == {}

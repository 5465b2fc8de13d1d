"""Claims are judged from what they assert: the symbolic judge, measurements, text drift and stale quotes.

Judged from a stored sweep (``data/sweep_runs.json``: reference + PyTorch, N = 2 and 4, Ψ = 295,417) so
these tests run in seconds; ``test_verify_claims.py`` judges a fresh sweep.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.utils.judging import judge_all, judge_assertion
from verify.judge import Evidence
from verify.judge.contradictions import contradictions
from verify.judge.symbolic import symbolic
from verify.reading.asserts import AssertError, parse
from verify.reading.claims import read_cards

DATA = Path(__file__).parent / "data" / "sweep_runs.json"
CARDS = Path(__file__).resolve().parents[2] / "cards"

Runs = list[dict[str, Any]]  # the verify report's runs


@pytest.fixture(scope="module")
def runs() -> Runs:
    runs: Runs = json.loads(DATA.read_text())["runs"]
    return runs


def verdicts(cards: Path, runs: list[dict[str, Any]], slug: str = "zero-sharding",
             only: str | None = None) -> dict[str, dict[str, Any]]:
    """The verdicts of a card's claims (of the claim ``only`` alone, if given: each is judged on its own)."""
    claims = [c for c in read_cards(cards) if c.card == slug and only in (None, c.claim_id)]
    return {r["claim_id"]: r for r in judge_all(claims, Evidence(runs))}


# ------------------------------------------------------------------ the symbolic judge on known cases

def test_16psi_over_n_is_confirmed_for_every_n() -> None:
    out = symbolic(parse("model_state_bytes(zero3) == 16*Psi/N"))
    assert out is not None and out.verdict == "confirmed" and not out.condition


def test_14psi_over_n_is_refuted_with_the_smallest_counterexample() -> None:
    out = symbolic(parse("model_state_bytes(zero3) == 14*Psi/N"))
    assert out is not None and out.verdict == "refuted"
    assert out.counterexample == "N = 2: 8*Psi, claimed 7*Psi"


def test_zero1_4x_is_conditional_on_a_derived_limit_with_the_value_at_each_measured_n(runs: Runs) -> None:
    j = judge_assertion("reduction(ddp, zero1) == 4", Evidence(runs))
    assert j.verdict == "conditional" and j.condition == "only as N → ∞"
    assert j.counterexample == "N = 2: 1.6, claimed 4"
    got = {row["config"]: row["relations"][0]["value"] for row in j.evaluated}
    assert got == {"N=2": "1.6", "N=4": "2.286"}  # 16/(4 + 12/N) from measured bytes


def test_zero1_optimizer_4x_holds_only_at_the_solved_n() -> None:
    out = symbolic(parse("optim_bytes(ddp) / optim_bytes(zero1) == 4"))
    assert out is not None and (out.verdict, out.condition) == ("conditional", "only when N = 4")


def test_zero2_2x_is_conditional_and_states_the_reference_it_reads(runs: Runs) -> None:
    j = judge_assertion("reduction(zero1, zero2) == 2", Evidence(runs), reading="relative to ZeRO-1")
    assert j.verdict == "conditional"
    assert "only as N → ∞" in j.condition and "under the reading: relative to ZeRO-1" in j.condition
    vs_ddp = symbolic(parse("reduction(ddp, zero2) == 2"))  # against DDP the cut tends to 8x: no limit saves it
    assert vs_ddp is not None and vs_ddp.verdict == "refuted"
    assert symbolic(parse("reduction(ddp, zero2) == 8")).condition == "only as N → ∞"  # type: ignore[union-attr]


def test_a_reading_never_confirms(runs: Runs) -> None:
    j = judge_assertion("model_state_bytes(ddp) == 16*Psi", Evidence(runs), reading="16Ψ of which 12Ψ")
    assert (j.verdict, j.condition) == ("conditional", "under the reading: 16Ψ of which 12Ψ")


def test_inequalities_and_ratios() -> None:
    def v(src: str) -> str:
        out = symbolic(parse(src))
        assert out is not None
        return out.verdict

    assert v("comm_volume(zero3) / comm_volume(ddp) == 3/2") == "confirmed"
    assert v("comm_volume(zero3) / comm_volume(ddp) == 2") == "refuted"
    assert v("comm_volume(zero2) > comm_volume(zero1)") == "refuted"  # zh "ZeRO-2 略增"
    assert v("model_state_bytes(zero1) > model_state_bytes(zero2)") == "confirmed"
    assert v("comm_volume(zero2) == 2*Psi") == "conditional"  # 2(N-1)/N·Ψ → 2Ψ
    assert v("approx(model_state_bytes(zero1, Psi=7.5*billion, N=64) / GB, 31.4)") == "confirmed"
    assert v("approx(model_state_bytes(zero1, Psi=7.5*billion, N=64) / GB, 31.5)") == "refuted"
    assert v("approx(bubble_fraction(gpipe, p=4, m=8), 0.273)") == "confirmed"


def test_a_measurement_that_disagrees_with_the_ledger_refutes(runs: Runs) -> None:
    doctored = copy.deepcopy(runs)
    for r in doctored:
        if r["impl"] == "reference" and r["stage"] == "zero3":
            r["measured"]["grad_bytes"] *= 2  # as if ZeRO-3 kept its gradients twice
    j = judge_assertion("model_state_bytes(zero3) == 16*Psi/N", Evidence(doctored))
    assert j.verdict == "refuted" and "disagrees with the ledger" in j.counterexample
    assert judge_assertion("model_state_bytes(zero3) == 16*Psi/N", Evidence(runs)).verdict == "confirmed"


def test_measured_only_quantities_follow_the_data(runs: Runs) -> None:
    src = "collective_calls(zero3, all_gather, backward) == impl_collective_calls(fsdp2_reshard, all_gather, backward)"
    assert judge_assertion(src, Evidence(runs)).verdict == "confirmed"
    doctored = copy.deepcopy(runs)
    for r in doctored:
        if r["impl"] == "torch-fsdp2-reshard":
            r["measured"]["comm_calls"].pop("all_gather/backward")  # as if FSDP2 kept parameters to backward
    assert judge_assertion(src, Evidence(doctored)).verdict == "refuted"


@pytest.mark.parametrize(("src", "message"), [
    ("model_state_bytes(zero4) == 16*Psi/N", "'zero4'"),
    ("memory(zero3) == 16*Psi/N", "unknown name 'memory'"),
    ("model_state_bytes(zero3) == 16*Q/N", "unknown name 'Q'"),
    ("model_state_bytes(zero3).__class__", "'.' is not allowed"),
    ("model_state_bytes(zero3) + 1", "is not a relation"),
    ("16*Psi == 16*Psi", "names no quantity"),
    ("model_state_bytes(zero3) == (16*Psi", "cannot"),
    ("", "empty"),
])
def test_bad_asserts_say_what_and_how(src: str, message: str) -> None:
    with pytest.raises(AssertError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse(src)


# ------------------------------------------------------------------ the seed card, judged by its asserts

SEED = {  # verdicts the assertions must produce against the stored runs
    "en-total-16psi": "confirmed", "zh-total-14psi": "refuted", "en-zero3-memory-16psi-over-n": "confirmed",
    "zh-zero3-memory-14psi-over-n": "refuted", "zero1-memory-4x": "conditional", "zero2-memory-2x": "conditional",
    "zero3-comm-1-5x": "confirmed", "summary-comm-increases-each-stage": "refuted",
    "zero1-optimizer-state-16-bytes": "refuted", "zero3-prefetch-overlap": "unverifiable",
    "zero3-10gbps-90pct-comm-bound": "unverifiable", "fsdp-equivalent-to-zero3": "conditional",
    "insight-16psi-with-12psi-optimizer": "conditional",
}


def test_seed_card_claims_are_judged_by_their_asserts(runs: Runs) -> None:
    got = verdicts(CARDS, runs)
    assert {k: got[k]["verdict"] for k in SEED} == SEED
    assert all(r["verdict"] in ("confirmed", "conditional", "refuted", "unverifiable") for r in got.values())
    assert got["zero1-memory-4x"]["asserts"] == "reduction(ddp, zero1) == 4"
    assert got["zh-total-14psi"]["counterexample"] == "for every value: 16*Psi, claimed 14*Psi"
    assert [row["config"] for row in got["zero1-memory-4x"]["evaluated"]] == ["N=2", "N=4"]


def test_zh_and_en_that_disagree_are_one_contradiction(runs: Runs) -> None:
    rows = contradictions(list(verdicts(CARDS, runs).values()))
    pairs = {(r["zh"]["claim_id"], r["en"]["claim_id"]) for r in rows}
    assert ("zh-total-14psi", "en-total-16psi") in pairs
    assert ("zh-zero3-memory-14psi-over-n", "en-zero3-memory-16psi-over-n") in pairs
    assert ("zh-zero2-comm-slightly-more", "en-zero2-comm-identical-2psi") in pairs
    assert all(r["zh"]["verdict"] != r["en"]["verdict"] for r in rows)


# ------------------------------------------------------------------ editing the prose in a copy of the deck

EDITS = [  # (claim, old, new): the four edits, then more of our own
    ("zero1-memory-4x", r"reduces memory by $4\times$", r"reduces memory by $8\times$"),
    ("en-zero3-memory-16psi-over-n", r"Memory drops to $\frac{16\Psi}{N}$", r"Memory drops to $\frac{18\Psi}{N}$"),
    ("zero3-comm-1-5x", r"volume by $1.5\times$", r"volume by $2.5\times$"),
    ("zero1-memory-formula", r"2\Psi + 2\Psi + \frac{12\Psi}{N}", r"2\Psi + 2\Psi + \frac{10\Psi}{N}"),
    ("zero3-50pct-more-communication", "incurs 50% more", "incurs 80% more"),
    ("example-256gb-16b", "256GB for a 16B", "512GB for a 16B"),
    ("en-total-16psi", r"12\Psi = 16\Psi$ bytes", r"12\Psi = 18\Psi$ bytes"),
    ("zh-total-14psi", "v 4Ψ = 14Ψ 字节", "v 4Ψ = 15Ψ 字节"),
    ("zero1-optimizer-state-4x", "ZeRO-1 省 4 倍优化器状态", "ZeRO-1 省 6 倍优化器状态"),
]


def _edit(folder: Path, old: str, new: str, *, claim_too: bool) -> None:
    """Replace ``old`` in the card's prose, and in its claims too when ``claim_too``."""
    card = folder / "zero-sharding.md"
    text = card.read_text(encoding="utf-8")
    if claim_too:
        assert text.count(old) >= 2, old  # the prose and the claim quoting it
        card.write_text(text.replace(old, new), encoding="utf-8")
        return
    head, body = text.split("\n---\n", 1)
    assert old in body, old
    card.write_text(head + "\n---\n" + body.replace(old, new), encoding="utf-8")


@pytest.fixture()
def deck(tmp_path: Path) -> Path:
    shutil.copytree(CARDS, tmp_path / "cards")
    return tmp_path / "cards"


@pytest.mark.parametrize(("claim", "old", "new"), EDITS)
def test_editing_prose_and_claim_text_gives_mismatch(deck: Path, runs: Runs, claim: str, old: str,
                                                     new: str) -> None:
    before = verdicts(deck, runs, only=claim)[claim]["verdict"]
    _edit(deck, old, new, claim_too=True)
    after = verdicts(deck, runs, only=claim)[claim]
    assert after["verdict"] == "mismatch", (before, after["reason_en"])
    assert before != "mismatch"


@pytest.mark.parametrize(("claim", "old", "new"), EDITS)
def test_editing_only_the_prose_makes_the_claim_stale(deck: Path, runs: Runs, claim: str, old: str,
                                                      new: str) -> None:
    _edit(deck, old, new, claim_too=False)
    assert verdicts(deck, runs, only=claim)[claim]["verdict"] == "stale"


def test_editing_the_assertion_with_the_text_is_judged(deck: Path, runs: Runs) -> None:
    card = deck / "zero-sharding.md"
    text = card.read_text(encoding="utf-8")
    text = text.replace(r"reduces memory by $4\times$", r"reduces memory by $8\times$")
    text = text.replace("asserts: 'reduction(ddp, zero1) == 4'", "asserts: 'reduction(ddp, zero1) == 8'")
    text = text.replace(r"Memory drops to $\frac{16\Psi}{N}$", r"Memory drops to $\frac{18\Psi}{N}$")
    text = text.replace("asserts: 'model_state_bytes(zero3) == 16*Psi/N'",
                        "asserts: 'model_state_bytes(zero3) == 18*Psi/N'")
    card.write_text(text, encoding="utf-8")
    got = verdicts(deck, runs)
    assert got["zero1-memory-4x"]["verdict"] == "refuted"  # 16Ψ/(4Ψ+12Ψ/N) never reaches 8
    assert got["en-zero3-memory-16psi-over-n"]["verdict"] == "refuted"
    assert got["en-zero3-memory-16psi-over-n"]["counterexample"].startswith("N = 2: 8*Psi, claimed 9*Psi")


# ------------------------------------------------------------------ the pipeline card: simulated schedules

def test_pipeline_claims_are_judged_against_the_simulated_schedules() -> None:
    got = verdicts(CARDS, [], "pipeline-parallelism")
    assert got["pipeline-step-formula"]["verdict"] == "confirmed"
    assert got["pipeline-step-formula"]["method"] == "simulated"
    assert len(got["pipeline-step-formula"]["evaluated"]) >= 6  # every simulated (p, m, v)
    assert got["pipeline-bubble-fraction"]["verdict"] == "confirmed"
    # "the first stage holds p" fails when there are fewer micro-batches than stages
    assert got["pipeline-1f1b-imbalance"]["verdict"] == "refuted"
    assert got["pipeline-1f1b-imbalance"]["counterexample"] == "m = 1, p = 2: 1, claimed 2"


def test_a_wrong_pipeline_formula_is_refuted_by_the_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.judge.pipeline import reset_caches
    from verify.known.formulas import pipeline

    monkeypatch.setattr(pipeline, "bubble_fraction", lambda *, p, m: (p - 1) / (m + p))  # off by one
    reset_caches()
    try:
        j = judge_assertion("bubble_fraction(onef1b) == (p-1)/(m+p-1)", None)
        assert j.verdict == "refuted" and "disagrees with the ledger" in j.counterexample
    finally:
        monkeypatch.undo()
        reset_caches()
    assert judge_assertion("bubble_fraction(onef1b) == (p-1)/(m+p-1)", None).verdict == "confirmed"


PIPELINE_EDITS = [
    ("pipeline-bubble-fraction", r"$3/11 \approx 27.3\%$", r"$3/11 \approx 29.3\%$"),
    ("pipeline-bubble-over-ideal", r"$3/8 = 37.5\%$", r"$3/8 = 35.7\%$"),
    ("pipeline-rule-of-thumb", r"(p-1)/(5p-1) < 1/5", r"(p-1)/(4p-1) < 1/5"),
    ("pipeline-interleaved", r"$(p-1)/(vm)$", r"$(p-1)/(v^2 m)$"),
]


@pytest.mark.parametrize(("claim", "old", "new"), PIPELINE_EDITS)
def test_editing_the_pipeline_card(deck: Path, claim: str, old: str, new: str) -> None:
    card = deck / "pipeline-parallelism.md"
    text = card.read_text(encoding="utf-8")
    assert text.count(old) >= 2, old
    head, body = text.split("\n---\n", 1)
    card.write_text(head + "\n---\n" + body.replace(old, new), encoding="utf-8")
    assert verdicts(deck, [], "pipeline-parallelism", only=claim)[claim]["verdict"] == "stale"
    card.write_text(text.replace(old, new), encoding="utf-8")
    assert verdicts(deck, [], "pipeline-parallelism", only=claim)[claim]["verdict"] == "mismatch"


def test_vocabulary_formulas_written_over_symbols_agree_with_verify_formulas() -> None:
    from verify.known.formulas import checkpointing, pipeline
    from verify.known.vocabulary import QUANTITIES, SYMBOLS

    def at(name: str, args: tuple[str, ...], **values: int) -> float:
        expr = QUANTITIES[name].ledger(args)
        assert expr is not None
        return float(expr.subs({SYMBOLS[k]: v for k, v in values.items()}))

    for layers, seg in ((16, 1), (16, 2), (16, 4), (16, 8), (12, 3)):
        assert at("checkpoint_peak_units", (), L=layers, k=seg) == checkpointing.peak_units(layers=layers,
                                                                                           segments=seg)
        assert at("checkpoint_layer_forwards", (), L=layers, k=seg) == checkpointing.layer_forwards(
            layers=layers, segments=seg)
        assert at("recompute_overhead", (), k=seg) == pytest.approx(checkpointing.compute_overhead(
            layers=layers, segments=seg))
    for p_, m_ in ((4, 8), (2, 1), (8, 3)):
        for sched, name in (("gpipe", "gpipe"), ("onef1b", "1f1b")):
            assert at("in_flight_first_stage", (sched,), p=p_, m=m_) == pipeline.peak_in_flight(
                schedule=name, p=p_, m=m_, stage=0)
            assert at("in_flight_last_stage", (sched,), p=p_, m=m_) == pipeline.peak_in_flight(
                schedule=name, p=p_, m=m_, stage=p_ - 1)


COLLECTIVE_EDITS = [  # (card, claim, old, new) on other cards
    ("collectives", "gloo-reduce-scatter-is-allreduce", r"it sends $2(N-1)/N\cdot M$", r"it sends $(N-1)/N\cdot M$"),
    ("ddp-ring-allreduce", "ring-allreduce-example", "= 3.5$ GB", "= 4.5$ GB"),
    ("activation-checkpointing", "checkpoint-recompute-count", "$2L - L/k$ layer forwards", "$2L - k$ layer forwards"),
]


@pytest.mark.parametrize(("slug", "claim", "old", "new"), COLLECTIVE_EDITS)
def test_editing_other_cards(deck: Path, slug: str, claim: str, old: str, new: str) -> None:
    card = deck / f"{slug}.md"
    text = card.read_text(encoding="utf-8")
    head, body = text.split("\n---\n", 1)
    assert old in head and old in body, old
    card.write_text(head + "\n---\n" + body.replace(old, new), encoding="utf-8")
    assert verdicts(deck, [], slug, only=claim)[claim]["verdict"] == "stale"
    card.write_text(text.replace(old, new), encoding="utf-8")
    assert verdicts(deck, [], slug, only=claim)[claim]["verdict"] == "mismatch"


def test_checkpointing_claims_are_measured_per_k_including_fixed_values() -> None:
    got = verdicts(CARDS, [], "activation-checkpointing", only="checkpoint-peak-units")["checkpoint-peak-units"]
    assert got["verdict"] == "confirmed" and got["method"] == "measured"
    rows = got["evaluated"]
    assert [r["config"] for r in rows] == ["L=16 k=2", "L=16 k=4", "L=16 k=8"]
    # k = sqrt(L) is measured at k = 4 and compared with the ledger there, in every configuration
    assert all(r["quantities"]["checkpoint_peak_units(k=sqrt(L))"]["ledger"] == "7" for r in rows)

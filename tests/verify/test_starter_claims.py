"""The starter deck's claims are judged from what they assert: verdicts from real runs, and edits that move them.

    OMP_NUM_THREADS=1 python -m pytest tests/verify/test_starter_claims.py -q

No check function holds a claim's number. A prose edit makes the claim ``stale``; the same edit in the claim's
quote makes it a ``mismatch``; editing the assertion too is judged (``refuted``); doctored measurements refute.
The probes run once per process (cached): ~1–2 min on 2 cores for the slow tests.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.utils.judging import judge_all
from tests.utils.starter import CARDS, STARTER
from verify.judge import Evidence
from verify.known.vocabulary import model_parallel
from verify.measure.probes import LOCAL_RUNS
from verify.reading.claims import read_cards

ALL_CLAIMS = [c for c in read_cards(CARDS) if c.card in STARTER]
EVIDENCE = Evidence(runs=[])  # the starter quantities run their own probes; the ZeRO sweep is not needed

# every starter claim that is not confirmed, with its verdict (from `proofdeck verify`; see README)
NOT_CONFIRMED = {
    "mixed-precision-memory:activations-outside-16psi": "conditional",  # only the batch size is varied
    "mixed-precision-memory:transformer-activation-formula": "conditional",  # Korthikanti's kernels
    "pipeline-parallelism:pipeline-1f1b-imbalance": "refuted",  # m = 1 < p: the first stage holds 1, not p
    "ddp-ring-allreduce:bandwidth-term-near-2m": "conditional",  # 2M only as N → ∞
    "activation-checkpointing:checkpoint-summary-compute": "conditional",  # +33% only as k → ∞
    "activation-checkpointing:checkpoint-overhead-k4": "conditional",
    "activation-checkpointing:checkpoint-follow-up-optimum": "conditional",  # k + L/k ≈ (k−1) + L/k as L → ∞
    "activation-checkpointing:checkpoint-follow-up-compute": "conditional",
    # PyTorch's FSDP2 state between steps is measured by the ZeRO sweep, which this test does not run
    "fsdp-zero:reshard-false-still-sharded-between-steps": "unverifiable",
}


def _key(card: str, claim: str) -> str:
    return f"{card}:{claim}"


@pytest.fixture(scope="module")
def judged() -> dict[str, dict[str, Any]]:
    return {_key(r["card"], r["claim_id"]): r for r in judge_all(ALL_CLAIMS, EVIDENCE)}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_starter_claim_gets_its_verdict_from_its_asserts(judged: dict[str, dict[str, Any]]) -> None:
    wrong = {}
    for key, r in judged.items():
        expected = ("unverifiable" if next(c for c in ALL_CLAIMS if _key(c.card, c.claim_id) == key).unverifiable
                    else NOT_CONFIRMED.get(key, "confirmed"))
        # claims whose text names a reading are at best conditional: listed by their reading
        if r["reading"] and expected == "confirmed":
            expected = "conditional"
        if r["verdict"] != expected:
            wrong[key] = (r["verdict"], expected, r["reason_en"][:200])
        assert "judged" not in r and "check" not in r  # gone: every verdict comes from the asserts
        if r["verdict"] == "conditional":
            assert r["condition"], key
        if r["verdict"] == "refuted":  # where it fails, as text and as data
            assert r["counterexample"] and r["counterexamples"], key
            assert r["counterexample"] == "; ".join(c["text"] or (f"{c['at']}: " if c["at"] else "")
                                                    + f"{c['value']}, claimed {c['claimed']}"
                                                    for c in r["counterexamples"]), key
    assert not wrong


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_measured_claims_show_each_configuration(judged: dict[str, dict[str, Any]]) -> None:
    # the converted legacy checks are measurements now, shown per configuration next to the ledger
    for key, configs in {
        "mixed-precision-memory:mixed-precision-16-bytes": {"CPU b=8", "CPU b=16", "CPU b=32"},
        "tensor-parallelism:tp-allreduces-per-layer": {"Gloo t=2"},
        "fsdp-zero:reshard-true-collectives": {"Gloo N=2", "Gloo N=4"},
        "fsdp-zero:reshard-int-collectives": {"Gloo N=4"},
        "ddp-ring-allreduce:ddp-bucket-caps": {"Gloo N=2"},
        "collectives:gloo-broadcast-at-4": {"Gloo N=4"},
    }.items():
        r = judged[key]
        # the TP all-reduce count holds because the operators are written so: construction, not measured
        # FSDP2's ring volume is its measured payloads run through the ring simulator: simulated, and so the claim
        assert r["method"] == {"tensor-parallelism:tp-allreduces-per-layer": "construction",
                               "fsdp-zero:reshard-true-collectives": "simulated"}.get(key, "measured"), key
        assert {row["config"] for row in r["evaluated"] if "relations" in row} == configs, key
    assert judged["zero-offload-infinity:offload-breakeven-follow-up"]["method"] == "calculated"


def test_no_claim_names_a_check_function() -> None:
    assert {c.card for c in ALL_CLAIMS} == set(STARTER)
    for path in CARDS.glob("*.md"):
        assert "\n    check:" not in path.read_text(encoding="utf-8") and "\n  check:" not in path.read_text(
            encoding="utf-8"), path
    assert all(c.asserts or c.unverifiable for c in ALL_CLAIMS)


# ------------------------------------------------------------------ edits in a copy of the deck

STARTER_EDITS = [  # (card, claim, old, new): old occurs in the prose and in the claim's quote
    ("mixed-precision-memory", "mixed-precision-16-bytes", "12 bytes of optimizer state (75%)",
     "12 bytes of optimizer state (80%)"),
    ("mixed-precision-memory", "seven-b-model-state", r"$12\times 7\times10^{9} = 84$ GB",
     r"$12\times 7\times10^{9} = 96$ GB"),
    ("mixed-precision-memory", "float-format-limits", r"| 65504 | $2^{-14}$ |", r"| 65504 | $2^{-15}$ |"),
    ("mixed-precision-memory", "megatron-18-bytes", "counts 18 bytes per parameter", "counts 19 bytes per parameter"),
    ("tensor-parallelism", "tp-weight-shard", r"$12h^2/t$ per rank.", r"$8h^2/t$ per rank."),
    ("tensor-parallelism", "tp-comm-example", r"$4\times 112 = 448$ MiB", r"$4\times 112 = 224$ MiB"),
    ("fsdp-zero", "reshard-true-collectives", r"$3(N-1)/N\cdot\Psi$, 1.5 times DDP",
     r"$4(N-1)/N\cdot\Psi$, 1.5 times DDP"),
    ("fsdp-zero", "reshard-int-collectives", r"keeps $\Psi/k$ after forward", r"keeps $\Psi/N$ after forward"),
    ("ddp-ring-allreduce", "ddp-bucket-caps", "Buckets (25 MiB cap", "Buckets (32 MiB cap"),
    ("zero-offload-infinity", "offload-breakeven-tokens", r"= \frac{4\Psi}{B} \;", r"= \frac{5\Psi}{B} \;"),
    ("zero-offload-infinity", "offload-13b-26gb", "need only 26 GB of GPU memory", "need only 39 GB of GPU memory"),
    ("pipeline-parallelism", "pipeline-rule-of-thumb-20pct", r"keeps it at $(p-1)/(5p-1) < 20\%$",
     r"keeps it at $(p-1)/(5p-1) < 25\%$"),
    ("activation-checkpointing", "checkpoint-overhead-k4", r"$0.75/3 = 25\%$ at $k=4$", r"$0.75/3 = 20\%$ at $k=4$"),
    ("collectives", "collective-cost-table", r"| all-reduce (ring) | $2(N-1)$ |", r"| all-reduce (ring) | $3(N-1)$ |"),
]


@pytest.fixture()
def deck(tmp_path: Path) -> Path:
    shutil.copytree(CARDS, tmp_path / "cards")
    return tmp_path / "cards"


def _verdict(folder: Path, slug: str, claim: str) -> dict[str, Any]:
    one = [c for c in read_cards(folder) if c.card == slug and c.claim_id == claim]
    return judge_all(one, EVIDENCE)[0]


@pytest.mark.parametrize(("slug", "claim", "old", "new"), STARTER_EDITS, ids=[e[1] for e in STARTER_EDITS])
def test_a_prose_edit_is_stale_and_a_quote_edit_is_a_mismatch(deck: Path, slug: str, claim: str, old: str,
                                                               new: str) -> None:
    card = deck / f"{slug}.md"
    text = card.read_text(encoding="utf-8")
    head, body = text.split("\n---\n", 1)
    assert old in head and old in body, old
    card.write_text(head + "\n---\n" + body.replace(old, new), encoding="utf-8")
    assert _verdict(deck, slug, claim)["verdict"] == "stale"
    card.write_text(text.replace(old, new), encoding="utf-8")
    got = _verdict(deck, slug, claim)
    assert got["verdict"] == "mismatch", got["reason_en"]


ASSERT_EDITS = [  # (card, claim, [(old, new) in prose and quotes, zh and en], (old, new) in asserts) → refuted
    ("mixed-precision-memory", "mixed-precision-16-bytes",
     [("12 bytes of optimizer state (75%)", "12 bytes of optimizer state (80%)"), ("12 字节（75%）", "12 字节（80%）")],
     ("== 75*percent", "== 80*percent")),
    ("tensor-parallelism", "tp-weight-shard",
     [(r"$12h^2/t$ per rank.", r"$8h^2/t$ per rank."), (r"每 rank $12h^2/t$。", r"每 rank $8h^2/t$。")],
     ("(tp_weights_per_rank() == 12*h**2/t)", "(tp_weights_per_rank() == 8*h**2/t)")),
    ("fsdp-zero", "reshard-int-collectives",
     [(r"keeps $\Psi/k$ after forward", r"keeps $\Psi/N$ after forward"), (r"前向后留 $\Psi/k$", r"前向后留 $\Psi/N$")],
     ("== Psi/k)", "== Psi/N)")),
    ("ddp-ring-allreduce", "ddp-bucket-caps",
     [("Buckets (25 MiB cap, 1 MiB first", "Buckets (25 MiB cap, 0.5 MiB first"), ("首桶 1 MiB）", "首桶 0.5 MiB）")],
     ("C_1=1*MiB", "C_1=0.5*MiB")),
]


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("slug", "claim", "texts", "asserts"), ASSERT_EDITS, ids=[e[1] for e in ASSERT_EDITS])
def test_editing_text_and_assertion_together_is_refuted(deck: Path, slug: str, claim: str,
                                                        texts: list[tuple[str, str]], asserts: tuple[str, str]) -> None:
    card = deck / f"{slug}.md"
    text = card.read_text(encoding="utf-8")
    for old, new in texts:
        assert text.count(old) >= 2, old  # the prose and the claim quoting it
        text = text.replace(old, new)
    assert asserts[0] in text, asserts[0]
    card.write_text(text.replace(asserts[0], asserts[1]), encoding="utf-8")
    got = _verdict(deck, slug, claim)
    assert got["verdict"] == "refuted", got["reason_en"]
    assert got["counterexample"]


# ------------------------------------------------------------------ doctored measurements refute

# Each doctored test judges afresh (the `fresh` fixture): a sweep run earlier in this process (the shared
# `report`, a CLI test) leaves its single-process experiments and probes cached in this process, and a cached
# measurement would bypass the doctored one.
def _claim(slug: str, claim: str) -> dict[str, Any]:
    return judge_all([c for c in ALL_CLAIMS if (c.card, c.claim_id) == (slug, claim)], EVIDENCE)[0]


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("fresh")
def test_a_tp_layer_with_an_extra_all_reduce_refutes(monkeypatch: pytest.MonkeyPatch) -> None:
    real = model_parallel._tp()
    fake = copy.deepcopy(real)
    fake["records"].append({**next(r for r in real["records"] if r["phase"] == "forward"), "phase": "forward"})
    monkeypatch.setattr(model_parallel, "_tp", lambda: fake)
    got = _claim("tensor-parallelism", "tp-allreduces-per-layer")
    assert got["verdict"] == "refuted" and "tp_allreduces_per_layer(forward) measured 3, ledger 2" in got[
        "counterexample"]


@pytest.mark.usefixtures("fresh")
def test_a_model_state_without_master_weights_refutes(monkeypatch: pytest.MonkeyPatch) -> None:
    # a mixed-precision step that kept no fp32 master copy measures 12 bytes per parameter: 16 is refuted
    def fake(name: str, *args: Any) -> Any:
        if name == "mixed_precision_state":
            return {"psi": 1000, "bytes": {"param": 2000, "grad": 2000, "master": 0, "adam_m_v": 8000,
                                           "adam_step_counters": 8}}
        if name == "saved_activation_bytes":
            return {"8": {"saved_bytes": 800, "model_state_bytes": 10}}
        raise AssertionError(name)

    monkeypatch.setattr(LOCAL_RUNS, "get", fake)
    got = _claim("mixed-precision-memory", "mixed-precision-16-bytes")
    assert got["verdict"] == "refuted"
    assert "bytes_per_param(mixed_adam, master) measured 0, ledger 4" in got["counterexample"]


@pytest.mark.usefixtures("fresh")
def test_activations_that_do_not_grow_with_the_batch_refute(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = {"8": {"saved_bytes": 800, "model_state_bytes": 10}, "16": {"saved_bytes": 800, "model_state_bytes": 10}}
    state = {"psi": 1, "bytes": {"param": 2, "grad": 2, "master": 4, "adam_m_v": 8, "adam_step_counters": 0}}
    monkeypatch.setattr(LOCAL_RUNS, "get", lambda name, *a: runs if name == "saved_activation_bytes" else state)
    got = _claim("mixed-precision-memory", "activations-outside-16psi")
    assert got["verdict"] == "refuted" and got["counterexample"].startswith("CPU b=16")


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("fresh")
def test_ddp_buckets_the_cap_rule_does_not_predict_refute(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.measure import probes as starter_common

    real = starter_common.probe(2)
    fake = copy.deepcopy(real)
    fake["ddp"]["None"]["allreduce_bytes"] = [sum(fake["ddp"]["None"]["allreduce_bytes"])]  # one giant bucket
    monkeypatch.setattr(starter_common, "probe", lambda n: fake)
    got = _claim("ddp-ring-allreduce", "ddp-bucket-caps")
    assert got["verdict"] == "refuted" and "ddp_buckets_unexplained" in got["counterexample"]


@pytest.mark.usefixtures("fresh")
def test_gloo_wire_claim_refutes_a_ring_reduce_scatter(monkeypatch: pytest.MonkeyPatch) -> None:
    # If Gloo's reduce-scatter sent only the ring's (N−1)/N·M, the claim "it sends 2(N−1)/N·M" is refuted.
    from tests.utils.judging import judge_assertion
    from verify.measure import probes as starter_common
    from verify.measure.experiments.sizes import WIRE_ELEMENTS

    def fake_probe(n: int) -> dict[str, Any]:
        sent = int((n - 1) / n * WIRE_ELEMENTS * 4)
        return {"wire_by_rank": [{"reduce_scatter": sent} for _ in range(n)]}

    monkeypatch.setattr(starter_common, "probe", fake_probe)
    j = judge_assertion("gloo_wire_send(reduce_scatter) == 2*(N-1)/N*M", EVIDENCE)
    assert j.verdict == "refuted" and "disagrees with the ledger" in j.counterexample

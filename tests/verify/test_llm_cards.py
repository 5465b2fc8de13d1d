"""The LLM-arithmetic cards (issue 19): every claim judged from its ``asserts`` against what runs here, and
mutations of a card's number or of a formula change verdicts.

    OMP_NUM_THREADS=1 python -m pytest tests/verify/test_llm_cards.py -q

The measurements (a tiny torch.nn decoder, FlopCounterMode, saved_tensors_hooks, torch.optim, torch.finfo,
real quantized tensors, the FlashAttention IO simulator) run once per process (cached).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sympy as sp

from tests.utils.judging import judge_all
from verify.judge import Evidence
from verify.judge.pipeline import reset_caches
from verify.judge.statements.coverage import card_coverage
from verify.known import drills
from verify.reading.claims import Claim, read_cards

CARDS = Path(__file__).resolve().parents[2] / "cards"
LLM_CARDS = ("transformer-parameter-count", "training-flops", "activation-memory", "kv-cache",
             "prefill-decode-roofline", "flash-attention-io", "optimizer-state-memory", "fp8-formats", "lora-qlora",
             "weight-quantization")
EVIDENCE = Evidence(runs=[])  # these families run their own measurements; the ZeRO sweep is not needed
NOT_CONFIRMED: dict[str, str] = {}  # every claim without a reading is confirmed (readings make it conditional)
# the families these cards' quantities are measured in; their meters are mutated here (one claim per quantity),
# the others' in tests/verify/test_mutations.py
LLM_FAMILIES = frozenset({"decoder", "flash_io", "attention_memory", "optimizer", "fp8", "lora", "quant"})


def _claims(folder: Path = CARDS, cards: tuple[str, ...] = LLM_CARDS) -> list[Claim]:
    return [c for c in read_cards(folder) if c.card in cards]


def _verdicts(claims: list[Claim]) -> dict[str, dict[str, Any]]:
    return {f"{r['card']}:{r['claim_id']}": r for r in judge_all(claims, EVIDENCE)}


@pytest.fixture(scope="module")
def judged(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Their verdicts in the shared sweep's report (tests/verify/conftest.py), which judges every bundled claim
    once per run with these same experiments (they read none of the sweep's runs); judging them again here
    cost ~20 s of CPU. The mutation tests below judge afresh."""
    return {f"{r['card']}:{r['claim_id']}": r for r in report["claims"] if r["card"] in LLM_CARDS}


def _one(folder: Path, card: str, claim: str) -> dict[str, Any]:
    return _verdicts([c for c in _claims(folder, (card,)) if c.claim_id == claim])[f"{card}:{claim}"]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_claim_gets_the_verdict_its_asserts_earn(judged: dict[str, dict[str, Any]]) -> None:
    wrong = {}
    for c in _claims():
        key = f"{c.card}:{c.claim_id}"
        want = "unverifiable" if c.unverifiable else "conditional" if c.reading else NOT_CONFIRMED.get(key, "confirmed")
        got = judged[key]
        if got["verdict"] != want:
            wrong[key] = (got["verdict"], want, got["reason_en"][:200])
    assert not wrong, wrong


def check_measured_not_calculated(judged: dict[str, dict[str, Any]]) -> None:
    """Each card has claims judged on something that ran here, with the measurement shown per configuration."""
    for card in LLM_CARDS:
        rows = [r for r in judged.values() if r["card"] == card]
        methods = {r["extra"].get("method") for r in rows}
        assert methods & {"measured", "simulated"}, (card, methods)
        measured = [r for r in rows if r["extra"].get("method") in ("measured", "simulated")]
        assert all(any("relations" in e for e in r["evaluated"]) for r in measured), card


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_measured_claims_are_measured_not_calculated(judged: dict[str, dict[str, Any]]) -> None:
    check_measured_not_calculated(judged)


@pytest.mark.parametrize("card", LLM_CARDS)
def test_card_is_complete(card: str) -> None:
    """All five sections and three answered follow-ups in both languages, two links, coverage ≥ 90 %."""
    from app.cards.cardfile import load_card_file

    doc = load_card_file(CARDS / f"{card}.md")
    assert set(doc.sections) == {"summary", "insights", "derivation", "tradeoffs", "pitfalls"}
    assert all(s.zh and s.en for s in doc.sections.values())
    answered = [f for f in doc.follow_ups if f.answer.zh and f.answer.en and f.question.zh and f.question.en]
    assert len(answered) >= 3
    assert len(doc.links) >= 2 and doc.title.zh and doc.title.en
    cov = card_coverage(CARDS / f"{card}.md")
    assert cov.ratio >= 0.9, cov.unchecked


@pytest.mark.parametrize("card", [c for c in LLM_CARDS if c != "fp8-formats"])
def test_cards_with_numeric_formulas_have_drills(card: str) -> None:
    assert drills.drills_for_card(card)


@pytest.mark.parametrize(("key", "params", "expected"), [
    ("decoder-params-m", {"h": 768, "layers": 12, "vocab": 50257, "ctx": 1024}, 124.439808),  # GPT-2 small
    ("train-days", {"psi_b": 175, "tokens_b": 300, "gpus": 1024, "mfu": 0.5}, 3.15e23 / (1024 * 156e12) / 86400),
    ("kv-cache-gib", {"layers": 32, "kv_heads": 32, "tokens": 4096, "batch": 1}, 2.0),  # LLaMA-2-7B, 2 GiB
    ("flash-io-ratio", {"s": 2048, "d": 64}, 17301504 / 3608576),
    ("optimizer-state-gb", {"psi_b": 7, "opt": "Adam"}, 112.0),
    ("lora-trainable-m", {"r": 8, "h": 4096, "layers": 32, "per_layer": 2}, 4.194304),
    ("quantized-weights-gb", {"psi_b": 7, "bits": 4, "group": 128}, 7 * 4.125 / 8),
])
def test_drills_give_the_cards_worked_numbers(key: str, params: dict[str, Any], expected: float) -> None:
    assert drills.answer(key, params) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------ a wrong number on a card

EDITS = [  # (card, claim, old, new): the same edit in the prose and the claim's quote and assertion. Only stated
    # numbers are compared with the assertion (TeX, "4×", "50%", "2 GB": issue 11); a bare number is not a statement
    ("transformer-parameter-count", "layer-12h2-13h", "12h^2 + 13h", "12h^2 + 12h"),
    ("kv-cache", "llama2-7b", "524{,}288", "786{,}432"),
    ("fp8-formats", "e4m3-not-ieee", "= 448$", "= 480$"),
    ("training-flops", "three-times-forward", "4×", "5×"),
    ("weight-quantization", "seven-b-sizes", "= 4.125$", "= 4.25$"),
    ("optimizer-state-memory", "measured-states", r"$\frac{8}{h}$", r"$\frac{6}{h}$"),
]
ASSERT_EDITS = {
    "layer-12h2-13h": ("13*h", "12*h"), "llama2-7b": ("== 524288", "== 786432"),
    "e4m3-not-ieee": ("1.75*2**8)", "1.875*2**8)"), "three-times-forward": ("4*forward", "5*forward"),
    "seven-b-sizes": ("G=128) == 4.125)", "G=128) == 4.25)"),
    "measured-states": ("(adafactor) == 8/h)", "(adafactor) == 6/h)"),
}


def _edited_deck(tmp_path: Path, card: str, old: str, new: str, claim: str, *, prose: bool, quote: bool,
                 assertion: bool) -> Path:
    """A copy of one card with the edit applied to its prose, its claim's quote and/or its assertion."""
    import yaml

    from verify.reading.cardfile import split

    text = (CARDS / f"{card}.md").read_text(encoding="utf-8")
    card_text = split(text, f"{card}.md")
    data, body = dict(card_text.meta), card_text.body
    for c in data["claims"]:
        if c["id"] != claim:
            continue
        if quote:
            c["text"] = {lang: t.replace(old, new) for lang, t in c["text"].items()}
        if assertion:
            a_old, a_new = ASSERT_EDITS[claim]
            assert a_old in c["asserts"], (claim, a_old)
            c["asserts"] = c["asserts"].replace(a_old, a_new)
    if prose:  # the card's sections and follow-up answers
        answers = [f["answer"] for f in data.get("follow_ups", [])]
        assert old in body or any(old in a for f in answers for a in f.values()), (card, old)
        body = body.replace(old, new)
        for f in data.get("follow_ups", []):
            f["answer"] = {lang: a.replace(old, new) for lang, a in f["answer"].items()}
    out = tmp_path / "cards"
    out.mkdir(parents=True)
    (out / f"{card}.md").write_text("---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + "---\n"
                                    + body, encoding="utf-8")
    return out


@pytest.mark.parametrize(("card", "claim", "old", "new"), EDITS)
def test_a_wrong_number_on_a_card_changes_its_verdict(tmp_path: Path, card: str, claim: str, old: str,
                                                      new: str) -> None:
    folder = _edited_deck(tmp_path, card, old, new, claim, prose=True, quote=True, assertion=True)
    got = _one(folder, card, claim)
    assert got["verdict"] == "refuted", got["reason_en"]
    # the prose alone edited: the quote no longer occurs (stale); quote without assertion: mismatch
    folder = _edited_deck(tmp_path / "p", card, old, new, claim, prose=True, quote=False, assertion=False)
    assert _one(folder, card, claim)["verdict"] == "stale"
    folder = _edited_deck(tmp_path / "q", card, old, new, claim, prose=True, quote=True, assertion=False)
    assert _one(folder, card, claim)["verdict"] == "mismatch"


# ------------------------------------------------------------------ a wrong formula

MUTATIONS: list[tuple[str, str, Any, str]] = [
    # (module, attribute, wrong formula, a claim it must refute: the measurement disagrees with the ledger)
    ("verify.known.formulas.transformer_params", "layer_params", lambda *, h: 12 * h**2 + 12 * h,
     "transformer-parameter-count:layer-12h2-13h"),
    ("verify.known.formulas.training_flops", "forward_flops",
     lambda *, h, layers, vocab, s, b: 2 * (12 * layers * h**2 + vocab * h) * b * s,  # attention left out
     "training-flops:forward-formula"),
    ("verify.known.formulas.kv_cache", "bytes_per_token", lambda *, layers, kv_heads, head_dim, elem:
     layers * kv_heads * head_dim * elem, "kv-cache:per-token-formula"),  # K only: the factor 2 dropped
    ("verify.known.formulas.activation_memory", "layer_bytes", lambda *, s, b, h, a: s * b * h * (34 + 4 * a * s / h),
     "activation-memory:per-layer-formula"),
    ("verify.known.formulas.roofline", "linear_bytes", lambda *, tokens, h, elem: elem * h**2,
     "prefill-decode-roofline:decode-intensity"),  # weights only: activations' bytes dropped
    ("verify.known.formulas.flash_attention", "standard_accesses", lambda *, n, d: 4 * n * d + 3 * n**2,
     "flash-attention-io:standard-accesses"),
    ("verify.known.formulas.optimizer_state", "state_bytes", lambda *, opt, rows, cols, block=2048: 12 * rows * cols,
     "optimizer-state-memory:measured-torch"),
    ("verify.known.formulas.fp8", "FP8", {"fp8_e4m3": (4, 3, False), "fp8_e5m2": (5, 2, False)},  # E4M3 as IEEE: 240
     "fp8-formats:e4m3-not-ieee"),
    ("verify.known.formulas.lora", "trainable", lambda *, r, d_in, d_out: r * d_in, "lora-qlora:measured-layer"),
    ("verify.known.formulas.quantization", "bits_per_param", lambda *, bits, group, scale_bits=16: bits + 32 / group,
     "weight-quantization:measured-bytes"),
]


@pytest.mark.parametrize(("module", "attr", "wrong", "claim"), MUTATIONS, ids=[m[3] for m in MUTATIONS])
def test_a_wrong_formula_is_refuted_by_the_measurement(monkeypatch: pytest.MonkeyPatch, fresh: None, module: str,
                                                       attr: str, wrong: Any, claim: str) -> None:
    import importlib

    card, cid = claim.split(":")
    target = [c for c in _claims(cards=(card,)) if c.claim_id == cid]
    assert _verdicts(target)[claim]["verdict"] in ("confirmed", "conditional")
    monkeypatch.setattr(importlib.import_module(module), attr, wrong)
    reset_caches()
    got = _verdicts(target)[claim]
    assert got["verdict"] == "refuted", got["reason_en"]
    assert "measur" in got["reason_en"] or "measured" in str(got.get("counterexample", "")), got["reason_en"]


def _llm_measured_names() -> list[str]:
    from verify.known.vocabulary import QUANTITIES

    used = {n for c in _claims() if c.asserts for n, q in QUANTITIES.items() if q.family in LLM_FAMILIES
            and f"{n}(" in c.asserts}
    return sorted(n for n in used if QUANTITIES[n].measure is not None)


@pytest.mark.parametrize("name", _llm_measured_names())
def test_every_measured_quantity_has_a_flipping_mutation(name: str) -> None:
    """The meter's reading × 5/4 + 1 flips the verdict of a claim that names it (the first two claims that do)."""
    import dataclasses

    from tests.verify.test_mutations import _scaled
    from verify.known.vocabulary import QUANTITIES

    using = [c for c in _claims() if c.asserts and f"{name}(" in c.asserts][:2]
    before = _verdicts(using)
    with pytest.MonkeyPatch.context() as mp:
        q = QUANTITIES[name]
        mp.setitem(QUANTITIES, name, dataclasses.replace(q, measure=_scaled(q.measure)))
        after = _verdicts(using)
    assert any(after[k]["verdict"] != before[k]["verdict"] for k in before), {k: v["verdict"] for k, v in after.items()}


def test_flash_simulator_computes_attention_and_counts_what_the_paper_counts() -> None:
    from verify.known.formulas.flash_attention import flash_accesses, standard_accesses
    from verify.measure.sim.flash_attention import run

    r = run(n=128, d=16, sram=1024)
    assert r.max_abs_error < 1e-12  # the tiled output is attention's
    assert r.standard_accesses == standard_accesses(n=128, d=16)
    assert r.flash_accesses == flash_accesses(n=128, d=16, sram=1024)
    assert sp.Rational(r.standard_accesses, r.flash_accesses) > 1


def test_decoder_counts_match_pytorchs_own_layer() -> None:
    from verify.measure.experiments.decoder import measure

    r = measure(64, 4, 2, 2, 96, 12, 2)
    assert r["layer_params"] == r["torch_layer_params"] == 12 * 64**2 + 13 * 64
    assert r["train_flops"] == 3 * r["forward_flops"] and r["recompute_flops"] == 4 * r["forward_flops"]
    assert r["kv_cache_bytes"] == {"mha": 12288, "gqa": 6144, "mqa": 3072}


def test_llm_quantities_import_without_torch() -> None:
    import subprocess
    import sys

    code = ("import sys; import verify.known.vocabulary, verify.known.drills, verify.judge; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_deck_graph_stays_connected_and_links_resolve() -> None:
    """Every new card links to ≥ 2 cards; every link target is a card of the deck; the graph is connected."""
    from verify.reading.cardfile import read_card

    slugs = {p.stem for p in CARDS.glob("*.md") if p.name != "README.md"}
    edges: dict[str, set[str]] = {s: set() for s in slugs}
    for s in slugs:
        data = read_card(CARDS / f"{s}.md").meta
        for link in data.get("links") or []:
            target = link.get("slug")
            assert target in slugs, (s, target)
            edges[s].add(target)
            edges[target].add(s)
    for s in LLM_CARDS:
        assert len(edges[s]) >= 2, s
    seen, todo = set(), ["zero-sharding"]
    while todo:
        cur = todo.pop()
        if cur not in seen:
            seen.add(cur)
            todo += sorted(edges[cur] - seen)
    assert seen == slugs, slugs - seen

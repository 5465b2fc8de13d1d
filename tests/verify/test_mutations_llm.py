"""Mutations of the LLM-systems cards (issue 19): a wrong formula, a wrong simulator or a wrong number on a card
must each change a verdict.

Formula mutations patch one function of ``verify.known.formulas`` (the ledger the claims are judged against) and judge
the claims of the canon cards that name its quantity; simulator mutations patch ``verify.measure.sim``; card mutations
edit a copy of the deck, in the prose and the claim's quote (→ mismatch), and in the assertion too (→ refuted).
The meters of every measured quantity are mutated by ``test_mutations.test_every_measured_quantity_...``.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from verify.judge import Evidence, judge
from verify.judge.pipeline import reset_caches
from verify.known.formulas import checkpoint_interval as ci
from verify.known.formulas import grad_accumulation as ga
from verify.known.formulas import kv_paging as kv
from verify.known.formulas import moe
from verify.known.formulas import parallel_3d as p3
from verify.known.formulas import sequence_parallel as cp
from verify.known.formulas import sharded_checkpoint as sc
from verify.known.formulas import speculative as spec
from verify.known.formulas import tp_inference as tpi
from verify.measure.sim import speculative as spec_sim
from verify.reading.claims import Claim, read_cards

CARDS = Path(__file__).resolve().parents[2] / "cards"
CANON_B = {"sequence-parallelism", "expert-parallelism-moe", "3d-parallelism", "gradient-accumulation",
           "nccl-ring-vs-tree", "paged-kv-cache-continuous-batching", "speculative-decoding",
           "tp-inference-communication", "sharded-checkpointing", "checkpoint-interval-young-daly"}
MP = pytest.MonkeyPatch


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return [c for c in read_cards(CARDS) if c.card in CANON_B and c.asserts]


@pytest.fixture(scope="module")
def baseline(claims: list[Claim]) -> dict[str, str]:
    """Every canon claim's verdict without a mutation (judged once for the module)."""
    reset_caches()
    return {f"{c.card}:{c.claim_id}": judge(c, Evidence([]))["verdict"] for c in claims}


def verdicts(claims: list[Claim], names: set[str]) -> dict[str, str]:
    chosen = [c for c in claims if any(f"{n}(" in c.asserts for n in names)]
    assert chosen, f"no canon claim names {names}"
    reset_caches()
    try:
        return {f"{c.card}:{c.claim_id}": judge(c, Evidence([]))["verdict"] for c in chosen}
    finally:
        reset_caches()


def _wrap(mp: MP, module: Any, name: str, change: Callable[..., Any]) -> None:
    orig = getattr(module, name)
    mp.setattr(module, name, lambda **kw: change(orig, **kw))


FORMULA_MUTATIONS: dict[str, tuple[Callable[[MP], None], set[str]]] = {
    "speculative (1-a^(g+1))/(1-a) -> (1-a^g)/(1-a)": (
        lambda mp: mp.setattr(spec, "tokens_per_step", lambda *, alpha, gamma: (1 - alpha**gamma) / (1 - alpha)),
        {"spec_tokens_per_step", "spec_speedup"}),
    "speed-up without the draft cost": (
        lambda mp: mp.setattr(spec, "speedup", lambda *, alpha, gamma, c: spec.tokens_per_step(alpha=alpha,
                                                                                              gamma=gamma)),
        {"spec_speedup"}),
    "Young sqrt(2 delta mu) -> sqrt(delta mu)": (
        lambda mp: _wrap(mp, ci, "young_interval", lambda f, **kw: f(**kw) / 2 ** 0.5 if "sqrt" not in kw
                         else kw["sqrt"](kw["delta"] * kw["mu"])),
        {"young_interval"}),
    "exact waste ignoring failures while writing": (
        lambda mp: _wrap(mp, ci, "expected_waste", lambda f, **kw: f(**{**kw, "delta": 0})),
        {"ckpt_waste"}),
    "paged waste (B-1)/2 -> B/2": (
        lambda mp: mp.setattr(kv, "paged_waste_tokens", lambda *, block: block / 2), {"kv_paged_waste_tokens"}),
    "contiguous waste (L-1)/(2L) -> 1/2": (
        lambda mp: mp.setattr(kv, "contiguous_waste_fraction", lambda *, l_max: 1 / 2 + 0 * l_max),
        {"kv_contiguous_waste_fraction"}),
    "MoE all-to-all without (N-1)/N": (
        lambda mp: _wrap(mp, moe, "a2a_send", lambda f, **kw: f(**kw) * kw["n"] / (kw["n"] - 1)), {"moe_a2a_send"}),
    "ring attention N steps instead of N-1": (
        lambda mp: _wrap(mp, cp, "ring_attention_send", lambda f, **kw: f(**kw) * kw["n"] / (kw["n"] - 1)),
        {"ring_attn_send"}),
    "Ulysses (N-1)/N^2 -> (N-1)/N": (
        lambda mp: _wrap(mp, cp, "ulysses_send", lambda f, **kw: f(**kw) * kw["n"]), {"ulysses_send"}),
    "checkpoint 12 bytes per parameter -> 16": (
        lambda mp: mp.setattr(sc.checkpoint_bytes, "__kwdefaults__", {"bytes_per_param": 16}),
        {"dcp_data_bytes", "dcp_rank_bytes"}),
    "no_sync still all-reduces every micro-batch": (
        lambda mp: mp.setattr(ga, "allreduces_per_step", lambda *, k, no_sync: k), {"ddp_accum_allreduces"}),
    "TP decode bytes without the ring's 2(t-1)/t": (
        lambda mp: _wrap(mp, tpi, "decode_send_bytes", lambda f, **kw: f(**kw) * kw["t"] / (2 * (kw["t"] - 1))),
        {"tp_decode_send_bytes"}),
    "3D state bytes with the optimizer unsharded": (
        lambda mp: mp.setattr(p3, "state_bytes_per_gpu", lambda *, psi, t, p, d: 16 * psi / (t * p)),
        {"state_bytes_3d"}),
}


@pytest.mark.parametrize("name", list(FORMULA_MUTATIONS))
def test_a_wrong_formula_flips_a_verdict(name: str, claims: list[Claim], baseline: dict[str, str],
                                        fresh: None) -> None:
    mutate, names = FORMULA_MUTATIONS[name]
    with pytest.MonkeyPatch.context() as mp:
        mutate(mp)
        after = verdicts(claims, names)
    before = {k: baseline[k] for k in after}
    changed = {k: (before[k], after[k]) for k in before if after[k] != before[k]}
    assert changed, f"{name}: no verdict among {before} changed"
    assert all(b in ("confirmed", "conditional") and a in ("refuted", "conditional", "error")
               for b, a in changed.values()), changed


def test_a_speculative_sampler_without_its_bonus_token_is_refuted(claims: list[Claim], baseline: dict[str, str],
                                                                   fresh: None) -> None:
    """The simulator, not the formula, is wrong: it drops the token the target adds when all γ drafts pass."""
    orig = spec_sim.run.__wrapped__

    def no_bonus(**kw: Any) -> Any:
        r = orig(**kw)
        return dataclasses.replace(r, tokens=r.tokens - r.bonus, bonus=0)

    spec_sim.run.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(spec_sim, "run", no_bonus)
            after = verdicts(claims, {"spec_tokens_per_step"})
    finally:
        spec_sim.run.cache_clear()
    assert any(after[k] == "refuted" and baseline[k] != "refuted" for k in after), after


# ------------------------------------------------------------------ wrong numbers on a card (edited copy)

CARD_EDITS = [  # (card, old text, new text, old asserts fragment or None, new asserts fragment)
    ("speculative-decoding", "3.36", "4.36", "approx(spec_tokens_per_step(alpha=0.8, gamma=4), 3.36)",
     "approx(spec_tokens_per_step(alpha=0.8, gamma=4), 4.36)"),
    ("sharded-checkpointing", r"$\frac{12\Psi}{N}$", r"$\frac{16\Psi}{N}$", "dcp_rank_bytes() == 12*Psi/N'",
     "dcp_rank_bytes() == 16*Psi/N'"),
    ("checkpoint-interval-young-daly", r"\approx 4648$", r"\approx 4848$",
     "approx(young_interval(delta=300, mu=36000), 4648)", "approx(young_interval(delta=300, mu=36000), 4848)"),
    ("sequence-parallelism", "3.76 GB", "4.76 GB", "approx(2*ring_attn_send(b=1, s=131072, h=8192, N=8)/GB, 3.76)",
     "approx(2*ring_attn_send(b=1, s=131072, h=8192, N=8)/GB, 4.76)"),
    ("paged-kv-cache-continuous-batching", r"$\frac{B_{kv}-1}{2}$", r"$\frac{B_{kv}+1}{2}$",
     "kv_paged_waste_tokens() == (B_kv-1)/2", "kv_paged_waste_tokens() == (B_kv+1)/2"),
    ("expert-parallelism-moe", "58.7 MB", "68.7 MB", "approx(2*moe_a2a_send(k=2, T=4096, h=4096, N=8)/MB, 58.7)",
     "approx(2*moe_a2a_send(k=2, T=4096, h=4096, N=8)/MB, 68.7)"),
]


def _judge_copy(tmp: Path, card: str, edit: tuple[str, str] | None, asserts: tuple[str, str],
                only: set[str]) -> dict[str, str]:
    """Apply ``edit`` to the prose and the quotes; the assertion becomes ``asserts[1]`` (``asserts[0]``: kept)."""
    shutil.copytree(CARDS, tmp, dirs_exist_ok=True)
    path = tmp / f"{card}.md"
    text = path.read_text(encoding="utf-8")
    assert asserts[0] in text, asserts[0]
    text = text.replace(asserts[0], "\x00")
    if edit:
        assert edit[0] in text, edit[0]
        text = text.replace(edit[0], edit[1])
    text = text.replace("\x00", asserts[1])
    path.write_text(text, encoding="utf-8")
    return {c.claim_id: judge(c, Evidence([]))["verdict"] for c in read_cards(tmp)
            if c.card == card and c.claim_id in only}


@pytest.mark.parametrize(("card", "old", "new", "old_a", "new_a"), CARD_EDITS, ids=[e[0] for e in CARD_EDITS])
def test_a_wrong_number_on_a_card_changes_its_verdict(tmp_path: Path, card: str, old: str, new: str, old_a: str,
                                                      new_a: str, baseline: dict[str, str]) -> None:
    only = {c.claim_id for c in read_cards(CARDS) if c.card == card
            and (old in c.text_zh or old in c.text_en or old_a.rstrip("'") in c.asserts)}
    before = {k: baseline[f"{card}:{k}"] for k in only}
    prose = _judge_copy(tmp_path / "prose", card, (old, new), (old_a, old_a), only)  # prose and quotes edited
    both = _judge_copy(tmp_path / "both", card, (old, new), (old_a, new_a), only)  # the assertion follows
    moved = {k for k in before if prose[k] != before[k]}
    assert moved and all(prose[k] in ("mismatch", "stale") for k in moved), (before, prose)
    refuted = {k for k in before if both[k] != before[k]}
    assert refuted and all(both[k] in ("refuted", "mismatch") for k in refuted), (before, both)
    assert "refuted" in {both[k] for k in refuted}, both

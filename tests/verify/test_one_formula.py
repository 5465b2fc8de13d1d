"""One formula, one definition: the judge, the ledger and the drills read the same function of verify.known.formulas.

    OMP_NUM_THREADS=1 python -m pytest tests/verify/test_one_formula.py -q

A formula function made wrong (monkeypatch) must move the answer of the drill that asks it AND flip the verdict
the judge gives a card's claim that names a quantity built on it: a copy of the formula on either side would
keep one of them still (before, changing FSDP's volume in formulas/fsdp.py moved the drill and flipped nothing).
Every formula module a drill calls has such a case (checked by tracing the drills). And no quantity's ledger
formula does arithmetic of its own: each is the value some formula function returned (traced while it is built).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import numbers
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest
import sympy as sp

from verify.judge import Evidence, judge
from verify.judge.pipeline import reset_caches
from verify.known import drills
from verify.known.formulas import (
    activation_memory,
    checkpoint_interval,
    checkpointing,
    collectives,
    flash_attention,
    fsdp,
    grad_accumulation,
    kv_cache,
    kv_paging,
    lora,
    mixed_precision,
    moe,
    offload,
    optimizer_state,
    parallel_3d,
    pipeline,
    quantization,
    roofline,
    sequence_parallel,
    sharded_checkpoint,
    speculative,
    tensor_parallel,
    tp_inference,
    training_flops,
    transformer_params,
    tree_allreduce,
)
from verify.known.vocabulary import ARG_VALUES, QUANTITIES
from verify.measure.launch import refuse_launches
from verify.reading.claims import Claim, read_cards

CARDS = Path(__file__).resolve().parents[2] / "cards"
FORMULAS = "verify.known.formulas."
HELPERS = "verify.known.formulas.symbolic"  # ceil_log2, minimum …: arithmetic, not a formula of their own


def _times(factor: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda orig: lambda **kw: orig(**kw) * factor


def _plus(term: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda orig: lambda **kw: orig(**kw) + term


def _default(key: str, value: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A formula with one keyword's default changed (mixed precision's fp32 master of 8 bytes)."""
    return lambda orig: lambda **kw: orig(**{key: value, **kw})


def _key_times(key: str, factor: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A formula returning a dict, with one of its entries scaled."""
    return lambda orig: lambda **kw: {**orig(**kw), key: orig(**kw)[key] * factor}


@dataclasses.dataclass(frozen=True)
class Case:
    module: ModuleType
    function: str
    wrong: Callable[[Callable[..., Any]], Callable[..., Any]]  # the real function -> a wrong one
    claim: str  # the id of a claim of the deck whose verdict must flip
    drill: str | None  # a drill whose answer must move (at its seed-0 inputs); None: no drill asks it
    ranks: bool = False  # the claim's quantities are measured on Gloo ranks (since issue 32 every claim of them is)

    @property
    def id(self) -> str:
        return f"{self.module.__name__.removeprefix(FORMULAS)}.{self.function}"


CASES = [  # (module, function, how it goes wrong, the claim whose verdict flips, the drill whose answer moves)
    Case(collectives, "ring_send", _times(2), "ring-phase-volumes", "ring-allreduce-send"),
    Case(mixed_precision, "state_bytes_per_param", _default("master", 8), "megatron-18-bytes", "model-state-gb"),
    Case(fsdp, "per_unit", _key_times("ring_volume_per_psi", 2), "unit-table-true", "fsdp2-volume", ranks=True),
    Case(offload, "offload_pcie_bytes", _key_times("total", 2), "offload-pcie-volume", "offload-pcie-seconds"),
    Case(offload, "pcie_lane_bandwidth_gb_s", _times(2), "pcie-bandwidth", "offload-pcie-seconds"),
    Case(checkpointing, "peak_units", _plus(1), "checkpoint-peak-units", "checkpoint-peak-units"),
    Case(tensor_parallel, "allreduce_elements", _times(2), "tp-comm-example-follow-up", "tp-send-per-layer",
         ranks=True),
    Case(pipeline, "bubble_fraction", _times(2), "bubble", "bubble-fraction"),
    Case(transformer_params, "layer_params", _plus(1), "gpt2-124m", "decoder-params-m"),
    Case(training_flops, "total_train_flops", _times(2), "gpt3-flops", "train-days"),
    Case(activation_memory, "layer_bytes", _times(2), "gpt3-per-layer", "layer-activation-gb"),
    Case(kv_cache, "bytes_per_token", _times(2), "llama2-7b", "kv-cache-gib"),
    Case(roofline, "decode_token_seconds", _times(2), "weights-read-once", "decode-ms"),
    Case(flash_attention, "flash_accesses", _times(2), "flash-accesses", "flash-io-ratio"),
    Case(optimizer_state, "state_bytes", _times(2), "eight-bit-formula", "optimizer-state-gb"),
    Case(lora, "trainable", _times(2), "llama-qv-count", "lora-trainable-m"),
    Case(quantization, "bits_per_param", _plus(1), "g128-values", "quantized-weights-gb"),
    Case(speculative, "tokens_per_step", _times(2), "spec-example-08-4", "spec-tokens-per-step"),
    Case(checkpoint_interval, "young_interval", _times(2), "young-interval", "young-interval"),
    Case(kv_paging, "paged_waste_fraction", _times(2), "paged-fraction", "paged-kv-waste"),
    Case(moe, "a2a_send", _times(2), "not-an-allreduce", "moe-a2a-mb", ranks=True),
    Case(sequence_parallel, "ring_attention_send", _times(2), "fu-gqa", "ring-attention-gb"),
    Case(tp_inference, "decode_send_bytes", _times(2), "per-token-bytes", "tp-decode-mb"),
    Case(parallel_3d, "state_bytes_per_gpu", _times(2), "state-bytes", "state-3d-gb"),
    Case(grad_accumulation, "global_batch", _times(2), "worked-global-batch", "global-batch"),
    Case(sharded_checkpoint, "shard_bytes", _times(2), "write-time-formula", "dcp-write-seconds"),
    # formulas the vocabulary used to copy, which no drill asks
    Case(tree_allreduce, "binomial_tree_rounds", _plus(2), "worked-64", None),
    Case(collectives, "tree_broadcast_rounds", _times(2), "broadcast-tree-cost", None, ranks=True),
    Case(pipeline, "peak_in_flight", _plus(1), "pipeline-inflight", None),
    Case(checkpointing, "compute_overhead", _times(2), "checkpoint-compute-overhead", None),
]


@pytest.fixture(scope="module")
def deck() -> dict[str, Claim]:
    claims = read_cards(CARDS)
    ids = [c.claim_id for c in claims]
    return {c.claim_id: c for c in claims if ids.count(c.claim_id) == 1}


@pytest.fixture()
def no_ranks() -> Iterator[None]:
    """Every case is judged without Gloo ranks (calculated, simulated or one CPU process): a case that needed
    the probe would come out unverifiable before the mutation and fail, not wait for ranks."""
    refuse_launches(RuntimeError("test_one_formula judges without ranks"))
    try:
        yield
    finally:
        refuse_launches(None)


def _verdict(claim: Claim) -> str:
    reset_caches()
    try:
        return str(judge(claim, Evidence([]))["verdict"])
    finally:
        reset_caches()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@pytest.mark.usefixtures("no_ranks")
def test_a_wrong_formula_moves_its_drill_and_flips_the_judge(case: Case, deck: dict[str, Claim],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    claim = deck[case.claim]  # a claim id no other card uses
    if case.ranks:
        refuse_launches(None)  # its ranks measure the all-to-all; the wrong ledger formula then disagrees with them
    inputs = drills.new_params(case.drill, seed=0) if case.drill else {}
    before = _verdict(claim)
    answer = drills.answer(case.drill, inputs) if case.drill else None
    assert before in ("confirmed", "conditional"), before
    monkeypatch.setattr(case.module, case.function, case.wrong(getattr(case.module, case.function)))
    assert _verdict(claim) == "refuted"
    if case.drill:
        assert drills.answer(case.drill, inputs) != pytest.approx(answer, rel=1e-9)


def _trace(run: Callable[[], Any]) -> tuple[Any, set[str], list[Any]]:
    """``run()``'s value, the formula modules it called and the values their functions returned."""
    modules: set[str] = set()
    returned: list[Any] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_globals.get("__name__", "")
        if event == "return" and (name.startswith(FORMULAS) and name != HELPERS or name == "verify.known.ledger"):
            modules.add(name)
            returned.append(arg)

    sys.setprofile(profile)
    try:
        value = run()
    finally:
        sys.setprofile(None)
    return value, modules, returned


def test_every_formula_module_a_drill_asks_is_mutated() -> None:
    asked: dict[str, set[str]] = {}
    for key in drills.DRILLS:
        for seed in range(3):
            _value, modules, _ = _trace(functools.partial(drills.answer, key, drills.new_params(key, seed)))
            for m in modules:
                asked.setdefault(m, set()).add(key)
    assert len(asked) >= 20, sorted(asked)
    mutated = {c.module.__name__ for c in CASES if c.drill}
    assert not asked.keys() - mutated, {m: asked[m] for m in asked.keys() - mutated}


def _exact(v: Any) -> sp.Expr:
    """A returned value as the ledger states it (``verify.known.vocabulary.records.ledger_formula``)."""
    if isinstance(v, float):
        return sp.Rational(v)
    expr = sp.sympify(v)
    return expr if expr.is_Rational else sp.nsimplify(expr, rational=True)


def _values(returned: list[Any], depth: int = 2) -> list[Any]:
    """Each returned value, and the entries of returned dicts, lists and records, two levels deep
    (``per_unit(...)["backward_all_gather"][0]``)."""
    out: list[Any] = []
    for v in returned:
        out.append(v)
        if depth == 0:
            continue
        if isinstance(v, dict):
            out += _values(list(v.values()), depth - 1)
        elif isinstance(v, list | tuple):
            out += _values(list(v), depth - 1)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            out += _values([getattr(v, f.name) for f in dataclasses.fields(v)], depth - 1)
    return out


def test_every_ledger_formula_is_what_a_formula_function_returned() -> None:
    """A quantity's formula may pick the function, its arguments and an entry of what it returns, never compute:
    its ledger expression must be the value a function of verify.known.formulas / verify.known.ledger returned
    while it was built (0 alone stands for an absence: no other collectives, no leaked blocks)."""
    checked, own = 0, []
    for q in QUANTITIES.values():
        if q.formula is None:
            continue
        formula = q.formula
        for args in itertools.product(*(ARG_VALUES[kind] for kind in q.params)):
            try:
                _value, _modules, returned = _trace(functools.partial(formula, *args))
            except (ValueError, KeyError, TypeError):
                continue  # no formula at these arguments (interleaved in-flight, Megatron's parts …)
            ledger = q.ledger(args)
            checked += 1
            if ledger != 0 and all(_exact(v) != ledger for v in _values(returned) if _is_value(v)):
                own.append(f"{q.name}({', '.join(args)}) = {ledger}")
    assert checked > 300
    assert not own, "ledger formulas that compute instead of calling verify.known.formulas:\n" + "\n".join(own)


def _is_value(v: Any) -> bool:
    return isinstance(v, numbers.Number | sp.Basic) and not isinstance(v, bool)

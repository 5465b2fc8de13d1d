"""Activation bytes kept under each recomputation mode, measured with saved_tensors_hooks on a bf16 decoder layer
(issue 32): plain, with the attention core checkpointed (selective) and with the whole layer checkpointed (full).

Known values: Korthikanti et al. (2022, "Reducing Activation Recomputation in Large Transformer Models", Table 2,
t = 1): a layer keeps sbh(34 + 5as/h) bytes, 34sbh with selective recomputation and 2sbh (its input) with full
recomputation; the layer here keeps LayerNorm's statistics besides (8sb in bf16), which the paper leaves out.
Mutation (the process): a checkpoint that keeps what it runs (no recomputation) makes selective and full keep the
whole layer, and the card's claim is refuted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.known.vocabulary.transformer import DECODER_SHAPES
from verify.measure.experiments import decoder
from verify.reading.claims import Claim


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("activation-memory", "recompute-modes")


@pytest.fixture
def fresh_decoder(fresh: None) -> Iterator[None]:
    with caches_cleared(decoder.measure):
        yield


@pytest.mark.parametrize("shape", DECODER_SHAPES)
def test_bytes_kept_are_korthikantis(shape: tuple[int, ...]) -> None:
    h, a, _g, _layers, _v, s, b = shape
    got = decoder.measure(*shape)
    sbh, stats = s * b * h, 8 * s * b
    assert got["layer_saved_bytes"] == sbh * 34 + 5 * a * s * s * b + stats
    assert got["selective_saved_bytes"] == 34 * sbh + stats
    assert got["full_saved_bytes"] == 2 * sbh


def test_the_measurement_confirms_the_card(claim: Claim, fresh: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "measured"), verdict["reason_en"]


def test_a_checkpoint_that_keeps_everything_refutes_it(claim: Claim, fresh_decoder: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def keeps_all(fn: Callable[..., Any], *args: Any, use_reentrant: bool) -> Any:
        return fn(*args)

    monkeypatch.setattr(decoder, "checkpoint", keeps_all)
    got = decoder.measure(*DECODER_SHAPES[0])
    assert got["selective_saved_bytes"] == got["full_saved_bytes"] == got["layer_saved_bytes"]
    assert judge(claim, Evidence([]))["verdict"] == "refuted"

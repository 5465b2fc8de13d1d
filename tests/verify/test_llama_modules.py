"""LLaMA-style parameter counts taken from torch.nn modules on the meta device (issue 32), at a 7B model's own size.

Known values: Touvron et al. (2023, "Llama 2", the 7B model: h = 4096, f = 11008, L = 32, V = 32000) publish
6,738,415,616 parameters; one layer holds 4h² + 3hf + 2h = 202,383,360 of them (by hand). Mutation (the process):
an LM head tied to the embedding counts Vh once, and the card's untied-head claim is refuted.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from torch import nn

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.measure.experiments import llama_modules


@pytest.fixture
def fresh_counts(fresh: None) -> Iterator[None]:
    with caches_cleared(llama_modules.llama_param_count):
        yield


def test_the_7b_count_is_touvrons(fresh_counts: None) -> None:
    assert llama_modules.llama_param_count(4096, 11008, 32, 32000) == 6_738_415_616
    one_layer = llama_modules.llama_param_count(4096, 11008, 1, 1) - 2 * 4096 - 4096
    assert one_layer == 4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096 == 202_383_360


def test_the_count_confirms_the_card(fresh_counts: None) -> None:
    verdict = judge(card_claim("transformer-parameter-count", "untied-head"), Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), verdict["reason_en"]


def test_a_tied_head_refutes_it(fresh_counts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    untied = llama_modules.Llama.__init__

    def tied(self: llama_modules.Llama, h: int, f: int, layers: int, vocab: int) -> None:
        untied(self, h, f, layers, vocab)
        self.head.weight = self.embed.weight  # one matrix for both: parameters() yields it once

    monkeypatch.setattr(llama_modules.Llama, "__init__", tied)
    assert isinstance(llama_modules.Llama(8, 16, 1, 10).head, nn.Linear)
    assert judge(card_claim("transformer-parameter-count", "untied-head"), Evidence([]))["verdict"] == "refuted"

"""LoRA at rank R and 2R, both adapters built for real (issue 32): "doubling the rank doubles the trainable
parameters" is judged on the parameters of a LoRA-adapted ``nn.Linear`` re-built at 2R, not on R(h + f).

Known values: Hu et al. (2021, "LoRA", §4.1): W + BA with B d_out × r and A r × d_in trains r(d_in + d_out):
1,280 at r = 8, d_in = 64, d_out = 96 and 2,560 at r = 16. Mutation (the process): an adapter that also trains a
d_out bias trains r(d_in + d_out) + d_out, which does not double with r, and the claim is refuted.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.utils.judging import card_claim, fresh_caches
from verify.judge import Evidence, judge
from verify.measure.experiments import lora

fresh_layers = fresh_caches(lora.measure)


def test_the_layers_at_r_and_2r_are_hus(fresh_layers: None) -> None:
    assert (lora.measure(8, 64, 96)["trainable"], lora.measure(16, 64, 96)["trainable"]) == (1280, 2560)


def test_the_rebuilt_layer_confirms_the_rank_tradeoff(fresh_layers: None) -> None:
    verdict = judge(card_claim("lora-qlora", "rank-tradeoff"), Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "measured"), verdict["reason_en"]
    ran = {q for row in verdict["evaluated"] if "relations" in row for q in row["quantities"]}
    assert "lora_trainable(R=2*R)" in ran, ran


def test_an_adapter_that_trains_a_bias_refutes_it(fresh_layers: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = lora.LoRALinear.__init__

    def with_bias(self: lora.LoRALinear, base: nn.Linear, r: int, alpha: float = 16.0) -> None:
        plain(self, base, r, alpha)
        self.bias = nn.Parameter(torch.zeros(base.out_features))

    monkeypatch.setattr(lora.LoRALinear, "__init__", with_bias)
    assert judge(card_claim("lora-qlora", "rank-tradeoff"), Evidence([]))["verdict"] == "refuted"

"""6ΨD and 8ΨD counted by FlopCounterMode on a model of weight matmuls only (issue 32), and a claim across two
families judged relation by relation: its 6ΨD part on the Linear stack, its 4 × forward part on the decoder.

Known values: Kaplan et al. (2020, "Scaling Laws for Neural Language Models", §2.1): training costs C ≈ 6ND, 2ND
forward and 4ND backward, attention left out; with full recomputation one more forward, 8ND (Narayanan et al.
2021). Mutation (the process): a step that does not carry the gradient into its input (the embedding) skips one
matmul of the first layer's backward, and 6ΨD is refuted.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.measure.experiments import matmul_flops


@pytest.fixture
def fresh_flops(fresh: None) -> Iterator[None]:
    with caches_cleared(matmul_flops.train_flops):
        yield


def test_counts_are_kaplans(fresh_flops: None) -> None:
    got = matmul_flops.train_flops()
    assert got["none"] == 6 * got["params"] * got["tokens"]
    assert got["full"] == 8 * got["params"] * got["tokens"]


def test_a_claim_across_two_families_is_counted_on_both(fresh_flops: None) -> None:
    verdict = judge(card_claim("training-flops", "eight-psi-d"), Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), verdict["reason_en"]
    configs = {r["config"] for r in verdict["evaluated"] if "relations" in r}
    assert any(c.startswith("3×Linear") for c in configs) and any(c.startswith("decoder") for c in configs)


def test_a_step_without_the_input_gradient_refutes_6_psi_d(fresh_flops: None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    plain = torch.randn
    monkeypatch.setattr(torch, "randn", lambda *a, requires_grad=False, **kw: plain(*a, **kw))
    got = matmul_flops.train_flops()
    assert got["none"] < 6 * got["params"] * got["tokens"]
    assert judge(card_claim("training-flops", "six-psi-d"), Evidence([]))["verdict"] == "refuted"

"""One GPU's share under 3D parallelism counted on real tensors (issue 32): Ψ/(tp) parameters and
4Ψ/(tp) + 12Ψ/(tpd) bytes, no division by t·p in the count.

Known values: Narayanan et al. (2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", §3): each of the t·p model-parallel GPUs holds 1/(tp) of the weights; with ZeRO-1 over the d
replicas (Rajbhandari et al. 2020) the 12 bytes of fp32 optimizer state per parameter are split d ways:
Ψ = 2048 at t = p = d = 2 gives 512 parameters and 2048 + 3072 bytes (by hand). Mutation (the process): a
pipeline that leaves every layer on stage 0 holds Ψ/t, and the card's Ψ/(tp) is refuted.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.measure.experiments import sharding_3d


@pytest.fixture
def fresh_shards(fresh: None) -> Iterator[None]:
    with caches_cleared(sharding_3d.rank_share):
        yield


def test_rank_share_is_narayanans(fresh_shards: None) -> None:
    assert sharding_3d.rank_share(2048, 2, 2, 2) == {"params": 512, "state_bytes": 2048 + 3072}
    assert sharding_3d.rank_share(2048, 4, 2, 4) == {"params": 256, "state_bytes": 1024 + 768}


def test_the_counts_confirm_the_card(fresh_shards: None) -> None:
    for claim in ("params-per-gpu", "bytes-split"):
        verdict = judge(card_claim("3d-parallelism", claim), Evidence([]))
        assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), verdict["reason_en"]


def test_a_pipeline_that_keeps_every_layer_refutes_it(fresh_shards: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = sharding_3d.rank_share.__wrapped__

    def one_stage(psi: int, t: int, p: int, d: int) -> dict[str, int] | None:
        return plain(psi, t, 1, d)  # the layers are never cut into p stages

    monkeypatch.setattr(sharding_3d, "rank_share", one_stage)
    assert judge(card_claim("3d-parallelism", "params-per-gpu"), Evidence([]))["verdict"] == "refuted"

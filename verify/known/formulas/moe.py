"""Expert parallelism: what a rank sends in the MoE all-to-alls.

    python -c "from verify.known.formulas.moe import a2a_send; print(a2a_send(tokens=4096, hidden=4096, top_k=2, n=8))"

Sources: Lepikhin et al., "GShard" (ICLR 2021); Fedus et al., "Switch Transformers" (JMLR 2022). E experts are
spread over N ranks (E/N each); a rank's T tokens each go to their top-k experts. With balanced routing a token's
expert is on another rank with probability (N−1)/N, so one dispatch all-to-all sends k·T·h·(N−1)/N elements;
the combine sends as much back, and backward repeats both: 4 all-to-alls per MoE layer and training step.
``verify.measure.experiments.all_to_all`` runs the layer on Gloo ranks.
"""

from __future__ import annotations


def a2a_send(*, tokens: float, hidden: int, top_k: int, n: int) -> float:
    """Elements one rank sends to other ranks in one dispatch (or combine) all-to-all: k·T·h·(N−1)/N."""
    return top_k * tokens * hidden * (n - 1) / n


def a2a_per_layer(*, phase: str) -> int:
    """All-to-alls per MoE layer: dispatch + combine in forward, their transposes in backward, none in the
    optimizer step."""
    return {"forward": 2, "backward": 2, "step": 0}[phase]

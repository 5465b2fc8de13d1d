"""Speculative decoding: tokens per target forward pass and the wall-clock speed-up.

    python -c "from verify.known.formulas.speculative import tokens_per_step; \
        print(tokens_per_step(alpha=0.8, gamma=4))"

Source: Leviathan, Kalman & Matias, "Fast Inference from Transformers via Speculative Decoding" (ICML 2023),
Thm. 3.8 and §3.4; Chen et al., "Accelerating LLM decoding with speculative sampling" (2023). A draft model
proposes ``gamma`` tokens; the target scores all of them in one forward pass and accepts each with probability
min(1, p/q); ``alpha`` = E[min(1, p/q)] = Σ min(p, q) is the acceptance rate, assumed i.i.d. per position.
``verify.measure.sim.speculative`` runs the real rejection sampler.
"""

from __future__ import annotations


def tokens_per_step(*, alpha: float, gamma: int) -> float:
    """Expected tokens emitted per target forward: (1 − α^(γ+1))/(1 − α) (accepted drafts + one target token)."""
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def accepted_drafts(*, alpha: float, gamma: int) -> float:
    """Expected accepted draft tokens per step: α(1 − α^γ)/(1 − α) (= tokens_per_step − 1)."""
    return alpha * (1 - alpha**gamma) / (1 - alpha)


def speedup(*, alpha: float, gamma: int, c: float) -> float:
    """Walltime improvement over plain decoding when one draft forward costs c target forwards:
    (1 − α^(γ+1)) / ((1 − α)(γc + 1))."""
    return tokens_per_step(alpha=alpha, gamma=gamma) / (gamma * c + 1)

"""Speculative sampling run step by step with a seeded RNG: a draft distribution q, a target p.

    python -c "from verify.measure.sim.speculative import run; print(run(alpha=0.8, gamma=4))"

Each step drafts γ tokens from q, accepts draft x with probability min(1, p(x)/q(x)), and at the first
rejection emits one token from the residual max(0, p − q) (normalised); if all γ are accepted it emits one
more token from p (Leviathan et al. 2023, Alg. 1; Chen et al. 2023). Positions are i.i.d., so the acceptance
rate is Σ min(p, q). Here p has a token q favours and p never emits: q = (1 − ε)p + ε·[that token], so
Σ min(p, q) = 1 − ε = α exactly. The run counts tokens per step and the emitted tokens' distribution.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass
from functools import lru_cache

VOCAB_P = (0.30, 0.25, 0.20, 0.15, 0.10, 0.0)  # the target; the last token is one only the draft proposes


@dataclass(frozen=True)
class SpecRun:
    steps: int
    tokens: int  # emitted in all
    accepted: int  # accepted drafts in all
    bonus: int  # steps whose γ drafts were all accepted (the target added one more token)
    acceptance: float  # measured Σ min(p, q)
    tv_to_target: float  # total variation between the emitted tokens' histogram and p

    @property
    def tokens_per_step(self) -> float:
        return self.tokens / self.steps

    @property
    def accepted_per_step(self) -> float:
        return self.accepted / self.steps


def _sampler(weights: list[float], rng: random.Random) -> object:
    cum = list(itertools.accumulate(weights))
    total = cum[-1]
    return lambda: bisect.bisect_right(cum, rng.random() * total)


@lru_cache(maxsize=64)
def run(*, alpha: float, gamma: int, steps: int = 30_000, seed: int = 0) -> SpecRun:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    p = list(VOCAB_P)
    q = [(1 - (1 - alpha)) * x for x in p]
    q[-1] += 1 - alpha
    residual = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
    rng = random.Random(seed)
    draw_q, draw_p, draw_r = _sampler(q, rng), _sampler(p, rng), _sampler(residual, rng)
    counts = [0] * len(p)
    tokens = accepted = bonus = 0
    for _ in range(steps):
        for _ in range(gamma):
            x = draw_q()  # type: ignore[operator]
            if rng.random() < min(1.0, p[x] / q[x]):
                counts[x] += 1
                accepted += 1
                tokens += 1
                continue
            counts[draw_r()] += 1  # type: ignore[operator]
            tokens += 1
            break
        else:
            counts[draw_p()] += 1  # type: ignore[operator]
            tokens += 1
            bonus += 1
    tv = 0.5 * sum(abs(c / tokens - x) for c, x in zip(counts, p, strict=True))
    return SpecRun(steps, tokens, accepted, bonus, sum(min(a, b) for a, b in zip(p, q, strict=True)), tv)

"""Readers several subjects share: a simulator run at a configuration's values, the LLM probe's Gloo ranks.

    python -c "from verify.known.vocabulary.readers import exact; print(exact(0.25))"

A reader turns one configuration of the evidence into a quantity's measured value: ``(evidence, config, args)
-> (value, symbol values of that run)`` or None where it does not measure. The readers of one subject live in
its module; these are the ones more than one subject calls.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import sympy as sp

from verify.known.vocabulary.records import Config, Measure


@lru_cache(maxsize=4096)
def _exact(x: Any) -> sp.Expr:
    return sp.nsimplify(x, rational=True)


def exact(x: Any) -> sp.Expr:
    """A measured or configured number as the exact rational it stands for (nsimplify's search costs ~10 ms a
    call; one sweep and its judging ask for the same few values hundreds of times, so hashable ones are cached)."""
    try:
        return _exact(x)
    except TypeError:  # unhashable: not cached
        return sp.nsimplify(x, rational=True)


def simulated(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    """A reader of a seeded simulator that runs at the configuration's values (a claim's fixed values included):
    ``read(values, args)`` → the value, or None when the values do not say enough to run it."""
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        got = read(dict(cfg.values), args)
        return None if got is None else (exact(got), dict(cfg.values))
    return measure


def on_llm_probe(read: Callable[[list[dict[str, Any]], tuple[str, ...]], Any], at_n2_only: bool = False) -> Measure:
    """A reader of the LLM probe's ranks (``verify.measure.experiments.llm_probe``: MoE all-to-all, ring attention,
    Ulysses, a DCP save, DDP's no_sync) at the configuration's N: ``read(results by rank, args)``."""
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.experiments.llm_probe import probe

        n_ = int(cfg.values["N"])
        if at_n2_only and n_ != 2:
            return None
        return exact(read(probe(n_)["by_rank"], args)), {}
    return measure

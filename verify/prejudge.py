"""Judge ahead, in a forked process while the ranks run, everything a verdict needs that no rank measures.

    python -m verify   # run_verify starts it before the first launch and reads it back before judging

Per claim: the text/assertion drift (sympy's LaTeX parser: the slowest part of judging), the ledger's
symbolic verdict, and the measured side wherever it reads no run: the simulators (pipeline, ring, tree,
speculative decoding, failures, KV allocator, FlashAttention IO) and the single-process experiments
(mixed-precision state, number formats, GradScaler, activation checkpointing, saved activations). The child
judges with an evidence object that raises ``NeedsRuns`` when touched, and starting ranks is refused there,
so a claim that needs the sweep's runs or Gloo ranks is left to the parent. All the rest are pure functions of
the cards, the ledger and this machine's torch, so the parent stores the child's results as its own: the same
code on the same inputs, computed earlier, on the core the ranks leave idle. If the child fails, the parent
judges everything itself.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import tempfile
from typing import Any

from verify.claims import Claim


class NeedsRuns(BaseException):
    """Judging this claim would read the sweep's runs or start ranks: the parent judges it after the launches.
    A BaseException, so that no ``except Exception`` on the way turns it into a verdict."""


class NoRuns:
    """The evidence the child judges with: any use of it means the claim needs the sweep."""

    def __getattr__(self, name: str) -> Any:
        raise NeedsRuns(name)


def compute(claims: list[Claim]) -> dict[str, Any]:
    """Drift, symbolic verdicts and every measurement that reads no run (simulators, single-process
    experiments) for ``claims`` (in this process; starting ranks is refused here)."""
    from verify import vocabulary
    from verify.asserts import AssertError, parse
    from verify.claim_judge import _drift
    from verify.judge import _symbolic, measured
    from verify.launch import refuse_launches

    drift: dict[tuple[str, str, str], tuple[str, ...]] = {}
    symbolic: dict[str, Any] = {}
    measured_ahead: dict[str, Any] = {}
    refuse_launches(NeedsRuns("Gloo ranks"))  # the ranks' probes run in the parent, after the sweep
    try:
        for c in claims:
            if not c.asserts:
                continue
            try:
                parsed = parse(c.asserts)
            except AssertError:
                continue  # reported by the judge itself
            try:
                drift[(c.text_zh, c.text_en, c.asserts)] = _drift(c.text_zh, c.text_en, c.asserts)
                symbolic[c.asserts] = _symbolic(c.asserts)
            except Exception:  # judged again (and the error reported) in the parent
                continue
            if c.asserts in measured_ahead:
                continue
            try:
                measured_ahead[c.asserts] = measured(parsed, NoRuns())
            except NeedsRuns:
                continue
            except Exception:
                continue
    finally:
        refuse_launches(None)
    return {"drift": drift, "symbolic": symbolic, "measured": measured_ahead, "local": dict(vocabulary.LOCAL_RUNS)}


def _child(claims: list[Claim], path: str) -> None:
    import torch

    torch.set_num_threads(1)
    result = compute(claims)
    with open(path + ".tmp", "wb") as f:
        pickle.dump(result, f)
    os.replace(path + ".tmp", path)


class Ahead:
    """A forked child computing ``compute(claims)``; ``collect()`` stores its results in this process."""

    def __init__(self, claims: list[Claim]) -> None:
        self.dir = tempfile.mkdtemp(prefix="verify-ahead-")
        self.path = os.path.join(self.dir, "ahead.pkl")
        self.proc = mp.get_context("fork").Process(target=_child, args=(claims, self.path), daemon=True)
        self.proc.start()

    def collect(self, timeout_s: float = 600.0) -> bool:
        """Wait for the child and seed the caches; False (nothing seeded) if it failed."""
        from verify import vocabulary
        from verify.claim_judge import DRIFT_AHEAD
        from verify.judge import MEASURED_AHEAD, SYMBOLIC_AHEAD

        self.proc.join(timeout_s)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        ok = self.proc.exitcode == 0 and os.path.exists(self.path)
        if ok:
            with open(self.path, "rb") as f:
                got = pickle.load(f)
            DRIFT_AHEAD.update(got["drift"])
            SYMBOLIC_AHEAD.update(got["symbolic"])
            MEASURED_AHEAD.update(got["measured"])
            for key, value in got["local"].items():
                vocabulary.LOCAL_RUNS.setdefault(key, value)
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)
        return ok

    def cancel(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()

"""Judge ahead, in forked processes while the ranks run, everything a verdict needs that no rank measures.

    python -m verify   # run_verify starts them before the first launch and reads them back before judging

Per claim: the text/assertion drift (sympy's LaTeX parser: the slowest part of judging), the ledger's
symbolic verdict, and the measured side wherever it reads no run: the simulators (pipeline, ring, tree,
speculative decoding, failures, KV allocator, FlashAttention IO) and the single-process experiments
(mixed-precision state, number formats, GradScaler, activation checkpointing, saved activations); and then the
whole verdict of such a claim, so that the parent neither parses nor judges it again. What a child works out
is one ``verify.judge.prepared.Prepared``; ``collect`` merges them into ``Ahead.prepared``, which the parent
passes to the judge. A child judges with an evidence object that raises ``NeedsRuns`` when touched, and
starting ranks is refused there, so a claim that needs the sweep's runs or Gloo ranks is left to the parent.
All the rest are pure functions of the cards, the ledger and this machine's torch, so the parent uses the
children's results as its own: the same code on the same inputs, computed earlier. One child per core
(``children``), each with whole cards (``split``), each from the start of its part; once the launches end the
parent takes claims no child has started from the ends (``Ahead.steal``) and judges them itself, so every core
works until the end. If a child fails, the parent judges its claims itself.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from verify.judge.prepared import Prepared
from verify.reading.claims import Claim


class NeedsRuns(BaseException):
    """Judging this claim would read the sweep's runs or start ranks: the parent judges it after the launches.
    A BaseException, so that no ``except Exception`` on the way turns it into a verdict."""


class NoRuns:
    """The evidence the child judges with: any use of it means the claim needs the sweep."""

    def __getattr__(self, name: str) -> Any:
        raise NeedsRuns(name)


def compute(claims: Iterable[Claim]) -> dict[str, Any]:
    """What ``Ahead``'s children compute, in this process (starting ranks is refused here): the ``Prepared``
    work of every claim, the whole verdict of every claim that needs no run (keyed by position in ``claims``)
    and the single-process experiments' results."""
    return _compute(enumerate(claims))


def _compute(items: Iterable[tuple[int, Claim]]) -> dict[str, Any]:
    from verify.judge.pipeline import judge
    from verify.measure.launch import refuse_launches
    from verify.measure.probes import LOCAL_RUNS

    prepared = Prepared()
    verdicts: dict[int, dict[str, Any]] = {}
    refuse_launches(NeedsRuns("Gloo ranks"))  # the ranks' probes run in the parent, after the sweep
    try:
        for i, c in items:
            try:
                verdicts[i] = judge(c, NoRuns(), prepared)
            except NeedsRuns:  # what was worked out before the judge touched the runs stays in ``prepared``
                continue
            except Exception:  # judged again (and the error reported) in the parent
                continue
    finally:
        refuse_launches(None)
    return {"prepared": prepared, "local": LOCAL_RUNS.export(), "verdicts": verdicts}


def _child(take: Callable[[], tuple[int, Claim] | None], path: str) -> None:
    import torch

    torch.set_num_threads(1)
    result = _compute(iter(take, None))
    with open(path + ".tmp", "wb") as f:
        pickle.dump(result, f)
    os.replace(path + ".tmp", path)


def children() -> int:
    """How many children judge ahead: one per core this process may use (at most 4). While the ranks run they
    share the cores with them; once the launches end, a single child would leave the other cores idle."""
    return max(1, min(len(os.sched_getaffinity(0)), 4))


def split(claims: list[Claim], k: int) -> list[list[int]]:
    """The indices of ``claims`` in ``k`` parts of about equal size, a card's claims together (they share its
    experiments, which each child runs once and caches)."""
    by_card: dict[str, list[int]] = {}
    for i, c in enumerate(claims):
        by_card.setdefault(c.card, []).append(i)
    parts: list[list[int]] = [[] for _ in range(k)]
    for group in sorted(by_card.values(), key=len, reverse=True):
        min(parts, key=len).extend(group)
    return [p for p in parts if p]


class Ahead:
    """Forked children computing ``compute`` over parts of ``claims`` (``split``), each from the start of its part.
    Once the launches end the parent joins in: ``steal()`` hands it a claim no child has started, from the end of
    the part with the most left, and no child takes it after that (a shared counter pair per part, under one
    lock). ``collect()`` stores the children's results in this process."""

    def __init__(self, claims: list[Claim], k: int | None = None) -> None:
        ctx = mp.get_context("fork")
        self.claims = claims
        self.parts = split(claims, k or children())
        self.lock = ctx.Lock()
        self.taken = ctx.Array("i", len(self.parts), lock=False)  # next index each child takes in its part
        self.limit = ctx.Array("i", [len(p) for p in self.parts], lock=False)  # where each child stops
        self.verdicts: dict[int, dict[str, Any]] = {}  # claim index -> verdict, judged whole by a child
        self.prepared = Prepared()  # the children's work, merged by collect(): what the parent judges with
        self.dir = tempfile.mkdtemp(prefix="verify-ahead-")
        self.procs: list[tuple[Any, str]] = []
        for i in range(len(self.parts)):
            path = os.path.join(self.dir, f"ahead-{i}.pkl")
            proc = ctx.Process(target=_child, args=(self._taker(i), path), daemon=True)
            proc.start()
            self.procs.append((proc, path))

    def _taker(self, i: int) -> Callable[[], tuple[int, Claim] | None]:
        def take() -> tuple[int, Claim] | None:
            with self.lock:
                j = self.taken[i]
                if j >= self.limit[i]:
                    return None
                self.taken[i] = j + 1
            k = self.parts[i][j]
            return k, self.claims[k]
        return take

    def steal(self) -> int | None:
        """The index (in ``claims``) of a claim no child has started, now the parent's; None when none is left."""
        if not self.parts:  # no claims, no children
            return None
        with self.lock:
            i = max(range(len(self.parts)), key=lambda p: self.limit[p] - self.taken[p])
            if self.limit[i] <= self.taken[i]:
                return None
            self.limit[i] -= 1
            return self.parts[i][int(self.limit[i])]

    def collect(self, timeout_s: float = 600.0) -> bool:
        """Wait for the children, merge their work into ``prepared`` and keep the verdicts they judged whole
        (``verdicts``); False if any failed (what the others computed is still kept: the parent judges the rest
        itself)."""
        import time

        from verify.measure.probes import LOCAL_RUNS

        deadline = time.monotonic() + timeout_s
        ok = True
        for proc, path in self.procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()
            if proc.exitcode != 0 or not os.path.exists(path):
                ok = False
                continue
            with open(path, "rb") as f:
                got = pickle.load(f)
            self.prepared.update(got["prepared"])
            LOCAL_RUNS.adopt(got["local"])
            self.verdicts.update(got["verdicts"])
        self._remove()
        return ok

    def cancel(self) -> None:
        for proc, _path in self.procs:
            if proc.is_alive():
                proc.kill()
            proc.join()
        self._remove()

    def _remove(self) -> None:
        if os.path.isdir(self.dir):
            for name in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, name))
            os.rmdir(self.dir)

"""Collectives: the ideal ring, Gloo's wire bytes, binomial and double binary trees, the α-β cost model.

    python -m verify   # Gloo ranks measure socket bytes; the ring and tree simulators run step by step

Ledger formulas: ``verify.known.formulas.collectives`` (ring, Gloo, binomial broadcast, α-β) and
``verify.known.formulas.tree_allreduce`` (tree all-reduce, ring/tree crossover). M is a collective's payload.
Measured on Gloo ranks (``verify.measure.experiments.dist_probe``: socket bytes around one call of M = 1 MiB
fp32 at each N), simulated by ``verify.measure.sim.ring``, ``verify.measure.sim.tree`` and
``verify.measure.sim.double_tree`` (NCCL's two trees), each schedule timed step by step (``verify.measure.sim.timing``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import collectives as coll
from verify.known.formulas import tree_allreduce as tree
from verify.known.vocabulary.readers import simulated
from verify.known.vocabulary.records import Config, Family, Measure, MeterUnavailable, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.zero import N
from verify.measure.meters import wire

SYMBOLS = (
    SymbolSpec("M", "message size of one collective (elements or bytes, as the claim's unit); FlashAttention's SRAM "
               "size in elements", integer=False),
    SymbolSpec("alpha", "α, latency of one communication step (s)", integer=False),
    SymbolSpec("beta", "β, link bandwidth (bytes/s) in the α-β model", integer=False),
)
M, alpha, beta = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {
    "collective": ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast"),
    "tree": ("binomial", "double_binary"),
}


def _gloo_configs(ev: Any) -> list[Config]:
    """The world sizes the run asked for (its evidence), or N = 2 and 4 when judged without a sweep."""
    from verify.measure.experiments.sizes import WIRE_ELEMENTS

    sizes = ev.world_sizes if ev is not None and getattr(ev, "runs", None) else (2, 4)
    return [Config(f"Gloo N={n_}", {"N": n_, "M": 4 * WIRE_ELEMENTS}) for n_ in sizes]


def _gloo(total: bool) -> Measure:
    def measure(ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.probes import probe

        backend = getattr(ev, "backend", "gloo")
        if backend != "gloo":
            raise MeterUnavailable(f"Gloo's socket bytes cannot be measured on backend {backend}: "
                                   "run with --backend gloo")
        sent = [r[args[0]] for r in probe(int(cfg.values["N"]))["wire_by_rank"]]
        if None in sent:
            raise MeterUnavailable(wire.NO_COUNTERS)
        value = sum(sent) if total else sent[0] if args[0] == "broadcast" else max(sent)
        return sp.Integer(value), {}
    return measure


RING_ALPHA, RING_BETA = 3, 2  # the α (s) and β (elements/s) the simulated schedules are timed with


def _ring_configs(_ev: Any) -> list[Config]:
    return [Config(f"ring N={n_}", {"N": n_, "M": 4 * n_, "alpha": RING_ALPHA, "beta": RING_BETA})
            for n_ in (2, 3, 4, 8)]


def _ring_sim(read: Callable[[Any, str], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.sim.ring import ring_allreduce

        n_, m_ = int(cfg.values["N"]), int(cfg.values["M"])
        data = [[float((r + 1) * (i + 1)) for i in range(m_)] for r in range(n_)]
        run = ring_allreduce(data)
        want = [sum(col) for col in zip(*data, strict=True)]
        if any(row != want for row in run.result):
            return sp.nan, {}  # a wrong sum: never agrees with anything
        return sp.Rational(read(run, args[0])), {}
    return measure


def _ring_sent(run: Any, op: str) -> int:
    if op == "all_reduce":
        return int(max(run.sent))
    return int(max(run.sent_by_phase[op]))


def _ring_steps_of(run: Any, op: str) -> int:
    return sum(run.steps.values()) if op == "all_reduce" else run.steps[op]


def _ring_time(run: Any, op: str, alpha: Any, beta: Any) -> Any:
    from verify.measure.sim.timing import lockstep_time

    phases = ("reduce_scatter", "all_gather") if op == "all_reduce" else (op,)
    return lockstep_time([m_ for ph in phases for m_ in run.step_messages[ph]], alpha, beta)


def _timed(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """α-β time of the simulated schedule: the ring's steps for the ring collectives, the binomial tree's broadcast
    rounds for broadcast, each step α + its largest message / β (``verify.measure.sim.timing``)."""
    from verify.measure.sim.tree import tree_allreduce

    if not {"N", "M", "alpha", "beta"} <= set(cfg.values) or args[0] == "all_to_all":
        return None
    alpha_, beta_ = sp.Rational(cfg.values["alpha"]), sp.Rational(cfg.values["beta"])
    if args[0] != "broadcast":
        return _ring_sim(lambda run, op: _ring_time(run, op, alpha_, beta_))(_ev, cfg, args)
    n_, m_ = int(cfg.values["N"]), int(cfg.values["M"])
    data = [[float(i) if r == 0 else 0.0 for i in range(m_)] for r in range(n_)]  # the root's message; zeros add none
    run = tree_allreduce(data)
    if any(row != data[0] for row in run.result):
        return sp.nan, {}
    from verify.measure.sim.timing import lockstep_time

    return sp.Rational(lockstep_time(run.round_messages["broadcast"], alpha_, beta_)), {}


def _double_tree_time(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """The double binary tree's α-β time from its simulated schedule (``verify.measure.sim.double_tree``): the
    rounds it ran × α + the busiest rank's elements / β (pipelined, the busiest link sets the bandwidth term).
    From N = 4 on: at N = 2 and 3 the busiest rank sends M and 3M/2, not the model's 2M."""
    from verify.measure.sim.double_tree import double_tree_allreduce

    if args[0] != "double_binary" or not {"N", "M", "alpha", "beta"} <= set(cfg.values) or int(cfg.values["N"]) < 4:
        return None
    n_, m_ = int(cfg.values["N"]), int(cfg.values["M"])
    data = [[float(r + i) for i in range(m_)] for r in range(n_)]
    run = double_tree_allreduce(data)
    if any(row != [sum(col) for col in zip(*data, strict=True)] for row in run.result):
        return sp.nan, {}
    return run.rounds * sp.Rational(cfg.values["alpha"]) + sp.Rational(max(run.sent), cfg.values["beta"]), {}


def _crossover(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """The message size where the simulated ring all-reduce and the simulated double binary tree take equal time:
    both run at two sizes (M and 2M), their times are affine in the size, and the crossing is solved from them."""
    at = dict(cfg.values)
    if not {"N", "M", "alpha", "beta"} <= set(at) or int(at["N"]) < 4:
        return None
    times = []
    for m_ in (int(at["M"]), 2 * int(at["M"])):
        at_m = Config(cfg.label, {**at, "M": m_}, cfg.where)
        ring, tree = _timed(_ev, at_m, ("all_reduce",)), _double_tree_time(_ev, at_m, ("double_binary",))
        if ring is None or tree is None:
            return None
        times.append((m_, ring[0] - tree[0]))  # ring minus tree: affine in M, zero at the crossing
    (m1, d1), (m2, d2) = times
    slope = (d2 - d1) / (m2 - m1)
    return (m1 - d1 / slope if slope != 0 else sp.nan), {}


def _tree_read(key: str) -> Measure:
    def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
        from verify.measure.sim.tree import tree_allreduce

        n_, m_ = int(at["N"]), int(at["M"])
        data = [[float(r + i) for i in range(m_)] for r in range(n_)]
        run = tree_allreduce(data)
        if any(row != [sum(col) for col in zip(*data, strict=True)] for row in run.result):
            return sp.nan  # a wrong sum never agrees with anything
        return run.rounds if key == "rounds" else max(run.sent)
    return simulated(read)


FAMILIES = (
    Family("gloo", _gloo_configs, "Gloo ranks", gloo_probe=True),
    # the ring, binomial-tree and double-binary-tree simulators share the configurations, so one claim can set the
    # ring against a tree
    Family("ring", _ring_configs, "ring and tree simulators"),
)


def _alpha_beta(op: str) -> Any:
    """``formulas.collectives.ring_time`` / ``tree_broadcast_time`` over symbols."""
    if op == "broadcast":
        return coll.tree_broadcast_time(n=N, m_bytes=M, alpha_s=alpha, beta_bytes_per_s=beta)
    if op == "all_to_all":
        raise ValueError("the α-β table has no all-to-all row")
    return coll.ring_time(op=op, n=N, m_bytes=M, alpha_s=alpha, beta_bytes_per_s=beta)


def _tree_time(kind: str) -> Any:
    time = tree.binomial_tree_time if kind == "binomial" else tree.double_tree_time
    return time(n=N, m_bytes=M, alpha=alpha, beta=beta)


QUANTITIES = (
    Quantity("ring_send", ("collective",), "elements", "simulated",
             "what one rank sends in an ideal ring collective of M elements: (N−1)/N·M per pass (ring run step by "
             "step for reduce-scatter, all-gather, all-reduce)",
             lambda op: coll.ring_send(op=op, n=N, m=M), "ring", _ring_sim(_ring_sent)),
    Quantity("ring_steps", ("collective",), "steps", "simulated", "communication steps of a ring collective",
             lambda op: coll.ring_steps(op=op, n=N), "ring", _ring_sim(_ring_steps_of)),
    Quantity("gloo_wire_send", ("collective",), "bytes", "measured",
             "bytes one rank's Gloo sockets send for one collective of M bytes (the root, for broadcast); ± 1% of M",
             lambda op: coll.gloo_send(op=op, n=N, m=M), "gloo", _gloo(total=False), tolerance=M / 100),
    Quantity("gloo_wire_total", ("collective",), "bytes", "measured",
             "bytes all ranks' Gloo sockets send together for one collective of M bytes; ± 1% of M per rank",
             lambda op: coll.gloo_total_send(op=op, n=N, m=M), "gloo", _gloo(total=True), tolerance=N * M / 100),
    # simulated: the ring / binomial-tree schedule run step by step, each step α + its largest message / β
    Quantity("alpha_beta_time", ("collective",), "s", "simulated",
             "α-β time: ring steps·α + ring bytes/β; binomial-tree broadcast ⌈log₂N⌉(α + M/β) (simulated: the "
             "schedule's steps, each α + its largest message / β)", _alpha_beta, "ring", _timed),
    # ---- ring vs tree (verify.known.formulas.tree_allreduce; verify.measure.sim.tree)
    Quantity("tree_allreduce_rounds", (), "rounds", "simulated",
             "rounds of a binomial-tree all-reduce (reduce to a root, then broadcast): 2⌈log₂N⌉",
             lambda: tree.binomial_tree_rounds(n=N), "ring", _tree_read("rounds")),
    Quantity("tree_allreduce_max_send", (), "elements", "simulated",
             "most elements one rank sends in an unpipelined binomial-tree all-reduce of M: ⌈log₂N⌉·M (the root)",
             lambda: tree.binomial_tree_max_send(n=N, m=M), "ring", _tree_read("max_send")),
    # simulated (double binary, N ≥ 4): NCCL's two trees run round by round (verify.measure.sim.double_tree)
    Quantity("tree_allreduce_time", ("tree",), "s", "simulated",
             "α-β time: binomial 2⌈log₂N⌉(α + M/β); pipelined double binary tree 2⌈log₂N⌉α + 2M/β (simulated from "
             "N = 4: NCCL's two trees' rounds × α + the busiest rank's bytes / β)", _tree_time, "ring",
             _double_tree_time),
    Quantity("ring_tree_crossover", (), "bytes", "simulated",
             "message size where the ring's and the double tree's α-β times are equal: N·α·β·(N − 1 − ⌈log₂N⌉) "
             "(simulated from N = 4: both schedules timed at two sizes, the crossing solved)",
             lambda: tree.crossover_bytes(n=N, alpha=alpha, beta=beta), "ring", _crossover),
)

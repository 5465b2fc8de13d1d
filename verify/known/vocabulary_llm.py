"""The LLM-systems cards' quantities (issue 19): serving, context and expert parallelism, checkpoints, failures.

    python -c "from verify.known.vocabulary import table; print(table())"   # these rows are part of the table

``verify.known.vocabulary`` calls ``extend`` once, at the end of its import: the symbols, argument kinds, families and
quantities below join its tables. Formulas live in ``verify.known.formulas`` (speculative, kv_paging, moe,
sequence_parallel, sharded_checkpoint, checkpoint_interval, grad_accumulation, tree_allreduce, parallel_3d,
tp_inference); what measures them in ``verify.measure.sim`` (speculative, kv_allocator, failures, tree) and
``verify.measure.experiments`` (llm_probe: all_to_all, ring_attention, dcp_checkpoint, grad_accumulation on Gloo ranks).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

import sympy as sp

from verify.known.formulas import checkpoint_interval as ci
from verify.known.formulas import grad_accumulation as ga
from verify.known.formulas import kv_paging as kv
from verify.known.formulas import moe
from verify.known.formulas import parallel_3d as p3
from verify.known.formulas import sequence_parallel as cp
from verify.known.formulas import sharded_checkpoint as sc
from verify.known.formulas import speculative as spec
from verify.known.formulas import tp_inference as tpi

# (name, meaning, lower bound, integer, grows)
NEW_SYMBOLS = (
    ("gamma", "γ, draft tokens per speculative step", 1, True, False),
    ("c", "cost of one draft forward in target forwards (speculative decoding)", 1, False, False),
    ("delta", "δ, time to write one checkpoint (s)", 1, False, False),
    ("mu", "μ, mean time between failures of the whole job (s)", 1, False, True),
    ("tau", "τ, compute time between two checkpoints (s)", 1, False, False),
    ("B_kv", "KV-cache block size (token slots per block)", 1, True, False),
    ("L_max", "longest sequence a request may reach (token slots)", 1, True, True),
    ("d", "data-parallel degree in 3D parallelism", 1, True, False),
    ("W", "storage write bandwidth per rank (bytes/s)", 1, False, False),
)
NEW_ARGS: dict[str, tuple[str, ...]] = {
    "accum": ("scaled", "unscaled"),  # micro-batch losses divided by k, or not
    "sync": ("no_sync", "every_micro_step"),  # DDP's no_sync on the first k − 1 micro-batches, or not
    "tree": ("binomial", "double_binary"),
    "ckpt": ("resumable", "with_weights16", "weights16"),  # 12, 14, 2 bytes per parameter
}
WHERE = {"spec": "speculative sampler, seeded", "failures": "failure simulator, seeded",
         "kvalloc": "KV allocators, seeded", "batching": "static batching, seeded",
         "moe": "MoE layer on 2 and 4 Gloo ranks", "cp": "ring attention / Ulysses on 2 and 4 Gloo ranks",
         "dcp": "DCP save of FSDP2 on 2 Gloo ranks", "accum": "one CPU process",
         "ddp_accum": "DDP on 2 Gloo ranks", "tree": "tree simulator"}

SPEC_CASES = ((0.6, 2, 0.1), (0.8, 4, 0.05), (0.9, 8, 0.02))  # (α, γ, c)
FAIL_CASES = ((4648, 300, 36000), (600, 60, 3600), (2000, 30, 86400))  # (τ, δ, μ) in seconds
KV_CASES = ((16, 256), (8, 128), (32, 512))  # (B_kv, L_max)
BATCH_CASES = (4, 8, 32)
ACCUM_KS = (2, 4, 8)


@lru_cache(maxsize=4096)
def _exact(x: Any) -> sp.Expr:
    """A measured or configured number as the exact rational it stands for (nsimplify's search costs ~10 ms a
    call; one sweep and its judging ask for the same few values hundreds of times)."""
    return sp.nsimplify(x, rational=True)


def extend(v: ModuleType) -> None:
    """Add this module's symbols, argument kinds, families and quantities to ``verify.known.vocabulary``."""
    Q, Config = v.Quantity, v.Config
    for name, meaning, lower, integer, grows in NEW_SYMBOLS:
        spec_ = v.SymbolSpec(name, meaning, lower=lower, integer=integer, grows=grows)
        known = v.SYMBOLS.get(name)
        if known is not None:  # one letter, two readings (d: a head's width, and the data-parallel degree)
            old = v.SPEC_OF[known]
            if (old.lower, old.integer, old.grows) != (lower, integer, grows):
                raise ValueError(f"symbol {name!r} is declared twice with different assumptions: "
                                 f"{old} and {spec_}; rename one of them")
            spec_ = v.SymbolSpec(name, f"{old.meaning}; {meaning}", lower=lower, integer=integer, grows=grows)
            setattr(v, "SYMBOL_SPECS", tuple(spec_ if s.name == name else s  # noqa: B010
                                             for s in getattr(v, "SYMBOL_SPECS")))  # noqa: B009
        else:
            setattr(v, "SYMBOL_SPECS", (*getattr(v, "SYMBOL_SPECS"), spec_))  # noqa: B009,B010
        v.SYMBOLS[name] = spec_.symbol
        v.SPEC_OF[spec_.symbol] = spec_
    S = v.SYMBOLS
    v.ARG_VALUES.update(NEW_ARGS)
    v.FAMILY_WHERE.update(WHERE)
    alpha, gamma, c, delta, mu, tau = (S[x] for x in ("alpha", "gamma", "c", "delta", "mu", "tau"))
    B_kv, L_max, N, b, s, h, k, T, t, p, L, d, Psi, M, beta, W = (
        S[x] for x in ("B_kv", "L_max", "N", "b", "s", "h", "k", "T", "t", "p", "L", "d", "Psi", "M", "beta", "W"))

    def value(x: Any) -> sp.Expr:
        try:
            return _exact(x)
        except TypeError:  # unhashable: not cached
            return sp.nsimplify(x, rational=True)

    # ---- configurations of each family
    def spec_configs(_ev: Any) -> list[Any]:
        return [Config(f"α={a_} γ={g_} c={c_}", {"alpha": value(a_), "gamma": g_, "c": value(c_)})
                for a_, g_, c_ in SPEC_CASES]

    def fail_configs(_ev: Any) -> list[Any]:
        return [Config(f"τ={t_} δ={d_} μ={m_}", {"tau": t_, "delta": d_, "mu": m_}) for t_, d_, m_ in FAIL_CASES]

    def kv_configs(_ev: Any) -> list[Any]:
        return [Config(f"B_kv={b_} L_max={l_}", {"B_kv": b_, "L_max": l_}) for b_, l_ in KV_CASES]

    def batch_configs(_ev: Any) -> list[Any]:
        return [Config(f"b={b_} L_max=4096", {"b": b_}) for b_ in BATCH_CASES]

    def moe_configs(_ev: Any) -> list[Any]:
        from verify.measure.experiments.all_to_all import MOE_SHAPE as sh
        from verify.measure.experiments.llm_probe import WORLD_SIZES
        return [Config(f"Gloo N={n_}", {"N": n_, "T": sh["tokens"], "h": sh["hidden"], "k": sh["top_k"]})
                for n_ in WORLD_SIZES]

    def cp_configs(_ev: Any) -> list[Any]:
        from verify.measure.experiments.llm_probe import WORLD_SIZES
        from verify.measure.experiments.ring_attention import RING_SHAPE as sh
        return [Config(f"Gloo N={n_}", {"N": n_, "b": sh["b"], "s": sh["s"], "h": sh["heads"] * sh["d_head"]})
                for n_ in WORLD_SIZES]

    def dcp_configs(_ev: Any) -> list[Any]:
        from verify.measure.experiments.dcp_checkpoint import DCP_LAYERS, DCP_WIDTH
        return [Config("Gloo N=2", {"N": 2, "Psi": DCP_LAYERS * (DCP_WIDTH**2 + DCP_WIDTH)})]

    def accum_configs(_ev: Any) -> list[Any]:
        return [Config(f"CPU k={k_}", {"k": k_}) for k_ in ACCUM_KS]

    def ddp_accum_configs(_ev: Any) -> list[Any]:
        from verify.measure.experiments.llm_probe import ACCUM_K
        return [Config(f"Gloo N=2 k={ACCUM_K}", {"N": 2, "k": ACCUM_K})]

    def tree_configs(_ev: Any) -> list[Any]:
        return [Config(f"tree N={n_}", {"N": n_, "M": 4}) for n_ in (2, 3, 4, 5, 8, 16)]

    # ---- readers
    Measure = Callable[[Any, Any, tuple[str, ...]], Any]

    def simulated(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
        def measure(_ev: Any, cfg: Any, args: tuple[str, ...]) -> Any:
            got = read(dict(cfg.values), args)  # the configuration's values (a claim's fixed ones included)
            return None if got is None else (value(got), dict(cfg.values))
        return measure

    def spec_run(at: dict[str, Any]) -> Any:
        from verify.measure.sim.speculative import run
        if "alpha" not in at or "gamma" not in at:
            return None
        return run(alpha=float(at["alpha"]), gamma=int(at["gamma"]))

    def spec_read(key: str) -> Measure:
        def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
            r = spec_run(at)
            if r is None:
                return None
            if key == "speedup":
                return None if "c" not in at else r.tokens_per_step / (int(at["gamma"]) * float(at["c"]) + 1)
            return getattr(r, key)
        return simulated(read)

    def fail_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
        from verify.measure.sim.failures import run
        if not {"tau", "delta", "mu"} <= set(at):
            return None
        return run(tau=float(at["tau"]), delta=float(at["delta"]), mu=float(at["mu"])).waste

    def kv_read(key: str) -> Measure:
        def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
            from verify.measure.sim.kv_allocator import run
            if not {"B_kv", "L_max"} <= set(at):
                return None
            return getattr(run(block=int(at["B_kv"]), l_max=int(at["L_max"])), key)
        return simulated(read)

    def batch_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
        from verify.measure.sim.kv_allocator import static_utilization
        return None if "b" not in at else static_utilization(batch=int(at["b"]))

    def ranks(family: str, read: Callable[[list[dict[str, Any]], tuple[str, ...]], Any]) -> Measure:
        def measure(_ev: Any, cfg: Any, args: tuple[str, ...]) -> Any:
            from verify.measure.experiments.llm_probe import probe
            n_ = int(cfg.values["N"])
            if family in ("dcp", "ddp_accum") and n_ != 2:
                return None
            return value(read(probe(n_)["by_rank"], args)), {}
        return measure

    @cache
    def equivalence(k_: int) -> dict[str, Any]:
        from verify.measure.experiments.grad_accumulation import equivalence as run
        return dict(run(k_))

    def accum_read(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
        def measure(_ev: Any, cfg: Any, args: tuple[str, ...]) -> Any:
            return value(read(equivalence(int(cfg.values["k"])), args)), {}
        return measure

    def ddp_accum(_ev: Any, cfg: Any, args: tuple[str, ...]) -> Any:
        from verify.measure.experiments.llm_probe import ACCUM_K, probe
        if int(cfg.values.get("k", 0)) != ACCUM_K or int(cfg.values.get("N", 2)) != 2:
            return None
        return sp.Integer(max(r["ddp_no_sync"][args[0]]["all_reduce_calls"] for r in probe(2)["by_rank"])), {}

    def tree_read(key: str) -> Measure:
        def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
            from verify.measure.sim.tree import tree_allreduce
            n_, m_ = int(at["N"]), int(at["M"])
            data = [[float(r + i) for i in range(m_)] for r in range(n_)]
            run = tree_allreduce(data)
            if any(row != [sum(col) for col in zip(*data, strict=True)] for row in run.result):
                return sp.nan  # a wrong sum never agrees with anything
            return run.rounds if key == "rounds" else max(run.sent)
        return simulated(read)

    log2n = sp.ceiling(sp.log(N, 2))
    ckpt_bpp = {"resumable": 12, "with_weights16": 14, "weights16": 2}
    quantities = (
        # ---- speculative decoding (verify.known.formulas.speculative; verify.measure.sim.speculative)
        Q("spec_tokens_per_step", (), "tokens", "simulated",
          "tokens emitted per target forward with acceptance rate α and γ drafts: (1 − α^(γ+1))/(1 − α) "
          "(seeded rejection sampler, 30,000 steps; ± 1/20)",
          lambda: spec.tokens_per_step(alpha=alpha, gamma=gamma), "spec", spec_read("tokens_per_step"),
          tolerance=sp.Rational(1, 20)),
        Q("spec_accepted_drafts", (), "tokens", "simulated",
          "accepted draft tokens per step: α(1 − α^γ)/(1 − α) (± 1/20)",
          lambda: spec.accepted_drafts(alpha=alpha, gamma=gamma), "spec", spec_read("accepted_per_step"),
          tolerance=sp.Rational(1, 20)),
        Q("spec_speedup", (), "ratio", "simulated",
          "walltime speed-up over plain decoding when a draft forward costs c target forwards: "
          "(1 − α^(γ+1))/((1 − α)(γc + 1)) (sampled tokens per step over γc + 1; ± 1/20)",
          lambda: spec.speedup(alpha=alpha, gamma=gamma, c=c), "spec", spec_read("speedup"),
          tolerance=sp.Rational(1, 20)),
        Q("spec_output_tv", (), "total variation", "simulated",
          "total variation between the tokens speculative sampling emitted and the target distribution; "
          "simulated only", None, "spec", spec_read("tv_to_target")),
        # ---- checkpoint interval (verify.known.formulas.checkpoint_interval; verify.measure.sim.failures)
        Q("ckpt_waste", (), "fraction", "simulated",
          "share of wall time not spent on useful compute, checkpointing every τ at cost δ under exponential "
          "failures of mean μ (no restart cost): 1 − τ/(μ(e^((τ+δ)/μ) − 1)) (± 1/200)",
          lambda: ci.expected_waste(tau=tau, delta=delta, mu=mu, exp=sp.exp), "failures", simulated(fail_read),
          tolerance=sp.Rational(1, 200)),
        Q("first_order_waste", (), "fraction", "calculated", "the first-order waste δ/τ + τ/(2μ)",
          lambda: ci.first_order_waste(tau=tau, delta=delta, mu=mu)),
        Q("young_interval", (), "s", "calculated", "Young's interval √(2δμ)",
          lambda: ci.young_interval(delta=delta, mu=mu, sqrt=sp.sqrt)),
        Q("daly_interval", (), "s", "calculated", "Daly's higher-order interval √(2δμ)(1 + ⅓√(δ/2μ) + δ/(18μ)) − δ",
          lambda: ci.daly_interval(delta=delta, mu=mu, sqrt=sp.sqrt)),
        Q("cluster_mtbf", (), "s", "calculated", "MTBF of N independent nodes of MTBF μ: μ/N",
          lambda: ci.cluster_mtbf(node_mtbf=mu, nodes=N)),
        # ---- paged KV cache and batching (verify.known.formulas.kv_paging; verify.measure.sim.kv_allocator)
        Q("kv_paged_waste_tokens", (), "token slots", "simulated",
          "unused slots of a finished sequence's blocks, mean over up to 2,000 requests: (B_kv − 1)/2 (± B_kv/20)",
          lambda: kv.paged_waste_tokens(block=B_kv), "kvalloc", kv_read("paged_waste_mean"), tolerance=B_kv / 20),
        Q("kv_paged_waste_max", (), "token slots", "simulated", "most unused slots of any sequence: B_kv − 1",
          lambda: kv.paged_waste_max(block=B_kv), "kvalloc", kv_read("paged_waste_max")),
        Q("kv_paged_waste_fraction", (), "fraction", "simulated",
          "unused share of the paged allocator's slots: (B_kv − 1)/(L_max + B_kv) (± 10%)",
          lambda: kv.paged_waste_fraction(block=B_kv, l_max=L_max), "kvalloc", kv_read("paged_waste_fraction"),
          tolerance=(B_kv - 1) / (L_max + B_kv) / 10),
        Q("kv_contiguous_waste_fraction", (), "fraction", "simulated",
          "unused share when every request reserves L_max slots: (L_max − 1)/(2L_max) (± 1/50)",
          lambda: kv.contiguous_waste_fraction(l_max=L_max), "kvalloc", kv_read("contiguous_waste_fraction"),
          tolerance=sp.Rational(1, 50)),
        Q("kv_blocks_leaked", (), "blocks", "simulated", "blocks still allocated after every request ended: 0",
          lambda: sp.Integer(0), "kvalloc", kv_read("blocks_leaked")),
        Q("static_batch_utilization", (), "fraction", "simulated",
          "busy share of slot-steps when a static batch of b runs until its longest request ends: (b + 1)/(2b) "
          "(L_max → ∞; simulated at L_max = 4096, ± 1/100)",
          lambda: kv.static_batch_utilization(batch=b), "batching", simulated(batch_read),
          tolerance=sp.Rational(1, 100)),
        # ---- expert parallelism (verify.known.formulas.moe; verify.measure.experiments.all_to_all)
        Q("moe_a2a_send", (), "elements", "measured",
          "elements a rank sends to other ranks in one dispatch all-to-all: k·T·h·(N − 1)/N (bytes handed to isend, "
          "balanced router)", lambda: moe.a2a_send(tokens=T, hidden=h, top_k=k, n=N), "moe",
          ranks("moe", lambda rs, _a: sp.Rational(max(r["moe"]["sent_elements_forward"] for r in rs), 2))),
        Q("moe_a2a_calls", ("phase",), "all-to-alls", "construction", "all-to-alls per MoE layer and phase: 2",
          lambda ph: sp.Integer(moe.a2a_per_layer(phase=ph)) if ph != "step" else sp.Integer(0), "moe",
          ranks("moe", lambda rs, a: rs[0]["moe"]["calls"].get(f"all_to_all/{a[0]}", 0))),
        Q("moe_max_abs_error", (), "value", "measured",
          "largest |difference| of the expert-parallel layer's output and gradients from one process's (fp64); "
          "measured only", None, "moe", ranks("moe", lambda rs, _a: max(r["moe"]["max_abs_diff"] for r in rs))),
        # ---- context parallelism (verify.known.formulas.sequence_parallel; verify.measure.experiments.ring_attention)
        Q("ring_attn_send", (), "elements", "measured",
          "elements a rank sends in one ring-attention forward: 2(N − 1)·b·s·h/N (bytes handed to isend)",
          lambda: cp.ring_attention_send(b=b, s=s, h=h, n=N), "cp",
          ranks("cp", lambda rs, _a: max(r["ring_attention"]["sent_elements"] for r in rs))),
        Q("ring_attn_steps", (), "steps", "construction", "K/V passing steps of one ring-attention forward: N − 1",
          lambda: cp.ring_attention_steps(n=N), "cp", ranks("cp", lambda rs, _a: rs[0]["ring_attention"]["steps"])),
        Q("ring_attn_max_abs_error", (), "value", "measured",
          "largest |difference| of ring attention's output from full softmax attention (fp64); measured only",
          None, "cp", ranks("cp", lambda rs, _a: max(r["ring_attention"]["max_abs_diff"] for r in rs))),
        Q("ulysses_send", (), "elements", "measured",
          "elements a rank sends in one Ulysses forward (4 all-to-alls): 4·b·s·h·(N − 1)/N²",
          lambda: cp.ulysses_send(b=b, s=s, h=h, n=N), "cp",
          ranks("cp", lambda rs, _a: max(r["ulysses"]["sent_elements"] for r in rs))),
        Q("ulysses_max_abs_error", (), "value", "measured",
          "largest |difference| of Ulysses' output from full attention (fp64); measured only", None, "cp",
          ranks("cp", lambda rs, _a: max(r["ulysses"]["max_abs_diff"] for r in rs))),
        # ---- sharded checkpoints (verify.known.formulas.sharded_checkpoint; verify.measure.experiments.dcp_checkpoint)
        Q("dcp_data_bytes", (), "bytes", "measured",
          "bytes of all ranks' DCP data files for fp32 weights + Adam m and v: 12Ψ (± 2%: DCP frames each item)",
          lambda: sc.checkpoint_bytes(psi=Psi), "dcp",
          ranks("dcp", lambda rs, _a: sum(b_ for f, b_ in rs[0]["dcp"]["files"].items() if f.endswith(".distcp"))),
          tolerance=12 * Psi / 50),
        Q("dcp_rank_bytes", (), "bytes", "measured",
          "bytes of the largest rank's DCP data file: 12Ψ/N (± 2%)", lambda: sc.shard_bytes(psi=Psi, n=N), "dcp",
          ranks("dcp", lambda rs, _a: max(b_ for f, b_ in rs[0]["dcp"]["files"].items() if f.endswith(".distcp"))),
          tolerance=12 * Psi / (50 * N)),
        Q("dcp_metadata_bytes", (), "bytes", "measured", "bytes of DCP's .metadata file; measured only", None, "dcp",
          ranks("dcp", lambda rs, _a: rs[0]["dcp"]["files"][".metadata"])),
        Q("dcp_roundtrip_error", (), "value", "measured",
          "largest |difference| of weights and Adam moments after dcp.load into a fresh model; measured only",
          None, "dcp", ranks("dcp", lambda rs, _a: max(r["dcp"]["roundtrip_max_abs_diff"] for r in rs))),
        Q("ckpt_bytes", ("ckpt",), "bytes", "calculated",
          "checkpoint bytes: resumable 12Ψ (fp32 weights + m + v), with 16-bit weights 14Ψ, weights only 2Ψ",
          lambda kind: sc.checkpoint_bytes(psi=Psi, bytes_per_param=ckpt_bpp[kind])),
        Q("ckpt_write_time", (), "s", "calculated", "time to write a resumable checkpoint, N ranks in parallel at W "
          "bytes/s each: 12Ψ/(N·W)", lambda: sc.write_seconds(psi=Psi, n=N, bandwidth=W)),
        # ---- gradient accumulation (verify.known.formulas.grad_accumulation;
        # verify.measure.experiments.grad_accumulation)
        Q("accum_grad_error", ("accum",), "value", "measured",
          "largest |difference| between the accumulated gradient of k micro-batches and the k·b-sample batch's "
          "(fp64 MLP); measured only", None, "accum", accum_read(lambda r, a: r[a[0]]["max_abs_diff"])),
        Q("accum_grad_ratio", ("accum",), "ratio", "measured",
          "norm of the accumulated gradient over the full batch's: 1 with losses divided by k, k without",
          lambda a: sp.Integer(1) if a == "scaled" else ga.unscaled_gradient_ratio(k=k), "accum",
          accum_read(lambda r, a: r[a[0]]["norm_ratio"]), tolerance=sp.Rational(1, 10**9)),
        Q("accum_token_mean_error", (), "relative error", "measured",
          "relative error of averaging a token-level loss per micro-batch (unequal token counts) against the "
          "global token mean; measured only", None, "accum", accum_read(lambda r, _a: r["token_mean_rel_error"])),
        Q("ddp_accum_allreduces", ("sync",), "all-reduces", "measured",
          "DDP gradient all-reduces (one bucket) per optimizer step of k micro-batches: 1 with no_sync, k without "
          "(comm meter)", lambda mode: ga.allreduces_per_step(k=k, no_sync=mode == "no_sync"), "ddp_accum",
          ddp_accum),
        Q("global_batch", (), "samples", "calculated", "samples per optimizer step: b·k·d",
          lambda: ga.global_batch(b=b, k=k, d=d)),
        # ---- ring vs tree (verify.known.formulas.tree_allreduce; verify.measure.sim.tree)
        Q("tree_allreduce_rounds", (), "rounds", "simulated",
          "rounds of a binomial-tree all-reduce (reduce to a root, then broadcast): 2⌈log₂N⌉",
          lambda: 2 * log2n, "tree", tree_read("rounds")),
        Q("tree_allreduce_max_send", (), "elements", "simulated",
          "most elements one rank sends in an unpipelined binomial-tree all-reduce of M: ⌈log₂N⌉·M (the root)",
          lambda: log2n * M, "tree", tree_read("max_send")),
        Q("tree_allreduce_time", ("tree",), "s", "calculated",
          "α-β time: binomial 2⌈log₂N⌉(α + M/β); pipelined double binary tree 2⌈log₂N⌉α + 2M/β",
          lambda kind: 2 * log2n * (alpha + M / beta) if kind == "binomial" else 2 * log2n * alpha + 2 * M / beta),
        Q("ring_tree_crossover", (), "bytes", "calculated",
          "message size where the ring's and the double tree's α-β times are equal: N·α·β·(N − 1 − ⌈log₂N⌉)",
          lambda: N * alpha * beta * ((N - 1) - log2n)),
        # ---- tensor-parallel inference (verify.known.formulas.tp_inference)
        Q("tp_decode_allreduces", (), "all-reduces", "calculated", "all-reduces per generated token: 2L",
          lambda: sp.Integer(2) * L),
        Q("tp_decode_send_bytes", (), "bytes", "calculated",
          "bytes a rank sends per generated token (16-bit, ring): 2L × 2(t − 1)/t × b·h × 2",
          lambda: tpi.decode_send_bytes(layers=L, b=b, h=h, t=t)),
        Q("tp_decode_comm_time", (), "s", "calculated", "α-β communication time per token: 2L(2(t − 1)α) + bytes/β",
          lambda: tpi.decode_comm_seconds(layers=L, b=b, h=h, t=t, alpha=alpha, beta=beta)),
        # ---- 3D parallelism (verify.known.formulas.parallel_3d)
        Q("gpus_3d", (), "GPUs", "calculated", "GPUs of a t × p × d layout: t·p·d", lambda: p3.gpus(t=t, p=p, d=d)),
        Q("params_per_gpu_3d", (), "parameters", "calculated", "parameters per GPU: Ψ/(tp)",
          lambda: p3.params_per_gpu(psi=Psi, t=t, p=p)),
        Q("state_bytes_3d", (), "bytes", "calculated",
          "model-state bytes per GPU, mixed-precision Adam, ZeRO-1 over d: 4Ψ/(tp) + 12Ψ/(tpd)",
          lambda: p3.state_bytes_per_gpu(psi=Psi, t=t, p=p, d=d)),
    )
    v.QUANTITIES.update({q.name: q for q in quantities})
    v.FAMILIES.update({"spec": spec_configs, "failures": fail_configs, "kvalloc": kv_configs,
                       "batching": batch_configs, "moe": moe_configs, "cp": cp_configs, "dcp": dcp_configs,
                       "accum": accum_configs, "ddp_accum": ddp_accum_configs, "tree": tree_configs})
    # frozensets: replaced in the module (verify.judge.core imports RERUNNABLE after this has run)
    setattr(v, "RERUNNABLE", getattr(v, "RERUNNABLE") | {"spec", "failures", "kvalloc", "batching", "accum"})  # noqa: B009,B010
    setattr(v, "GLOO_PROBE_FAMILIES", getattr(v, "GLOO_PROBE_FAMILIES") | {"moe", "cp", "dcp", "ddp_accum"})  # noqa: B009,B010

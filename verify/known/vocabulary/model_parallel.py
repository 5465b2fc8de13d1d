"""Model parallelism: a Megatron tensor-parallel layer, expert parallelism (MoE), context parallelism, 3D layouts.

    python -c "from verify.measure.probes import probe; print(probe(2)['tp']['shape'])"   # Gloo ranks, torch

Ledger formulas: ``verify.known.formulas`` tensor_parallel, moe, sequence_parallel, parallel_3d. Measured on
Gloo ranks: one Megatron layer on 2 ranks in fp64 (``verify.measure.experiments.dist_probe``), an MoE layer's
all-to-alls and ring attention / Ulysses at N = 2 and 4 (``verify.measure.experiments.llm_probe``: bytes handed
to isend, outputs against one process's). 3D layouts are arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import moe
from verify.known.formulas import parallel_3d as p3
from verify.known.formulas import sequence_parallel as cp
from verify.known.formulas import tensor_parallel as tp
from verify.known.vocabulary.activations import k
from verify.known.vocabulary.data_parallel import d
from verify.known.vocabulary.pipeline import p
from verify.known.vocabulary.readers import on_llm_probe
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import T, b, h, s
from verify.known.vocabulary.zero import N, Psi

SYMBOLS = (SymbolSpec("t", "tensor-parallel degree", lower=2),)
(t,) = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {}


# ---- tensor parallelism: one Megatron layer on 2 Gloo ranks, fp64 (verify.measure.experiments.dist_probe)
def _tp() -> dict[str, Any]:
    from verify.measure.probes import probe

    return dict(probe(2)["tp"])


def _tp_configs(_ev: Any) -> list[Config]:
    sh = _tp()["shape"]
    return [Config("Gloo t=2", {"t": 2, "b": sh["b"], "s": sh["s"], "h": sh["h"], "a": sh["heads"]})]


def _tp_measure(read: Callable[[dict[str, Any], tuple[str, ...]], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        run = _tp()
        if any(cfg.values.get(x) != run["shape"][x] for x in ("b", "s", "h")):
            return None  # a worked example at other sizes: calculated
        return sp.nsimplify(read(run, args), rational=True), {}
    return measure


def _tp_allreduce_elements(run: dict[str, Any], _args: tuple[str, ...]) -> Any:
    sizes = {r["bytes"] // run["element_size"] for r in run["records"] if r["kind"] == "all_reduce"}
    return sizes.pop() if len(sizes) == 1 else sp.nan  # calls of different sizes: no single value


# ---- MoE and context parallelism on the LLM probe's Gloo ranks
def _moe_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.all_to_all import MOE_SHAPE as sh
    from verify.measure.experiments.llm_probe import WORLD_SIZES

    return [Config(f"Gloo N={n_}", {"N": n_, "T": sh["tokens"], "h": sh["hidden"], "k": sh["top_k"]})
            for n_ in WORLD_SIZES]


def _cp_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.llm_probe import WORLD_SIZES
    from verify.measure.experiments.ring_attention import RING_SHAPE as sh

    return [Config(f"Gloo N={n_}", {"N": n_, "b": sh["b"], "s": sh["s"], "h": sh["heads"] * sh["d_head"]})
            for n_ in WORLD_SIZES]


SHARD_CASES = ((2, 2, 2), (2, 4, 1), (4, 2, 4))  # (t, p, d), Ψ = 2048: 8 Linear(16, 16)


def _shard_configs(_ev: Any) -> list[Config]:
    return [Config(f"shards t={t_} p={p_} d={d_}", {"Psi": 2048, "t": t_, "p": p_, "d": d_}) for t_, p_, d_ in
            SHARD_CASES]


def _shard_count(key: str) -> Measure:
    """Rank 0's share of a model cut t × p ways with ZeRO-1 over d (``verify.measure.experiments.sharding_3d``),
    re-run at the values asked for (d = 1, Ψ = tpΨ …) when they split evenly."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.experiments.sharding_3d import rank_share

        try:
            values = [sp.Integer(sp.sympify(cfg.values[x])) for x in ("Psi", "t", "p", "d")]
        except (KeyError, TypeError, ValueError):
            return None
        got = rank_share(*(int(x) for x in values))
        # no symbol values of its own: a claim's other relations keep the configuration's d, not this atom's d = 1
        return None if got is None else (sp.Integer(got[key]), {})
    return measure


FAMILIES = (
    Family("sharding_3d", _shard_configs, "a model cut t × p ways, ZeRO-1 over d, counted", rerunnable=True,
           needs=("Psi", "t", "p", "d")),
    Family("tp", _tp_configs, "a TP layer on 2 Gloo ranks", gloo_probe=True),
    Family("moe", _moe_configs, "MoE layer on 2 and 4 Gloo ranks", gloo_probe=True),
    Family("cp", _cp_configs, "ring attention / Ulysses on 2 and 4 Gloo ranks", gloo_probe=True),
)

QUANTITIES = (
    # ---- tensor parallelism (verify.known.formulas.tensor_parallel), one Megatron layer over 2 Gloo ranks
    Quantity("tp_allreduces_per_layer", ("phase",), "all-reduces", "construction",
             "Megatron's f/g all-reduces per transformer layer and pass (counted on the ranks; our TP operators "
             "call them, so the count holds by construction)",
             lambda ph: tp.allreduces_per_layer().get(ph, 0), "tp",
             _tp_measure(lambda r, a: sum(1 for x in r["records"] if (x["kind"], x["phase"]) == ("all_reduce", a[0])))),
    Quantity("tp_collectives_other", (), "calls", "measured",
             "collective calls of a TP layer's step that are not all-reduces", lambda: sp.Integer(0), "tp",
             _tp_measure(lambda r, _a: sum(1 for x in r["records"] if x["kind"] != "all_reduce"))),
    Quantity("tp_allreduce_elements", (), "elements", "measured", "elements of each of a TP layer's all-reduces: bsh",
             lambda: tp.allreduce_elements(b=b, s=s, h=h), "tp", _tp_measure(_tp_allreduce_elements)),
    Quantity("tp_weights", (), "elements", "measured", "a layer's matmul weights, unsharded: 4h² attention + 8h² MLP",
             lambda: tp.matmul_weights(h=h)["total"], "tp",
             _tp_measure(lambda r, _a: r["unsharded_matmul_weight_elements"])),
    Quantity("tp_weights_per_rank", (), "elements", "measured", "matmul weights per rank: 12h²/t",
             lambda: tp.weights_per_rank(h=h, t=t), "tp", _tp_measure(lambda r, _a: r["matmul_weight_elements"])),
    Quantity("tp_max_abs_error", (), "value", "measured",
             "largest |difference| of the TP layer's output, input gradient and weight gradients from the unsharded "
             "layer's (fp64); measured only", None, "tp", _tp_measure(lambda r, _a: max(r["max_abs_diff"].values()))),
    # ---- expert parallelism (verify.known.formulas.moe; verify.measure.experiments.all_to_all)
    Quantity("moe_a2a_send", (), "elements", "measured",
             "elements a rank sends to other ranks in one dispatch all-to-all: k·T·h·(N − 1)/N (bytes handed to "
             "isend, balanced router)", lambda: moe.a2a_send(tokens=T, hidden=h, top_k=k, n=N), "moe",
             on_llm_probe(lambda rs, _a: sp.Rational(max(r["moe"]["sent_elements_forward"] for r in rs), 2))),
    Quantity("moe_a2a_calls", ("phase",), "all-to-alls", "construction", "all-to-alls per MoE layer and phase: 2",
             lambda ph: moe.a2a_per_layer(phase=ph), "moe",
             on_llm_probe(lambda rs, a: rs[0]["moe"]["calls"].get(f"all_to_all/{a[0]}", 0))),
    Quantity("moe_max_abs_error", (), "value", "measured",
             "largest |difference| of the expert-parallel layer's output and gradients from one process's (fp64); "
             "measured only", None, "moe", on_llm_probe(lambda rs, _a: max(r["moe"]["max_abs_diff"] for r in rs))),
    # ---- context parallelism (verify.known.formulas.sequence_parallel; verify.measure.experiments.ring_attention)
    Quantity("ring_attn_send", (), "elements", "measured",
             "elements a rank sends in one ring-attention forward: 2(N − 1)·b·s·h/N (bytes handed to isend)",
             lambda: cp.ring_attention_send(b=b, s=s, h=h, n=N), "cp",
             on_llm_probe(lambda rs, _a: max(r["ring_attention"]["sent_elements"] for r in rs))),
    Quantity("ring_attn_steps", (), "steps", "construction", "K/V passing steps of one ring-attention forward: N − 1",
             lambda: cp.ring_attention_steps(n=N), "cp", on_llm_probe(lambda rs, _a: rs[0]["ring_attention"]["steps"])),
    Quantity("ring_attn_max_abs_error", (), "value", "measured",
             "largest |difference| of ring attention's output from full softmax attention (fp64); measured only",
             None, "cp", on_llm_probe(lambda rs, _a: max(r["ring_attention"]["max_abs_diff"] for r in rs))),
    Quantity("ulysses_send", (), "elements", "measured",
             "elements a rank sends in one Ulysses forward (4 all-to-alls): 4·b·s·h·(N − 1)/N²",
             lambda: cp.ulysses_send(b=b, s=s, h=h, n=N), "cp",
             on_llm_probe(lambda rs, _a: max(r["ulysses"]["sent_elements"] for r in rs))),
    Quantity("ulysses_max_abs_error", (), "value", "measured",
             "largest |difference| of Ulysses' output from full attention (fp64); measured only", None, "cp",
             on_llm_probe(lambda rs, _a: max(r["ulysses"]["max_abs_diff"] for r in rs))),
    # ---- 3D parallelism (verify.known.formulas.parallel_3d)
    # a definition: the layout's size is what N = t·p·d names, nothing to measure (shown as a definition, not a ✓)
    Quantity("gpus_3d", (), "GPUs", "definition", "GPUs of a t × p × d layout: t·p·d (a definition)",
             lambda: p3.gpus(t=t, p=p, d=d)),
    # counted: one rank's tensors after cutting a model t × p ways with ZeRO-1 over d (verify.measure.experiments
    # .sharding_3d)
    Quantity("params_per_gpu_3d", (), "parameters", "counted", "parameters per GPU: Ψ/(tp) (counted on rank 0's "
             "shards)", lambda: p3.params_per_gpu(psi=Psi, t=t, p=p), "sharding_3d", _shard_count("params")),
    Quantity("state_bytes_3d", (), "bytes", "counted",
             "model-state bytes per GPU, mixed-precision Adam, ZeRO-1 over d: 4Ψ/(tp) + 12Ψ/(tpd) (counted: the "
             "bytes of rank 0's tensors)", lambda: p3.state_bytes_per_gpu(psi=Psi, t=t, p=p, d=d), "sharding_3d",
             _shard_count("state_bytes")),
)

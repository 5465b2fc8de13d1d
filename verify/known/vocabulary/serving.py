"""Serving: the KV cache, paged KV blocks and batching, speculative decoding, tensor-parallel decoding.

    python -c "from verify.measure.sim.speculative import run; print(run(alpha=0.8, gamma=4).tokens_per_step)"

Ledger formulas: ``verify.known.formulas`` kv_cache, kv_paging, speculative, tp_inference. Measured on the tiny
decoder's bf16 cache tensors after a prefill, and simulated (seeded) by ``verify.measure.sim.speculative`` (a
rejection sampler) and ``verify.measure.sim.kv_allocator`` (paged and contiguous allocators, static batching);
the simulators re-run at a claim's own values. A tensor-parallel decoding step is run on t simulated ranks
(``verify.measure.experiments.tp_decode``): its all-reduces counted, the bytes its ring all-reduces send and their
step-by-step α-β time simulated, at two (L, b, h, t).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import kv_cache as kv
from verify.known.formulas import kv_paging as paging
from verify.known.formulas import speculative as spec
from verify.known.formulas import tp_inference as tpi
from verify.known.vocabulary.collectives import alpha, beta
from verify.known.vocabulary.model_parallel import t
from verify.known.vocabulary.readers import exact, simulated
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import a, b, d, e, h, on_decoder, s
from verify.known.vocabulary.zero import L

SYMBOLS = (
    SymbolSpec("g", "key/value heads (GQA groups; g = a is MHA, g = 1 MQA)"),
    SymbolSpec("gamma", "γ, draft tokens per speculative step"),
    SymbolSpec("c", "cost of one draft forward in target forwards (speculative decoding)", integer=False),
    SymbolSpec("B_kv", "KV-cache block size (token slots per block)"),
    SymbolSpec("L_max", "longest sequence a request may reach (token slots)", grows=True),
)
g, gamma, c, B_kv, L_max = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {"attn": ("mha", "gqa", "mqa")}  # KV heads: a, g, 1

SPEC_CASES = ((0.6, 2, 0.1), (0.8, 4, 0.05), (0.9, 8, 0.02))  # (α, γ, c)
KV_CASES = ((16, 256), (8, 128), (32, 512))  # (B_kv, L_max)
BATCH_CASES = (4, 8, 32)


def _spec_configs(_ev: Any) -> list[Config]:
    return [Config(f"α={a_} γ={g_} c={c_}", {"alpha": exact(a_), "gamma": g_, "c": exact(c_)})
            for a_, g_, c_ in SPEC_CASES]


def _kv_configs(_ev: Any) -> list[Config]:
    return [Config(f"B_kv={b_} L_max={l_}", {"B_kv": b_, "L_max": l_}) for b_, l_ in KV_CASES]


def _batch_configs(_ev: Any) -> list[Config]:
    return [Config(f"b={b_} L_max=4096", {"b": b_}) for b_ in BATCH_CASES]


def _tp_decode_configs(_ev: Any) -> list[Config]:
    from verify.known.vocabulary.collectives import RING_ALPHA, RING_BETA
    from verify.measure.experiments.tp_decode import TP_DECODE_CASES

    return [Config(f"TP decode L={l_} b={b_} h={h_} t={t_}", {"L": l_, "b": b_, "h": h_, "t": t_,
                                                             "alpha": RING_ALPHA, "beta": RING_BETA})
            for l_, b_, h_, t_ in TP_DECODE_CASES]


def _tp_decode(read: Callable[[dict[str, Any], Config], Any]) -> Measure:
    """One TP decoding step at the configuration's (L, b, h, t) (``verify.measure.experiments.tp_decode``), only
    where it ran; a step whose output differs from the unsharded decoder's reads NaN (agrees with nothing)."""
    def measure(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.experiments.tp_decode import TP_DECODE_CASES, tp_decode_step

        try:
            case = tuple(int(sp.Integer(sp.sympify(cfg.values[k]))) for k in ("L", "b", "h", "t"))
        except (KeyError, TypeError, ValueError):
            return None
        if case not in TP_DECODE_CASES:
            return None
        run = tp_decode_step(*case)
        return (sp.nsimplify(read(run, cfg), rational=True) if run["matches_unsharded"] else sp.nan), {}
    return measure


def _tp_decode_time(run: dict[str, Any], cfg: Config) -> Any:
    from verify.measure.sim.timing import lockstep_time

    return lockstep_time(run["step_messages"], cfg.values["alpha"], cfg.values["beta"], run["element_size"])


FAMILIES = (
    Family("spec", _spec_configs, "speculative sampler, seeded", rerunnable=True),
    Family("kvalloc", _kv_configs, "KV allocators, seeded", rerunnable=True),
    Family("batching", _batch_configs, "static batching, seeded", rerunnable=True),
    Family("tp_decode", _tp_decode_configs, "a TP decoding step on t simulated ranks, ring all-reduces"),
)


def _kv(per_token: bool) -> Callable[[dict[str, Any], tuple[str, ...], Config], Any]:
    def read(r: dict[str, Any], args: tuple[str, ...], cfg: Config) -> Any:
        total = r["kv_cache_bytes"][args[0]]
        return sp.Rational(total, int(cfg.values["s"]) * int(cfg.values["b"])) if per_token else total
    return read


def _kv_heads(attn: str) -> Any:
    return kv.kv_heads(attn=attn, a=a, g=g)


def _spec_read(key: str) -> Measure:
    def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
        from verify.measure.sim.speculative import run

        if "alpha" not in at or "gamma" not in at:
            return None
        r = run(alpha=float(at["alpha"]), gamma=int(at["gamma"]))
        if key == "speedup":
            return None if "c" not in at else r.tokens_per_step / (int(at["gamma"]) * float(at["c"]) + 1)
        return getattr(r, key)
    return simulated(read)


def _kv_read(key: str) -> Measure:
    def read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
        from verify.measure.sim.kv_allocator import run

        if not {"B_kv", "L_max"} <= set(at):
            return None
        return getattr(run(block=int(at["B_kv"]), l_max=int(at["L_max"])), key)
    return simulated(read)


def _batch_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    from verify.measure.sim.kv_allocator import static_utilization

    return None if "b" not in at else static_utilization(batch=int(at["b"]))


QUANTITIES = (
    # ---- KV cache (verify.known.formulas.kv_cache), real bf16 cache tensors after a prefill
    Quantity("kv_cache_bytes", ("attn",), "bytes", "measured",
             "bytes of the K and V cache of b sequences of s tokens: 2·L·heads·d·e·s·b (heads a, g, 1)",
             lambda attn: kv.cache_bytes(layers=L, kv_heads=_kv_heads(attn), head_dim=d, elem=e, tokens=s, batch=b),
             "decoder", on_decoder(_kv(per_token=False))),
    Quantity("kv_bytes_per_token", ("attn",), "bytes", "measured", "the KV cache per token: 2·L·heads·d·e",
             lambda attn: kv.bytes_per_token(layers=L, kv_heads=_kv_heads(attn), head_dim=d, elem=e), "decoder",
             on_decoder(_kv(per_token=True))),
    # ---- speculative decoding (verify.known.formulas.speculative; verify.measure.sim.speculative)
    Quantity("spec_tokens_per_step", (), "tokens", "simulated",
             "tokens emitted per target forward with acceptance rate α and γ drafts: (1 − α^(γ+1))/(1 − α) "
             "(seeded rejection sampler, 30,000 steps; ± 1/20)",
             lambda: spec.tokens_per_step(alpha=alpha, gamma=gamma), "spec", _spec_read("tokens_per_step"),
             tolerance=sp.Rational(1, 20)),
    Quantity("spec_accepted_drafts", (), "tokens", "simulated",
             "accepted draft tokens per step: α(1 − α^γ)/(1 − α) (± 1/20)",
             lambda: spec.accepted_drafts(alpha=alpha, gamma=gamma), "spec", _spec_read("accepted_per_step"),
             tolerance=sp.Rational(1, 20)),
    Quantity("spec_speedup", (), "ratio", "simulated",
             "walltime speed-up over plain decoding when a draft forward costs c target forwards: "
             "(1 − α^(γ+1))/((1 − α)(γc + 1)) (sampled tokens per step over γc + 1; ± 1/20)",
             lambda: spec.speedup(alpha=alpha, gamma=gamma, c=c), "spec", _spec_read("speedup"),
             tolerance=sp.Rational(1, 20)),
    Quantity("spec_output_tv", (), "total variation", "simulated",
             "total variation between the tokens speculative sampling emitted and the target distribution; "
             "simulated only", None, "spec", _spec_read("tv_to_target")),
    # ---- paged KV cache and batching (verify.known.formulas.kv_paging; verify.measure.sim.kv_allocator)
    Quantity("kv_paged_waste_tokens", (), "token slots", "simulated",
             "unused slots of a finished sequence's blocks, mean over up to 2,000 requests: (B_kv − 1)/2 (± B_kv/20)",
             lambda: paging.paged_waste_tokens(block=B_kv), "kvalloc", _kv_read("paged_waste_mean"),
             tolerance=B_kv / 20),
    Quantity("kv_paged_waste_max", (), "token slots", "simulated", "most unused slots of any sequence: B_kv − 1",
             lambda: paging.paged_waste_max(block=B_kv), "kvalloc", _kv_read("paged_waste_max")),
    Quantity("kv_paged_waste_fraction", (), "fraction", "simulated",
             "unused share of the paged allocator's slots: (B_kv − 1)/(L_max + B_kv) (± 10%)",
             lambda: paging.paged_waste_fraction(block=B_kv, l_max=L_max), "kvalloc",
             _kv_read("paged_waste_fraction"), tolerance=paging.paged_waste_fraction(block=B_kv, l_max=L_max) / 10),
    Quantity("kv_contiguous_waste_fraction", (), "fraction", "simulated",
             "unused share when every request reserves L_max slots: (L_max − 1)/(2L_max) (± 1/50)",
             lambda: paging.contiguous_waste_fraction(l_max=L_max), "kvalloc", _kv_read("contiguous_waste_fraction"),
             tolerance=sp.Rational(1, 50)),
    Quantity("kv_blocks_leaked", (), "blocks", "simulated", "blocks still allocated after every request ended: 0",
             lambda: sp.Integer(0), "kvalloc", _kv_read("blocks_leaked")),
    Quantity("static_batch_utilization", (), "fraction", "simulated",
             "busy share of slot-steps when a static batch of b runs until its longest request ends: (b + 1)/(2b) "
             "(L_max → ∞; simulated at L_max = 4096, ± 1/100)",
             lambda: paging.static_batch_utilization(batch=b), "batching", simulated(_batch_read),
             tolerance=sp.Rational(1, 100)),
    # ---- tensor-parallel inference (verify.known.formulas.tp_inference)
    # counted / simulated on a TP decoding step (verify.measure.experiments.tp_decode)
    Quantity("tp_decode_allreduces", (), "all-reduces", "counted", "all-reduces per generated token: 2L (counted: "
             "the all-reduces a TP decoding step calls)", lambda: tpi.decode_allreduces(layers=L), "tp_decode",
             _tp_decode(lambda run, _cfg: run["allreduces"])),
    Quantity("tp_decode_send_bytes", (), "bytes", "simulated",
             "bytes a rank sends per generated token (16-bit, ring): 2L × 2(t − 1)/t × b·h × 2 (simulated: the "
             "step's ring all-reduces, elements the busiest rank sent × element size)",
             lambda: tpi.decode_send_bytes(layers=L, b=b, h=h, t=t), "tp_decode",
             _tp_decode(lambda run, _cfg: run["sent_bytes"])),
    Quantity("tp_decode_comm_time", (), "s", "simulated", "α-β communication time per token: 2L(2(t − 1)α) + "
             "bytes/β (simulated: each ring step α + its largest message / β)",
             lambda: tpi.decode_comm_seconds(layers=L, b=b, h=h, t=t, alpha=alpha, beta=beta), "tp_decode",
             _tp_decode(_tp_decode_time)),
)

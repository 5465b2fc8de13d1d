"""Checkpoints: sharded DCP checkpoints, their bytes and write time, and how often to write them under failures.

    python -c "from verify.measure.sim.failures import run; print(run(tau=4648, delta=300, mu=36000).waste)"

Ledger formulas: ``verify.known.formulas`` sharded_checkpoint and checkpoint_interval (Young, Daly, the exact
waste). Measured by a DCP save of FSDP2 on 2 Gloo ranks (``verify.measure.experiments.dcp_checkpoint``, through
the LLM probe: file bytes, a round trip) and simulated (seeded) by ``verify.measure.sim.failures``, which
re-runs at a claim's own (τ, δ, μ); Young's interval by a search over τ of that simulator
(``verify.measure.sim.interval_search``: the band of τ within 1 % of the least simulated waste).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from verify.known.formulas import checkpoint_interval as ci
from verify.known.formulas import sharded_checkpoint as sc
from verify.known.vocabulary.readers import exact, on_llm_probe, simulated
from verify.known.vocabulary.records import Config, Family, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.zero import N, Psi

SYMBOLS = (
    SymbolSpec("delta", "δ, time to write one checkpoint (s)", integer=False),
    SymbolSpec("mu", "μ, mean time between failures of the whole job (s)", integer=False, grows=True),
    SymbolSpec("tau", "τ, compute time between two checkpoints (s)", integer=False),
    SymbolSpec("W", "storage write bandwidth per rank (bytes/s)", integer=False),
    SymbolSpec("tau_band", "half the width of the band of τ whose simulated waste is within 1 % of the minimum (s)",
               integer=False),
)
delta, mu, tau, W, tau_band = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {"ckpt": tuple(sc.BYTES_PER_PARAM)}  # resumable 12, with_weights16 14, weights16 2

FAIL_CASES = ((4648, 300, 36000), (600, 60, 3600), (2000, 30, 86400))  # (τ, δ, μ) in seconds


def _fail_configs(_ev: Any) -> list[Config]:
    return [Config(f"τ={t_} δ={d_} μ={m_}", {"tau": t_, "delta": d_, "mu": m_}) for t_, d_, m_ in FAIL_CASES]


def _dcp_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.dcp_checkpoint import DCP_LAYERS, DCP_WIDTH

    return [Config("Gloo N=2", {"N": 2, "Psi": DCP_LAYERS * (DCP_WIDTH**2 + DCP_WIDTH)})]


def _fail_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    from verify.measure.sim.failures import run

    if not {"tau", "delta", "mu"} <= set(at):
        return None
    return run(tau=float(at["tau"]), delta=float(at["delta"]), mu=float(at["mu"])).waste


def _first_order_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    from verify.measure.sim.first_order import run

    if not {"tau", "delta", "mu"} <= set(at) or not all(sp.sympify(at[x]).is_number for x in ("tau", "delta", "mu")):
        return None
    return round(run(tau=float(at["tau"]), delta=float(at["delta"]), mu=float(at["mu"])).overhead, 5)


def _best_interval(_ev: Any, cfg: Config, _args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """The centre of the simulated optimal band of τ at the configuration's (δ, μ), its half width as ``tau_band``
    (the tolerance): an interval formula agrees exactly when its τ lies in the band."""
    from verify.measure.sim.interval_search import best_interval

    if not {"delta", "mu"} <= set(cfg.values):
        return None
    band = best_interval(float(cfg.values["delta"]), float(cfg.values["mu"]))
    return exact(round(band.centre, 1)), {**cfg.values, "tau_band": exact(round(band.half_width, 1))}


_BAND_SAYS = "the band of τ whose simulated waste is within 1 % of the least"
_FIRST_ORDER_SAYS = "1/200, the spread allowed a seeded estimate over 40,000 segments"
_CLUSTER_SAYS = "2 % of μ/N, the spread allowed a seeded estimate from 20,000 stops"


def _data_files(ranks: list[dict[str, Any]]) -> list[int]:
    return [b_ for f, b_ in ranks[0]["dcp"]["files"].items() if f.endswith(".distcp")]


CLUSTER_CASES = ((8, 3600), (64, 36000), (1000, 10000))  # (N nodes, node MTBF μ in seconds)


def _cluster_configs(_ev: Any) -> list[Config]:
    return [Config(f"sim N={n_} μ={m_}", {"N": n_, "mu": m_}) for n_, m_ in CLUSTER_CASES]


def _cluster_read(at: dict[str, Any], _args: tuple[str, ...]) -> Any:
    from verify.measure.sim.cluster_failures import run

    if not {"N", "mu"} <= set(at) or not sp.sympify(at["N"]).is_Integer:
        return None
    return round(run(nodes=int(at["N"]), node_mtbf=float(at["mu"])).mean_time_between_stops, 3)


def _file_configs(_ev: Any) -> list[Config]:
    from verify.measure.experiments.checkpoint_files import CKPT_FILE_LAYERS, CKPT_FILE_WIDTH

    psi = CKPT_FILE_LAYERS * (CKPT_FILE_WIDTH**2 + CKPT_FILE_WIDTH)
    return [Config(f"torch.save {CKPT_FILE_LAYERS}×Linear({CKPT_FILE_WIDTH})", {"Psi": psi})]


def _file_bytes(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    """The tensor bytes of a real ``torch.save`` checkpoint of this kind (``verify.measure.experiments
    .checkpoint_files``), at the configuration's Ψ only."""
    from verify.measure.experiments.checkpoint_files import checkpoint_file_bytes

    got = checkpoint_file_bytes()
    if sp.sympify(cfg.values.get("Psi")) != got["params"]:
        return None
    return sp.Integer(got[args[0]]), {}


FAMILIES = (
    Family("cluster", _cluster_configs, "N-node failure simulator, seeded", rerunnable=True, needs=("N", "mu")),
    Family("ckpt_file", _file_configs, "torch.save of a model after one Adam step"),
    Family("failures", _fail_configs, "failure simulator, seeded", rerunnable=True),
    Family("dcp", _dcp_configs, "DCP save of FSDP2 on 2 Gloo ranks", gloo_probe=True),
)

QUANTITIES = (
    # ---- checkpoint interval (verify.known.formulas.checkpoint_interval; verify.measure.sim.failures)
    Quantity("ckpt_waste", (), "fraction", "simulated",
             "share of wall time not spent on useful compute, checkpointing every τ at cost δ under exponential "
             "failures of mean μ (no restart cost): 1 − τ/(μ(e^((τ+δ)/μ) − 1)) (± 1/200)",
             lambda: ci.expected_waste(tau=tau, delta=delta, mu=mu, exp=sp.exp), "failures", simulated(_fail_read),
             tolerance=sp.Rational(1, 200)),
    # simulated: the first-order model's process (verify.measure.sim.first_order), ± 1/200
    Quantity("first_order_waste", (), "fraction", "simulated", "the first-order waste δ/τ + τ/(2μ) (simulated: "
             "failures only during useful work, re-done without failing, over 40,000 segments; ± 1/200)",
             lambda: ci.first_order_waste(tau=tau, delta=delta, mu=mu), "failures", simulated(_first_order_read),
             tolerance=sp.Rational(1, 200), tolerance_says=_FIRST_ORDER_SAYS),
    # measured: the centre of the band of τ whose simulated waste is within 1 % of the minimum found by search
    # (verify.measure.sim.interval_search), ± its half width
    Quantity("young_interval", (), "s", "simulated", "Young's interval √(2δμ); simulated: the band of τ within 1 % of "
             "the least simulated waste, searched over τ", lambda: ci.young_interval(delta=delta, mu=mu, sqrt=sp.sqrt),
             "failures", _best_interval, tolerance=tau_band, tolerance_says=_BAND_SAYS),
    # Daly's interval stays calculated: its one claim (daly-example) also names first_order_waste, which no
    # simulator measures, so a band reader here would judge nothing (tests/verify/test_mutations.py requires that)
    Quantity("daly_interval", (), "s", "calculated", "Daly's higher-order interval √(2δμ)(1 + ⅓√(δ/2μ) + δ/(18μ)) − δ",
             lambda: ci.daly_interval(delta=delta, mu=mu, sqrt=sp.sqrt)),
    # simulated: the mean time between stops of a job on N nodes failing independently (verify.measure.sim
    # .cluster_failures), ± 2 %: a seeded estimate from 20,000 stops
    Quantity("cluster_mtbf", (), "s", "simulated", "MTBF of N independent nodes of MTBF μ: μ/N (simulated: the mean "
             "time between stops of a job needing all N nodes, 20,000 stops, ± 2 %)",
             lambda: ci.cluster_mtbf(node_mtbf=mu, nodes=N), "cluster", simulated(_cluster_read),
             tolerance=ci.cluster_mtbf(node_mtbf=mu, nodes=N) / 50, tolerance_says=_CLUSTER_SAYS),
    # ---- sharded checkpoints (verify.known.formulas.sharded_checkpoint; verify.measure.experiments.dcp_checkpoint)
    Quantity("dcp_data_bytes", (), "bytes", "measured",
             "bytes of all ranks' DCP data files for fp32 weights + Adam m and v: 12Ψ (± 2%: DCP frames each item)",
             lambda: sc.checkpoint_bytes(psi=Psi), "dcp",
             on_llm_probe(lambda rs, _a: sum(_data_files(rs)), at_n2_only=True),
             tolerance=sc.checkpoint_bytes(psi=Psi) / 50),
    Quantity("dcp_rank_bytes", (), "bytes", "measured",
             "bytes of the largest rank's DCP data file: 12Ψ/N (± 2%)", lambda: sc.shard_bytes(psi=Psi, n=N), "dcp",
             on_llm_probe(lambda rs, _a: max(_data_files(rs)), at_n2_only=True),
             tolerance=sc.shard_bytes(psi=Psi, n=N) / 50),
    Quantity("dcp_metadata_bytes", (), "bytes", "measured", "bytes of DCP's .metadata file; measured only", None,
             "dcp", on_llm_probe(lambda rs, _a: rs[0]["dcp"]["files"][".metadata"], at_n2_only=True)),
    Quantity("dcp_roundtrip_error", (), "value", "measured",
             "largest |difference| of weights and Adam moments after dcp.load into a fresh model; measured only",
             None, "dcp", on_llm_probe(lambda rs, _a: max(r["dcp"]["roundtrip_max_abs_diff"] for r in rs),
                                       at_n2_only=True)),
    # counted: the tensor bytes of real torch.save files (verify.measure.experiments.checkpoint_files)
    Quantity("ckpt_bytes", ("ckpt",), "bytes", "counted",
             "checkpoint bytes: resumable 12Ψ (fp32 weights + m + v), with 16-bit weights 14Ψ, weights only 2Ψ "
             "(counted: the tensors' bytes in a torch.save file after one Adam step, ± 2 KiB: 64-byte alignment of "
             "each tensor record and Adam's step counters)",
             lambda kind: sc.checkpoint_bytes(psi=Psi, bytes_per_param=sc.BYTES_PER_PARAM[kind]), "ckpt_file",
             _file_bytes, tolerance=sp.Integer(2048)),
    Quantity("ckpt_write_time", (), "s", "calculated", "time to write a resumable checkpoint, N ranks in parallel at W "
             "bytes/s each: 12Ψ/(N·W)", lambda: sc.write_seconds(psi=Psi, n=N, bandwidth=W)),
)

"""Pipeline parallelism: GPipe, 1F1B and interleaved schedules, simulated op by op.

    python -c "from verify.measure.sim.pipeline import simulate; print(simulate('1f1b', p=4, m=8).bubble_fraction)"

Ledger formulas: ``verify.known.formulas.pipeline``. Measured by ``verify.measure.sim.pipeline`` at each (p, m, v)
below with t_f = 1, t_b = 2 (and at a claim's own values: the simulator re-runs there), and for
``in_flight_stage`` at every stage s of every case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from verify.known.formulas import pipeline as pipe
from verify.known.vocabulary.records import Config, Family, Measure, Quantity, SymbolSpec, symbols
from verify.known.vocabulary.transformer import s

SYMBOLS = (
    SymbolSpec("p", "pipeline stages", lower=2),
    SymbolSpec("m", "micro-batches per step", grows=True),
    SymbolSpec("v", "virtual pipeline stages per device"),
    SymbolSpec("t_f", "forward time of one micro-batch on one stage", integer=False),
    SymbolSpec("t_b", "backward time of one micro-batch on one stage", integer=False),
)
p, m, v, t_f, t_b = symbols(*SYMBOLS)

ARGS: dict[str, tuple[str, ...]] = {"schedule": ("gpipe", "onef1b", "interleaved")}

# the simulated cases (p, m, v), each with t_f = 1, t_b = 2
PIPELINE_CASES = ((4, 8, 2), (4, 32, 2), (4, 16, 4), (2, 4, 2), (8, 16, 2), (3, 9, 3))
_SCHEDULE = {"gpipe": "gpipe", "onef1b": "1f1b", "interleaved": "interleaved"}  # argument → the simulator's name


def _pipeline_configs(_ev: Any) -> list[Config]:
    return [Config(f"p={p_} m={m_} v={v_}", {"p": p_, "m": m_, "v": v_, "t_f": 1, "t_b": 2}) for p_, m_, v_ in
            PIPELINE_CASES]


def _stage_configs(_ev: Any) -> list[Config]:
    """Every stage s (0 = the first) of every simulated schedule case."""
    return [Config(f"p={p_} m={m_} v={v_} s={st}", {"p": p_, "m": m_, "v": v_, "t_f": 1, "t_b": 2, "s": st})
            for p_, m_, v_ in PIPELINE_CASES for st in range(p_)]


FAMILIES = (
    Family("pipeline", _pipeline_configs, "simulated schedules", rerunnable=True),
    Family("pipeline_stage", _stage_configs, "simulated schedules, each stage"),
)


def _stage_in_flight(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
    from verify.measure.sim.pipeline import simulate

    at = cfg.values
    if "s" not in at or args[0] == "interleaved":
        return None
    run = simulate(_SCHEDULE[args[0]], p=int(at["p"]), m=int(at["m"]))
    return sp.Integer(run.peak_in_flight[int(at["s"])]), {}


def _simulated(read: Callable[[Any], Any]) -> Measure:
    def measure(_ev: Any, cfg: Config, args: tuple[str, ...]) -> tuple[sp.Expr, dict[str, Any]] | None:
        from verify.measure.sim.pipeline import simulate

        at = cfg.values
        sched = _SCHEDULE[args[0]]
        if sched == "interleaved" and at["m"] % at["p"]:
            return None
        run = simulate(sched, p=int(at["p"]), m=int(at["m"]), t_f=float(at.get("t_f", 1)),
                       t_b=float(at.get("t_b", 2)), **({"v": int(at["v"])} if sched == "interleaved" else {}))
        return sp.nsimplify(read(run), rational=True, tolerance=1e-12), {}
    return measure


def _in_flight(schedule: str, stage: Any) -> Any:
    return pipe.peak_in_flight(schedule=_SCHEDULE[schedule], p=p, m=m, stage=stage)


QUANTITIES = (
    Quantity("pipeline_step_time", ("schedule",), "time", "simulated", "one step's makespan: (m+p−1)(t_f+t_b)",
             lambda _sch: pipe.step_time(p=p, m=m, t_f=t_f, t_b=t_b), "pipeline",
             _simulated(lambda run: run.makespan)),
    Quantity("bubble_fraction", ("schedule",), "fraction", "simulated", "idle share of a step: (p−1)/(m+p−1)",
             lambda _sch: pipe.bubble_fraction(p=p, m=m), "pipeline",
             _simulated(lambda run: run.bubble_fraction)),
    Quantity("bubble_over_ideal", ("schedule",), "fraction", "simulated",
             "idle time over ideal compute time (Narayanan et al.): (p−1)/(v·m), v = 1 unless interleaved",
             lambda sch: pipe.bubble_over_ideal(p=p, m=m, v=v if sch == "interleaved" else 1),
             "pipeline", _simulated(lambda run: run.bubble_over_ideal)),
    Quantity("in_flight_first_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches whose activations the first stage holds at its peak: GPipe m, 1F1B min(p, m)",
             lambda sch: _in_flight(sch, 0), "pipeline", _simulated(lambda run: run.peak_in_flight[0])),
    Quantity("in_flight_last_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches the last stage holds at its peak: GPipe m, 1F1B min(1, m)",
             lambda sch: _in_flight(sch, p - 1), "pipeline", _simulated(lambda run: run.peak_in_flight[-1])),
    Quantity("in_flight_stage", ("schedule",), "micro-batches", "simulated",
             "micro-batches whose activations stage s (0 = the first) holds at its peak: GPipe m, 1F1B min(p − s, m)",
             lambda sch: _in_flight(sch, s), "pipeline_stage", _stage_in_flight),
)

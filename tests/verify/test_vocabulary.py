"""The vocabulary as one registry of subject modules: how the tables are built, what they refuse, what they say.

    OMP_NUM_THREADS=1 python -m pytest tests/verify/test_vocabulary.py -q
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import Any

import pytest

from verify.known import vocabulary
from verify.known.vocabulary import (
    FAMILIES,
    QUANTITIES,
    SPEC_OF,
    SUBJECTS,
    SYMBOL_SPECS,
    SYMBOLS,
    Quantity,
    SymbolSpec,
    table,
    unavailable_here,
)
from verify.measure import probes

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "verify" / "known" / "vocabulary"


def test_the_readme_table_is_the_vocabularys() -> None:
    readme = (ROOT / "verify" / "README.md").read_text(encoding="utf-8")
    assert table() in readme, "regenerate the table in verify/README.md with verify.known.vocabulary.table()"
    assert len(table().splitlines()) == len(QUANTITIES) + 2


def test_every_quantity_is_one_row_of_one_subject() -> None:
    rows = [q.name for m in SUBJECTS for q in m.QUANTITIES]
    assert len(rows) == len(set(rows)) == len(QUANTITIES) > 130
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "records", "readers"}
    assert {m.__name__.rsplit(".", 1)[1] for m in SUBJECTS} == modules  # no subject left out of the registry


def test_a_letter_declared_twice_keeps_its_assumptions_and_joins_its_meanings() -> None:
    d = SPEC_OF[SYMBOLS["d"]]
    assert d.meaning == "head dimension (h/a); data-parallel degree in 3D parallelism"
    assert [s.name for s in SYMBOL_SPECS].count("d") == 1
    with pytest.raises(ValueError, match="'d' is declared twice with different assumptions"):
        vocabulary._symbol_specs([SymbolSpec("d", "head dimension"), SymbolSpec("d", "a share", integer=False)])


@pytest.mark.parametrize("kind", ["argument kind", "family", "quantity"])
def test_a_name_declared_twice_differently_is_refused(kind: str) -> None:
    with pytest.raises(ValueError, match=f"{kind} 'x' is declared twice"):
        vocabulary._unique(kind, [("x", 1), ("x", 2)])
    assert vocabulary._unique(kind, [("x", 1), ("x", 1)]) == {"x": 1}


def test_a_quantity_of_an_undeclared_family_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(QUANTITIES, "stray", Quantity("stray", ("stage",), "bytes", "measured", "", None, "nowhere"))
    with pytest.raises(ValueError, match="quantity 'stray'.*family 'nowhere'"):
        vocabulary._check()


def _imports(path: Path) -> set[str]:
    """The sibling modules of the package a module imports."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "verify.known.vocabulary":
                out |= {a.name for a in node.names}
            elif node.module.startswith("verify.known.vocabulary."):
                out.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith("verify.known.vocabulary.")}
    return out


def test_the_subjects_import_each_other_without_a_cycle_and_never_the_registry() -> None:
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert all("__init__" not in deps and not (deps & {"QUANTITIES", "SYMBOLS", "FAMILIES"}) for deps in graph.values())
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"import cycle among the vocabulary's modules: {e.args[1]}")
    assert order.index("records") < order.index("zero") < order.index("transformer")


def test_setattr_and_side_effect_imports_are_gone() -> None:
    for path in [*PACKAGE.glob("*.py"), *(ROOT / "verify" / "known" / "drills").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "setattr" not in calls, path
        imports = [i for i, n in enumerate(tree.body) if isinstance(n, ast.Import | ast.ImportFrom)]
        code = [i for i, n in enumerate(tree.body) if not isinstance(n, ast.Import | ast.ImportFrom | ast.Expr)]
        assert not imports or not code or max(imports) < min(code), f"{path.name}: an import after the module's code"


class _Evidence:
    def __init__(self, backend: str, runs: list[dict[str, Any]]) -> None:
        self.backend, self.runs = backend, runs


def test_gloo_probe_families_are_unavailable_on_another_backend_and_under_torchrun() -> None:
    probed = {n for n, f in FAMILIES.items() if f.gloo_probe}
    assert {"gloo", "tp", "fsdp", "ddp", "moe", "cp", "dcp", "ddp_accum"} <= probed
    for name, q in QUANTITIES.items():
        nccl = unavailable_here(q, _Evidence("nccl", []))
        torchrun = unavailable_here(q, _Evidence("gloo", [{"launcher": "torchrun"}]))
        assert bool(nccl) == bool(torchrun) == (q.family in probed), name
        assert unavailable_here(q, _Evidence("gloo", [{"launcher": "spawn"}])) == ""


def test_local_runs_run_once_and_travel_between_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    def local_run(name: str, *args: Any) -> dict[str, str]:
        calls.append((name, *args))
        return {"run": name}

    monkeypatch.setattr(probes, "local_run", local_run)
    runs = probes.LocalRuns()
    assert runs.get("loss_scaling", 65536.0) == runs.get("loss_scaling", 65536.0) == {"run": "loss_scaling"}
    assert calls == [("loss_scaling", 65536.0)]
    child = probes.LocalRuns()
    child.get("grad_scaler")
    runs.adopt({**child.export(), ("loss_scaling", 65536.0): "another"})
    assert runs.export() == {("loss_scaling", 65536.0): {"run": "loss_scaling"},
                             ("grad_scaler",): {"run": "grad_scaler"}}
    runs.get("grad_scaler")
    assert len(calls) == 2  # adopted: not run again
    runs.clear()
    assert runs.export() == {}

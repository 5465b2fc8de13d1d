"""The package layers of docs/architecture.md, checked by import-linter (``.importlinter``), and the
scheduling domain importable without the web stack."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.db_independent


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--config", str(root / ".importlinter"), "--no-cache"],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(root)})


def test_the_import_contracts_hold() -> None:
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "7 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(("module", "line", "broken"), [
    ("app/core/vocab.py", "import app.review.engine", "app.core is not allowed to import app.review"),
    ("app/srs/prefs.py", "import fastapi", "app.srs"),  # the pure domain picks up the web stack
    ("app/cards/catalog.py", "import app.deck.sync", "app.cards is not allowed to import app.deck"),
    # verify/: what runs never reads how claims are judged, the formulas never import what runs, verify never
    # imports the app, and the app never imports what runs
    ("verify/measure/sweep.py", "import verify.judge.pipeline", "verify.measure is not allowed to import verify.judge"),
    ("verify/known/ledger.py", "import verify.measure.launch", "verify.known.ledger is not allowed to import"),
    ("verify/reading/claims.py", "import app.cards.schema", "verify is not allowed to import app"),
    ("app/items/drills.py", "import verify.measure.launch", "app is not allowed to import verify.measure"),
    # the scheduling domain reads neither verdicts nor rendering, which sit below it in the layers
    ("app/srs/stats.py", "import app.verification.store", "app.srs is not allowed to import app.verification"),
    ("app/srs/state.py", "import app.render.markdown", "app.srs is not allowed to import app.render"),
    # the benchmarks and the harness they share with the tests never reach into tests/
    ("bench/load.py", "import tests.utils.srplugin", "bench is not allowed to import tests"),
    ("harness/server.py", "import tests.conftest", "harness is not allowed to import tests"),
    ("harness/deck.py", "import bench.export", "harness is not allowed to import bench"),
])
def test_a_new_upward_import_breaks_the_contract(tmp_path: Path, module: str, line: str, broken: str) -> None:
    """Mutations: one import that climbs a layer (a cycle in the making) fails the check."""
    for package in ("app", "verify", "harness", "bench"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "static", "results"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    target = tmp_path / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    out = _lint(tmp_path)
    assert out.returncode != 0 and broken in out.stdout, out.stdout


def _loaded_after(modules: str, prefixes: tuple[str, ...]) -> str:
    """The web stack and the ``app`` packages of ``prefixes`` that importing ``modules`` loads, in a fresh
    interpreter."""
    code = ("import sys\n"
            f"import {modules}\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'fastapi', 'starlette', 'uvicorn', 'torch'}), "
            f"sorted(m for m in sys.modules if m.startswith({prefixes!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    return out.stdout.strip()


def test_the_scheduling_domain_imports_without_the_web_stack() -> None:
    srs = ", ".join(f"app.srs.{path.stem}" for path in sorted((ROOT / "app" / "srs").glob("[!_]*.py")))
    assert _loaded_after(srs, ("app.review", "app.api", "app.pages", "app.web", "app.items", "app.verification",
                               "app.render")) == "[] []"


def test_the_review_items_import_without_the_web_stack() -> None:
    items = ", ".join(f"app.items.{path.stem}" for path in sorted((ROOT / "app" / "items").glob("[!_]*.py")))
    assert _loaded_after(items, ("app.review", "app.api", "app.pages", "app.web")) == "[] []"


def _contract_layers(config: str, name: str) -> list[set[str]]:
    """A layers contract of ``.importlinter`` as a list of layers, each a set of module names."""
    section = config.split(f"[importlinter:contract:{name}]", 1)[1].split("\n[", 1)[0]
    block = section.split("layers =", 1)[1].split("\n", 1)[1]
    containers = "app." if "containers = app" in section else ""
    layers = []
    for line in block.splitlines():
        if not line.startswith((" ", "\t")) or not line.strip():
            break
        layers.append({containers + part.strip() for part in line.split("|")})
    return layers


def _diagram_layers(text: str, package: str) -> list[set[str]]:
    """The layers a docs diagram draws: each line that starts with a package name; names side by side are
    split by │, and the description starts after a run of spaces."""
    layers = []
    for line in text.splitlines():
        if line.startswith(f" {package}."):
            head = re.split(r"\s{3,}", line.strip(), maxsplit=1)[0]
            layers.append({name.strip() for name in head.split("│")})
    return layers


def test_a_diagram_in_another_order_is_found() -> None:
    config = "[importlinter:contract:layers]\ncontainers = app\nlayers =\n    cli\n    a | b\n    core\n"
    drawn = " app.cli      the command\n   │\n app.a │ app.b   two\n app.core   settings\n"
    assert _diagram_layers(drawn, "app") == _contract_layers(config, "layers")
    swapped = " app.core   settings\n app.a │ app.b   two\n app.cli      the command\n"
    assert _diagram_layers(swapped, "app") != _contract_layers(config, "layers")


@pytest.mark.parametrize(("contract", "package"), [("layers", "app"), ("verify-layers", "verify")])
def test_the_architecture_page_draws_the_contract(contract: str, package: str) -> None:
    config = (ROOT / ".importlinter").read_text(encoding="utf-8")
    drawn = _diagram_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"), package)
    assert drawn == _contract_layers(config, contract), "docs/architecture.md's diagram is not .importlinter's order"

"""Longest modules first: the order in which pytest-xdist hands modules to its workers (a pytest plugin).

``--dist loadfile`` gives each worker whole modules, in collection order, as workers free up. In folder
order the verify sweeps and the multi-process tests came last, and the pass ended with one worker running
a two-minute module while the others sat idle. Handing out the longest modules first (longest processing
time first, the classic greedy schedule) keeps every worker busy until the end.

The lengths are the seconds each module took in a recorded run of each pass, in ``tests/durations.json``
(``python -m tests.utils.order sqlite S.xml postgresql P.xml`` rewrites it from ``--junitxml`` reports). A module
missing there (a new one) goes first, being of unknown length; a stale table changes only the order.
Tests inside a module keep their order.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

from harness.db import backend_name

TABLE = Path(__file__).resolve().parents[1] / "durations.json"


def module_seconds(pass_name: str) -> dict[str, float]:
    if not TABLE.is_file():
        return {}
    table: dict[str, dict[str, float]] = json.loads(TABLE.read_text(encoding="utf-8"))
    return table.get(pass_name, {})


def longest_first(nodeids: list[str], seconds: dict[str, float]) -> list[int]:
    """The positions of ``nodeids`` with the longest modules first; a module missing from ``seconds`` counts
    as the longest; ties and the tests inside a module keep their order."""
    modules = [nodeid.split("::", 1)[0] for nodeid in nodeids]
    first_seen: dict[str, int] = {}
    for i, module in enumerate(modules):
        first_seen.setdefault(module, i)
    return sorted(range(len(nodeids)),
                  key=lambda i: (-seconds.get(modules[i], float("inf")), first_seen[modules[i]], i))


@pytest.hookimpl(trylast=True)  # after the database split has left out what this pass does not run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seconds = module_seconds(backend_name())
    if seconds:
        items[:] = [items[i] for i in longest_first([item.nodeid for item in items], seconds)]


def from_junit(paths: list[str]) -> dict[str, float]:
    total: defaultdict[str, float] = defaultdict(float)
    for path in paths:
        for case in ET.parse(path).iter("testcase"):
            module = case.get("classname", "").split(".")
            # classname is the dotted module path (and class, if any): keep the path up to the test_ module
            cut = next(i for i, part in enumerate(module) if part.startswith("test_")) + 1
            total["/".join(module[:cut]) + ".py"] += float(case.get("time", 0))
    return {m: round(s, 1) for m, s in sorted(total.items(), key=lambda kv: -kv[1])}


def main(argv: list[str]) -> int:
    """``python -m tests.utils.order sqlite SQLITE.xml [postgresql PG.xml]``: record each pass's module seconds."""
    if len(argv) < 2 or len(argv) % 2:
        print(main.__doc__, file=sys.stderr)
        return 2
    table = json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.is_file() else {}
    for pass_name, path in zip(argv[::2], argv[1::2], strict=True):
        table[pass_name] = from_junit([path])
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

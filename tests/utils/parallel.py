"""Which tests share a worker when ``make test`` spreads the suite over processes (pytest-xdist, a pytest plugin).

``make test`` runs ``pytest -n N --dist loadgroup``: tests go to whichever worker is free, except that
tests sharing an expensive fixture wider than one test go to one worker, so it is built once, not once a
worker. Two rules, applied to every collected test (the ``xdist_group`` marker, which loadgroup reads):

- a test that uses one of :data:`SHARED_SESSION_FIXTURES` (the verify sweep: torch.distributed ranks for
  N = 2 and 4, ~15 s of CPU) is in that fixture's group, whatever its module;
- otherwise a test that uses a module-scoped fixture of its own tree is in its module's group (module
  scope is what the suite uses for "expensive: build once for these tests").

Everything else is free to run anywhere: each test has its own temp folder, loopback port (picked free,
``tests/utils/server.py``) and database (a SQLite file in its temp folder, or a ``t_<uuid>`` database on
the PostgreSQL cluster, ``tests/utils/db.py``), so two workers never share state.
"""

from __future__ import annotations

import pytest

GROUP_MARK = "xdist_group"
# session-scoped fixtures worth one worker, and their group (tests/verify/conftest.py: the sweep, its reference runs)
SHARED_SESSION_FIXTURES = {"report": "verify-sweep", "ref_runs": "verify-sweep"}


def group_of(item: pytest.Item) -> str | None:
    names = getattr(item, "fixturenames", ())
    for name, group in SHARED_SESSION_FIXTURES.items():
        if name in names:
            return group
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in names:
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope == "module" and defs[-1].baseid:
            return f"module:{item.nodeid.split('::', 1)[0]}"
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which turns the marker into the node id's @group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.has_plugin("xdist"):  # one process: nothing to group (and no marker to use)
        return
    for item in items:
        if item.get_closest_marker(GROUP_MARK) is None and (group := group_of(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))

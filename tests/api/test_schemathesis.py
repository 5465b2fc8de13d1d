"""Schemathesis against the app's own OpenAPI schema, as anonymous, a learner and an admin, with every check
schemathesis has (``schemathesis.checks.CHECKS``: no 5xx, documented status codes, content types, headers
and bodies, schema-violating requests refused, schema-valid ones accepted, undeclared methods answered 405
with an ``Allow`` that lists the path's methods, missing required headers refused, authentication not
ignored ...), with the two exceptions in ``SKIP_CHECK``.

Per operation: its coverage phase (schemathesis' systematic cases: every boundary value, every missing or
wrong-typed field, undeclared methods, OPTIONS), then schema-valid (positive) and schema-violating (negative)
requests drawn by hypothesis. The app is the real one on a real database, with the bundled cards synced.
Deterministic (``derandomize``): CI sees the same requests every run; raise ``PROOFDECK_FUZZ_EXAMPLES``
locally for a deeper run (``PROOFDECK_FUZZ_EXAMPLES=200 pytest tests/api/test_schemathesis.py -s``).
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import checks as st_checks
from schemathesis.generation import GenerationMode
from schemathesis.generation.hypothesis.builder import HypothesisTestConfig, HypothesisTestMode, create_test
from schemathesis.python import asgi as st_asgi
from sqlmodel import Session

from app.auth.users import create_user
from app.models.migrate import init_db
from harness.db import backend_name

ROOT = Path(__file__).resolve().parents[2]
# Per operation, per mode, per role. Fewer on PostgreSQL: the handlers, validation and serialisation are the
# same code on both backends, and what PostgreSQL alone refuses (NUL in text, integers past int4/int8)
# is pinned by tests/api/test_odd_input.py on both; its 5 examples still reach every operation as each role.
# 10 on SQLite since the coverage phase came in (it sends ~1,150 systematic cases a role): the run's CPU
# time stayed near the 20-example run's without it (`time pytest tests/api/test_schemathesis.py`, the same
# machine: 36 s user for 5,451 requests, against 33 s for that run's 3,597).
EXAMPLES = int(os.environ.get("PROOFDECK_FUZZ_EXAMPLES", "5" if backend_name() == "postgresql" else "10"))
# The coverage phase in the SQLite pass only, for the same reason: its cases are the same on both backends,
# and on PostgreSQL, where each request costs more, they would be four times the pass's fuzzing requests.
COVERAGE = os.environ.get("PROOFDECK_FUZZ_COVERAGE", "0" if backend_name() == "postgresql" else "1") == "1"
ROLES = ("anonymous", "learner", "admin")
# Not fuzzed, and why:
EXCLUDED = {
    # destructive: it would delete the very learner whose token the run uses (tested in test_access_table)
    ("DELETE", "/api/users/{user_id}"),
    # starts a torch.distributed sweep in the background (tens of seconds of CPU per accepted request);
    # its access rule is in test_access_table, the job itself in tests/verification/test_admin_run.py
    ("POST", "/api/admin/verification"),
}
st_checks.load_all_checks()
CHECKS = list(st_checks.CHECKS.get_all())  # every check schemathesis registers, not a chosen few
# Checks that cannot hold for one operation (and role), and why:
SKIP_CHECK: dict[tuple[str, str], tuple[Any, str | None]] = {
    # the schema says an answer is a rating 1-4 or a typed answer with its showing; which of the two an item
    # takes depends on its kind (a card is rated, a drill typed), which a schema cannot say of an id
    ("POST", "/api/review"): (st_checks.positive_data_acceptance, None),
    # a reviews file must name this server's deck and the caller (409 otherwise), and each review a real item
    # with its fingerprint and an ISO time: more than the body's JSON Schema can say (app/items/handbook_reviews.py)
    ("POST", "/api/review/import/handbook"): (st_checks.positive_data_acceptance, None),
}
REQUESTS: Counter[str] = Counter()  # per role, over the session (printed at the end of each role's run)


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:  # the bundled deck, not tests/api's fixture deck
    shutil.copytree(ROOT / "cards", tmp_path / "cards")
    return tmp_path / "cards"


@pytest.fixture
def fuzz_app(database_url: str, cards_dir: Path) -> Iterator[tuple[FastAPI, dict[str, str | None]]]:
    """The app (start-up sync runs when schemathesis starts its lifespan) and a token per role."""
    from app.main import create_app

    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)
    init_db(app.state.engine)
    with Session(app.state.engine) as s, s.begin():
        _u, learner = create_user(s, "learner", password="learner-password")
        _a, admin = create_user(s, "root", is_admin=True)
    yield app, {"anonymous": None, "learner": learner, "admin": admin}
    st_asgi.shutdown_lifespans()
    app.state.engine.dispose()


def _checks(operation: Any, role: str) -> list[Any]:
    skipped, only_for = SKIP_CHECK.get((operation.method.upper(), operation.path), (None, None))
    if only_for not in (None, role):
        skipped = None
    return [check for check in CHECKS if check is not skipped]


REQUEST_BOUND_S = 600


def _run_operation(operation: Any, mode: GenerationMode, roles: dict[str, dict[str, str]],
                   count: dict[str, Counter[str]], failures: list[str]) -> None:
    """Every generated request is sent once per role: the cases are the same for every role (derandomized),
    so generating them once and sending them three times costs a third of the generation (hypothesis'
    drawing was the larger half of the run's CPU)."""
    checks = {role: _checks(operation, role) for role in roles}

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        for role, headers in roles.items():
            count[role][operation.label] += 1
            try:
                # a bound per request, not a wait: schemathesis' 10 s default failed POST /api/admin/sync at load
                # ~20, and 120 s did at load 25 (PostgreSQL pass, 2026-12-01); pytest-timeout still catches a hang
                case.call_and_validate(headers=headers, checks=checks[role], allow_redirects=False,
                                       timeout=REQUEST_BOUND_S)
            except (Exception, BaseExceptionGroup) as exc:  # every failure (a FailureGroup too) is collected
                failures.append(f"{operation.label} ({mode.value}, as {role}): {exc}")

    try:
        run()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE, f"{operation.label}: no valid request can be generated"


def _run_coverage(schema: Any, operation: Any, roles: dict[str, dict[str, str]], count: dict[str, Counter[str]],
                  failures: list[str]) -> None:
    """Schemathesis' coverage phase for one operation (the cases ``schemathesis run`` starts with: each
    boundary and each violation one at a time, undeclared methods), generated once, sent as every role."""
    checks = {role: _checks(operation, role) for role in roles}

    def send(case: Any) -> None:
        for role, headers in roles.items():
            count[role][operation.label] += 1
            try:
                case.call_and_validate(headers=headers, checks=checks[role], allow_redirects=False,
                                       timeout=REQUEST_BOUND_S)
            except (Exception, BaseExceptionGroup) as exc:
                failures.append(f"{operation.label} (coverage: {case.method} {case.formatted_path}, as {role}): {exc}")

    config = HypothesisTestConfig(project=schema.config, modes=[HypothesisTestMode.COVERAGE], settings=settings(
        deadline=None, database=None, derandomize=True, phases=[Phase.explicit],
        suppress_health_check=list(HealthCheck)))
    create_test(operation=operation, test_func=send, config=config)()


def test_schemathesis(fuzz_app: tuple[FastAPI, dict[str, str | None]]) -> None:
    app, tokens = fuzz_app
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    roles = {role: {"Authorization": f"Bearer {tokens[role]}"} if tokens[role] else {} for role in ROLES}
    count: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    fuzzed = [op for op in operations if (op.method.upper(), op.path) not in EXCLUDED]
    assert len(operations) - len(fuzzed) == len(EXCLUDED), "an excluded operation is not in the schema any more"
    for op in fuzzed:
        if COVERAGE:
            _run_coverage(schema, op, roles, count, failures)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _run_operation(op, mode, roles, count, failures)
    for role in ROLES:
        REQUESTS[role] = sum(count[role].values())
        print(f"\nschemathesis as {role}: {REQUESTS[role]} requests over {len(fuzzed)} operations "
              f"(examples per operation and mode: {EXAMPLES})")
    assert not failures, f"{len(failures)} failing requests; first ones:\n\n" + "\n\n".join(failures[:5])
    for role in ROLES:
        starved = [op.label for op in fuzzed if count[role][op.label] == 0]
        assert not starved, f"operations that got no request as {role}: {starved}"
        floor = len(fuzzed) * EXAMPLES // 2  # parameterless operations have one request to make, others many
        assert REQUESTS[role] >= floor, f"the run made {REQUESTS[role]} requests as {role}, fewer than {floor}"

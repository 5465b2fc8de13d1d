"""The database split of ``make test``: every test runs in the SQLite pass; the PostgreSQL pass
(``--db-dependent-only``) leaves out exactly the tests that cannot tell the backends apart."""

from __future__ import annotations

import pytest

CONFTEST = '''
import pytest

pytest_plugins = ["tests.utils.split"]


@pytest.fixture
def database_url():
    return "sqlite://"


@pytest.fixture
def engine(database_url):
    return database_url
'''

TESTS = '''
import pytest


def test_pure():
    assert 1 + 1 == 2


def test_asks_for_the_url(database_url):
    assert database_url


def test_through_another_fixture(engine):
    assert engine


@pytest.mark.parametrize("n", [1, 2])
def test_pure_parametrized(n):
    assert n


@pytest.mark.backend_agnostic("checks a rendered page; its queries are tested on both backends")
def test_store_behind_a_page(database_url):
    assert database_url
'''

BACKEND_AWARE = '''
from harness.db import backend_name


def test_branches_on_the_backend():
    assert backend_name() in ("sqlite", "postgresql")
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mixed=TESTS, test_backend=BACKEND_AWARE)
    return pytester


def test_first_pass_runs_every_test_and_says_how_many_run_once(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(["database split: every test runs here; 3 run on both backends, "
                                 "3 db_independent and 1 backend_agnostic ones run in this pass only"])


def test_second_pass_runs_only_tests_that_use_a_database(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:cacheprovider", "--db-dependent-only", "-v")
    result.assert_outcomes(passed=3, deselected=4)
    result.stdout.fnmatch_lines(["database split: this pass runs the 3 tests whose backend matters; "
                                 "3 db_independent and 1 backend_agnostic tests*"])
    ran = {line.split(" ")[0] for line in result.stdout.lines if " PASSED" in line}
    assert ran == {"test_mixed.py::test_asks_for_the_url", "test_mixed.py::test_through_another_fixture",
                   "test_backend.py::test_branches_on_the_backend"}


def test_the_two_passes_together_run_every_test(suite: pytest.Pytester) -> None:
    every = suite.runpytest("-p", "no:cacheprovider", "--collect-only", "-q").stdout.lines
    once = suite.runpytest("-p", "no:cacheprovider", "--collect-only", "-q",
                           "-m", "db_independent or backend_agnostic").stdout.lines
    twice = suite.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", "--db-dependent-only").stdout.lines
    ids = [{line for line in lines if "::" in line} for lines in (every, once, twice)]
    assert ids[0] and ids[1] | ids[2] == ids[0] and not ids[1] & ids[2]


MISUSES = {
    "db_independent on a test that uses a database": ('''
import pytest


@pytest.mark.db_independent
def test_claims_to_be_pure(database_url):
    assert database_url
''', ["*use a database but are db_independent*", "*test_misuse.py::test_claims_to_be_pure"]),
    "backend_agnostic without a reason": ('''
import pytest


@pytest.mark.backend_agnostic
def test_says_nothing(database_url):
    assert database_url


@pytest.mark.backend_agnostic("   ")
def test_says_blanks(database_url):
    assert database_url
''', ["*backend_agnostic without a reason*", "*test_misuse.py::test_says_nothing",
     "*test_misuse.py::test_says_blanks"]),
    "backend_agnostic on a test without a database": ('''
import pytest


@pytest.mark.backend_agnostic("renders a page")
def test_pure():
    assert True
''', ["*backend_agnostic but use no database*", "*test_misuse.py::test_pure"]),
}


@pytest.mark.parametrize("case", MISUSES)
def test_a_misplaced_marker_is_a_usage_error_naming_the_tests(pytester: pytest.Pytester, case: str) -> None:
    source, says = MISUSES[case]
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_misuse=source)
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(says)

"""The xdist hand-out order (tests/utils/order.py): longest modules first, modules kept whole."""

from __future__ import annotations

from pathlib import Path

from tests.utils.order import from_junit, longest_first

IDS = ["tests/a/test_x.py::test_1", "tests/a/test_x.py::test_2[p]", "tests/b/test_y.py::test_1",
       "tests/c/test_new.py::test_1", "tests/b/test_z.py::test_1", "tests/b/test_z.py::test_2"]


def test_longest_modules_go_first_and_unknown_ones_before_them() -> None:
    seconds = {"tests/a/test_x.py": 3.0, "tests/b/test_y.py": 40.0, "tests/b/test_z.py": 12.5}
    order = [IDS[i] for i in longest_first(IDS, seconds)]
    assert order == [IDS[3], IDS[2], IDS[4], IDS[5], IDS[0], IDS[1]]
    assert [IDS[i] for i in longest_first(IDS, {})] == IDS  # nothing recorded: collection order


def test_a_junit_report_gives_seconds_per_module(tmp_path: Path) -> None:
    report = tmp_path / "r.xml"
    report.write_text('<testsuites><testsuite>'
                      '<testcase classname="tests.b.test_y" name="test_1" time="1.25"/>'
                      '<testcase classname="tests.b.test_y.TestGroup" name="test_2" time="2.5"/>'
                      '<testcase classname="tests.a.test_x" name="test_1" time="7"/>'
                      '</testsuite></testsuites>')
    assert from_junit([str(report)]) == {"tests/a/test_x.py": 7.0, "tests/b/test_y.py": 3.8}

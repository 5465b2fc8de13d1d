"""``scripts/test-passes.sh``, make test's two passes at once, driven with a stand-in interpreter: what each pass
is given, that they overlap, that each log is printed whole, that one failed pass fails the run, and that a TERM
stops both with everything they started (the PostgreSQL cluster of scripts/with-postgres.sh included)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.utils.split import DB_ENV  # what with-postgres.sh sets; read here only to find the cluster it started

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "test-passes.sh"

# Stands in for `PYTHON -m pytest ARGS`: records what it was given, prints a few lines, waits for its go file
# (so a test can hold it running), exits with FAKE_RC_SQLITE / FAKE_RC_PG.
FAKE = '''\
import json, os, sys, time
from pathlib import Path
args = sys.argv[1:]
label = "pg" if "--db-dependent-only" in args else "sqlite"
out = Path(os.environ["FAKE_DIR"])
(out / f"{label}.json").write_text(json.dumps({"args": args, "pid": os.getpid(), "start": time.time_ns(),
                                               "pg_url": os.environ.get(os.environ["FAKE_URL_ENV"])}))
for i in range(3):
    print(f"{label} line {i}", flush=True)
go = out / f"{label}.go"
while not go.exists():
    time.sleep(0.05)
(out / f"{label}.end").write_text(str(time.time_ns()))
sys.exit(int(os.environ.get(f"FAKE_RC_{label.upper()}", "0")))
'''


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    py = tmp_path / "fake-python"
    py.write_text(f"#!{sys.executable}\n{FAKE}")
    py.chmod(0o755)
    (tmp_path / "out").mkdir()
    return py


def _launch(fake: Path, *extra: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([str(SCRIPT), str(fake), *extra], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "FAKE_DIR": str(fake.parent / "out"), "FAKE_URL_ENV": DB_ENV, **env})


@pytest.fixture
def running(fake: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """The scripts a test started. One left running (a failed test) is sent TERM, then its group, each pass's
    stand-in and the PostgreSQL cluster are killed: nothing outlives the test. Only then: a pid or port recorded
    by a run that ended may belong to another test's process by now (pids wrap at 32768 here)."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    left = [p for p in procs if p.poll() is None]
    for p in left:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=60)
    for p in procs:  # a failed test never reached communicate(): its pipes would be closed by the garbage
        for pipe in (p.stdout, p.stderr):  # collector during a later test, whose "unclosed file" warning fails it
            if pipe:
                pipe.close()
    if not left:
        return
    for started in (fake.parent / "out").glob("*.json"):
        data = json.loads(started.read_text())
        if _is_fake(data["pid"], fake):
            os.killpg(os.getpgid(data["pid"]), signal.SIGKILL)
        if data["pg_url"]:  # the cluster outlives a killed with-postgres.sh
            _kill_postmaster(data["pg_url"])


def _is_fake(pid: int, fake: Path) -> bool:
    try:
        return str(fake).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _started(out: Path, label: str, proc: subprocess.Popen[str]) -> dict[str, Any]:
    deadline = time.monotonic() + 300  # a hang bound: the PostgreSQL pass first runs initdb
    while not (out / f"{label}.json").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"the {label} pass never started"
        time.sleep(0.05)
    time.sleep(0.1)  # the file is written in one call; let the write finish
    data: dict[str, Any] = json.loads((out / f"{label}.json").read_text())
    return data


def _opt(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_both_passes_run_at_once_each_with_its_own_arguments(fake: Path,
                                                             running: list[subprocess.Popen[str]]) -> None:
    out = fake.parent / "out"
    proc = _launch(fake, "-k", "some_test")
    running.append(proc)
    sqlite, pg = _started(out, "sqlite", proc), _started(out, "pg", proc)
    # both are running now: neither has been told to end
    assert not (out / "sqlite.end").exists() and not (out / "pg.end").exists()
    (out / "pg.go").touch()  # the PostgreSQL pass ends first: its log is printed while the SQLite pass runs on
    assert proc.stdout is not None
    first = [proc.stdout.readline() for _ in range(2)]
    while not first[-1].startswith("pg line 2"):
        first.append(proc.stdout.readline())
        assert first[-1], "".join(first)
    assert not (out / "sqlite.end").exists()
    (out / "sqlite.go").touch()
    rest, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    stdout = "".join(first) + rest

    assert sqlite["args"][:2] == ["-m", "pytest"] and pg["args"][:2] == ["-m", "pytest"]
    assert _opt(sqlite["args"], "-n") == "3" and _opt(pg["args"], "-n") == "2"
    assert "--db-dependent-only" not in sqlite["args"]
    assert {"--dist", "loadfile", "--durations=20"} <= set(sqlite["args"]) & set(pg["args"])
    assert sqlite["args"][-2:] == ["-k", "some_test"] and pg["args"][-2:] == ["-k", "some_test"]
    assert _opt(pg["args"], "-p") == "no:cacheprovider"  # the cache is the SQLite pass's alone
    assert _opt(sqlite["args"], "--basetemp") != _opt(pg["args"], "--basetemp")
    assert sqlite["pg_url"] is None and pg["pg_url"].startswith("postgresql+psycopg://postgres@127.0.0.1:")

    lines = stdout.splitlines()
    pg_head = lines.index(next(x for x in lines if x.startswith("==") and "PostgreSQL pass: exit 0" in x))
    sqlite_head = lines.index(next(x for x in lines if x.startswith("==") and "SQLite pass: exit 0" in x))
    assert pg_head < sqlite_head  # printed in the order the passes ended
    # each log whole under its own header
    assert lines[sqlite_head + 1:sqlite_head + 4] == [f"sqlite line {i}" for i in range(3)]
    pg_log = lines[pg_head + 1:sqlite_head]
    assert [x for x in pg_log if x.startswith("pg line")] == [f"pg line {i}" for i in range(3)]
    assert not any(x.startswith("sqlite line") for x in pg_log)
    assert lines[-2].startswith("PostgreSQL pass: exit 0 after ") and lines[-1].startswith("SQLite pass: exit 0 after ")


@pytest.mark.parametrize("failing", ["SQLITE", "PG"])
def test_one_failed_pass_fails_the_run_and_keeps_its_files(fake: Path, failing: str,
                                                           running: list[subprocess.Popen[str]]) -> None:
    out = fake.parent / "out"
    (out / "sqlite.go").touch()
    (out / "pg.go").touch()
    proc = _launch(fake, **{f"FAKE_RC_{failing}": "3"})
    running.append(proc)
    stdout, stderr = proc.communicate(timeout=300)
    label = {"SQLITE": "SQLite", "PG": "PostgreSQL"}[failing]
    other = {"SQLITE": "PostgreSQL", "PG": "SQLite"}[failing]
    assert proc.returncode == 1
    assert f"{label} pass: exit 3 after " in stdout and f"{other} pass: exit 0 after " in stdout
    assert f"failed: {label} pass" in stderr
    kept = Path(stderr.split("are kept in ")[1].strip())
    assert kept.is_dir() and kept.name.startswith("proofdeck-passes.")
    subprocess.run(["rm", "-rf", str(kept)], check=True)


def _listening(url: str) -> bool:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _postmasters(url: str) -> list[tuple[int, str]]:
    """(pid, data folder) of each PostgreSQL server listening on ``url``'s port (read from /proc).

    A backend the postmaster has just forked (for ``_listening``'s probe, say) runs under the postmaster's
    command line until it sets its own title; under load the two were both found (CI run r1, 2026-12-02). A
    server is such a process whose parent is not one too."""
    port = url.rsplit(":", 1)[1].split("/")[0]
    found: dict[int, tuple[int, str]] = {}
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
            ppid = int((cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if argv[0].endswith(b"/postgres") and f"port={port}".encode() in argv and b"-D" in argv:
            found[int(cmdline.parent.name)] = (ppid, argv[argv.index(b"-D") + 1].decode())
    return [(pid, data) for pid, (ppid, data) in found.items() if ppid not in found]


def _kill_postmaster(url: str) -> None:
    for pid, data in _postmasters(url):
        os.kill(pid, signal.SIGKILL)
        subprocess.run(["rm", "-rf", data.removesuffix("/data")], check=False)


def test_term_stops_both_passes_and_the_postgres_cluster(fake: Path, running: list[subprocess.Popen[str]]) -> None:
    out = fake.parent / "out"
    proc = _launch(fake)
    running.append(proc)
    sqlite, pg = _started(out, "sqlite", proc), _started(out, "pg", proc)
    assert _listening(pg["pg_url"]) and len(_postmasters(pg["pg_url"])) == 1
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=300)  # a hang bound: stopping the cluster returns at once
    assert proc.returncode == 130
    # by pid and command line, not pid alone: pids wrap at 32768 here and may be another test's by now
    assert not _is_fake(sqlite["pid"], fake) and not _is_fake(pg["pid"], fake)
    assert _postmasters(pg["pg_url"]) == []
    assert not (out / "sqlite.end").exists() and not (out / "pg.end").exists()  # stopped, not finished

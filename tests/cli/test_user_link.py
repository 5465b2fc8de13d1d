"""``proofdeck user link NAME``: a fresh, working login link on the address of the server on that database,
and a word when no server answers there."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest
from sqlmodel import Session, create_engine
from typer.testing import CliRunner

from app.auth.links import find_link
from app.auth.users import user_for_token
from app.cli.main import cli
from app.core import served
from app.core.config import settings
from app.models.card import utcnow


@pytest.fixture(autouse=True)
def _served_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(settings, "SERVED_FILE", tmp_path / "served.json")
    monkeypatch.delenv("PROOFDECK_BASE_URL", raising=False)
    monkeypatch.setattr(settings, "BASE_URL", "http://127.0.0.1:8000")
    return settings.SERVED_FILE


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"traceback: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def link_in(text: str) -> str:
    found = re.search(r"(https?://\S+/login\?token=(\S+))", text)
    assert found, text
    return found.group(1)


def test_link_names_the_served_port_and_logs_in(database_url: str) -> None:
    code, _, err = invoke("user", "add", "alice", "--database-url", database_url)
    assert code == 0 and "no server has been started on this database yet" in err and "make run" in err
    with socket.socket() as listener:  # a server on this database, listening where it recorded
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        served.record(f"http://127.0.0.1:{port}", database_url, host="127.0.0.1", port=port, pid=os.getpid())
        code, out, err = invoke("user", "link", "alice", "--database-url", database_url)
    assert code == 0 and err == ""  # it runs: nothing to add
    url = link_in(out)
    assert url.startswith(f"http://127.0.0.1:{port}/login?token=")
    # stopped: the link still names where it ran, and the CLI says how to start it there again
    code, out, err = invoke("user", "link", "alice", "--database-url", database_url)
    assert link_in(out).startswith(f"http://127.0.0.1:{port}/login?token=")
    assert "is not running" in err and f"make run PORT={port}" in err
    again = link_in(invoke("user", "link", "alice", "--database-url", database_url)[1])
    assert again != url  # a fresh token each time
    engine = create_engine(database_url)
    with Session(engine) as s:
        for link in (url, again):
            found = find_link(s, link.split("token=")[1], utcnow())
            assert found is not None and found.user.username == "alice" and found.refusal is None
            assert user_for_token(s, link.split("token=")[1]) is None  # a link is no API token
    engine.dispose()


def test_base_url_env_wins_and_another_database_is_not_confused(database_url: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    invoke("user", "add", "bob", "--database-url", database_url)
    served.record("http://127.0.0.1:8731", f"sqlite:///{tmp_path}/other.db")  # a server on another database
    assert link_in(invoke("user", "link", "bob", "--database-url", database_url)[1]).startswith(
        "http://127.0.0.1:8000/login?token=")
    monkeypatch.setenv("PROOFDECK_BASE_URL", "https://cards.example.org/")
    assert link_in(invoke("user", "link", "bob", "--database-url", database_url)[1]).startswith(
        "https://cards.example.org/login?token=")
    # `user add` prints its link the same way
    assert link_in(invoke("user", "add", "carol", "--database-url", database_url)[1]).startswith(
        "https://cards.example.org/login?token=")


def test_unknown_user_says_how_to_create_it(database_url: str) -> None:
    code, _out, err = invoke("user", "link", "nobody", "--database-url", database_url)
    assert code == 1 and "no user 'nobody'" in err and "proofdeck user add nobody" in err


def test_verify_without_torch_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    code, _out, err = invoke("verify")
    assert code == 2
    assert "make verify" in err and "pip install -e '.[verify]'" in err.replace("\n", "")


def test_a_port_that_answers_without_the_recorded_process_is_not_the_server(database_url: str) -> None:
    import subprocess

    gone = subprocess.Popen(["true"])
    gone.wait()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        served.record(f"http://127.0.0.1:{port}", database_url, host="0.0.0.0", port=port, pid=gone.pid)
        assert served.where(database_url) == served.Served(f"http://127.0.0.1:{port}", "recorded", False)
        served.record(f"http://127.0.0.1:{port}", database_url, host="0.0.0.0", port=port, pid=os.getpid())
        assert served.where(database_url).running  # 0.0.0.0: reached on the loopback

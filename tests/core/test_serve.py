"""``proofdeck serve`` (what ``make run`` calls): a real server whose log shows the start-up sync's progress and
summary, and whose first-start login link names its own port, printed last (after uvicorn's start-up lines) on
a line of its own; ``proofdeck user link`` then names that port, without a word about a stopped server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from harness.server import ROOT, free_port
from tests.utils.fetch_site import TYPED_URL


@pytest.mark.slow
def test_serve_prints_a_working_login_link_for_its_port(database_url: str, cards_dir: Path, tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROOFDECK_BASE_URL"}
    env.update(PROOFDECK_DATABASE_URL=database_url, PROOFDECK_CARDS_DIR=str(cards_dir), PYTHONUNBUFFERED="1",
               PROOFDECK_SERVED_FILE=str(tmp_path / "served.json"), PROOFDECK_PROGRESS_INTERVAL="0")
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)], cwd=ROOT,
                                env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 300  # a hang bound: start-up imports take a minute at load ~18
        link = None
        while link is None:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            link = re.search(r"^ +(http://\S+/login\?token=\S+)$", log.read_text(), re.MULTILINE)
            time.sleep(0.2)
        url = link.group(1)
        text = log.read_text()
        assert text.index("Uvicorn running on") < text.index("Log in as 'admin'") < link.start()
        cards = len([p for p in cards_dir.glob("*.md") if p.name.lower() != "readme.md"])
        assert f"INFO:     proofdeck: reading {cards}/{cards} card files (" in text
        assert re.search(rf"^INFO:     proofdeck: cards synced: {cards} added, 0 updated, 0 unchanged, 0 retired in "
                         r"\d+\.\d s$", text, re.MULTILINE), text
        recorded = json.loads((tmp_path / "served.json").read_text())
        assert (recorded["port"], recorded["pid"]) == (port, proc.pid)
        assert url.startswith(f"http://127.0.0.1:{port}/login?token=")
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        with httpx.Client() as client:
            r = client.get(url, follow_redirects=False, headers=TYPED_URL)  # the link pasted into a browser
            assert r.status_code == 303 and r.headers["location"].endswith("/quiz")
            quiz = client.get(f"http://127.0.0.1:{port}/quiz")
            assert quiz.status_code == 200 and "Quiz" in quiz.text
        fresh = subprocess.run([sys.executable, "-m", "app.cli.main", "user", "link", "admin"], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=60)
        assert fresh.returncode == 0, fresh.stderr
        assert f"http://127.0.0.1:{port}/login?token=" in fresh.stdout and "not running" not in fresh.stderr
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=15)

import os

from fastapi.testclient import TestClient


def test_healthz_answers_ok(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "worker": os.getpid()}  # TestClient: the app runs in this process

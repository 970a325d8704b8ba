"""What the running service shows to the network and writes to disk: every server on
127.0.0.1, and the API key (a canary used through the whole serve tier) in no file
Ray writes, failure paths included."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import httpx
import psutil
import pytest
import websockets
from websockets.asyncio.client import connect

from tests.serve.conftest import Service
from tests.service_logs import LOGS_DIR

pytestmark = pytest.mark.serve

LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def listening(process: psutil.Process) -> list[tuple[str, str, int]]:
    try:
        sockets = process.net_connections(kind="inet")
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return []
    return [
        (process.name(), s.laddr.ip, s.laddr.port)
        for s in sockets
        if s.status == psutil.CONN_LISTEN
    ]


def test_every_server_of_the_service_listens_on_the_loopback(service: Service) -> None:
    """Ray's GCS, raylet, workers, agents and metrics port, every replica's own
    servers, the proxy and HAProxy's stats page and exporter: none on another
    interface (make run's setup; the serve tier is started the same way)."""
    processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
    sockets = [s for p in processes for s in listening(p)]
    names = {name for name, _, _ in sockets}
    assert "gcs_server" in names and "raylet" in names and "haproxy" in names, names
    exposed = [s for s in sockets if s[1] not in LOOPBACK]
    assert not exposed, f"listening beyond the loopback: {exposed}"


def test_the_key_is_in_no_file_ray_writes(service: Service, pytestconfig: pytest.Config) -> None:
    wrong = service.key[:-4] + "zzzz"  # a key that fails: its rejection must not log it
    with httpx.Client(base_url=service.url, timeout=60) as client:
        good = {"Authorization": f"Bearer {service.key}"}
        bad = {"Authorization": f"Bearer {wrong}"}
        assert client.post("/v1/audio/speech", headers=good, json={"input": "नमस्ते।"}).is_success
        assert client.post("/v1/audio/speech", headers=good, content=b"{").status_code == 400
        assert client.post("/v1/audio/speech", headers=bad, json={"input": "x"}).status_code == 401
        assert client.get("/v1/account/usage", headers=bad).status_code == 401
        assert client.get(f"/v1/voices?key={wrong}", headers=good).is_success

    async def websocket() -> None:
        url = service.url.replace("http://", "ws://") + "/v1/audio/speech/stream-input/default"
        for key in (service.key, wrong):
            async with connect(url) as ws:
                await ws.send(json.dumps({"text": "नमस्ते। ", "authorization": f"Bearer {key}"}))
                await ws.send(json.dumps({"text": ""}))
                with contextlib.suppress(websockets.ConnectionClosedError):
                    async for _ in ws:
                        pass  # audio, or the error frame for the wrong key

    asyncio.run(websocket())
    time.sleep(1)  # log lines of the requests above reach their files
    session = pytestconfig.stash[LOGS_DIR].parent  # this process's Ray session
    files = [p for p in session.rglob("*") if p.is_file() and not p.is_symlink()]
    assert len(files) > 20  # Ray's and Serve's logs, each replica's output
    for secret in (service.key, wrong):
        found = [str(p) for p in files if secret.encode() in p.read_bytes()]
        assert not found, f"the key is written in {found}"

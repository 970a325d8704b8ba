"""The ingress app without Ray: the real Synthesiser in this process."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from deployments.synthesis.runner import SynthesisRunner
from serve_app.http.sockets import free_port
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.settings import IngressConfig
from serve_app.speech.pipeline import Pipeline
from tests.s3_server import BUCKET, s3_server

DEV_KEY = "sk-proj-unittest01-abcdefghijklmnopqrstuvwxyz012345"
HI = "नमस्ते, आप कैसे हैं?"
# The eSpeak Hindi voice: milliseconds a request, where a test is about what carries
# the audio (formats, framing) rather than the voice.
ESPEAK = "hi-espeak-aditi"


async def speak(client: httpx.AsyncClient, auth: dict[str, str], **body: object) -> httpx.Response:
    """Our speech request for ``HI`` with ``body``'s fields."""
    return await client.post("/v1/audio/speech", headers=auth, json={"input": HI, **body})


@functools.cache
def _synthesiser() -> SynthesisRunner:
    """One synthesiser for the whole run: loading the Piper voice takes seconds."""
    return SynthesisRunner()


@pytest.fixture(scope="session", autouse=True)
def _synthesiser_idle_at_the_end() -> Iterator[None]:
    """The shared synthesiser's last calls end before the process does: a model call
    whose stream went away (a session cut off, a cleared context) runs to its end on a
    worker thread, and a process that exits while ONNX Runtime is inside one aborts."""
    yield
    if _synthesiser.cache_info().currsize:
        deadline = time.monotonic() + 60
        while _synthesiser().busy and time.monotonic() < deadline:
            time.sleep(0.05)


def make_state(tmp_path: Path, **settings: Any) -> IngressState:
    settings.setdefault("database_url", str(tmp_path / "ledger.sqlite3"))
    settings.setdefault("longform_audio_path", str(tmp_path / "longform"))
    config = IngressConfig(dev_api_key=DEV_KEY, **settings)
    return IngressState(config, Pipeline.in_process(_synthesiser()))


@pytest.fixture
def state(tmp_path: Path) -> IngressState:
    return make_state(tmp_path)


@pytest.fixture
async def client(state: IngressState) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {DEV_KEY}"}


@contextlib.contextmanager
def serving(config: uvicorn.Config) -> Iterator[None]:
    """``config``'s server on a thread of its own, started, for the ``with`` block."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def served_app(tmp_path: Path, **settings: Any) -> Iterator[int]:
    """The app (``make_state``'s, with ``settings``) under uvicorn on a free port of
    127.0.0.1, for the ``with`` block: its port."""
    state = make_state(tmp_path, **settings)
    port = free_port()
    config = uvicorn.Config(create_app(state), host="127.0.0.1", port=port, log_level="error")
    with serving(config):
        yield port


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """An S3-compatible server on 127.0.0.1 with the bucket ``BUCKET``."""
    with s3_server() as endpoint:
        yield endpoint


@pytest.fixture(params=["folder", "s3"])
def audio_settings(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """Where a test's long-form audio is kept: a folder, or an S3 bucket (a prefix of
    the test's own)."""
    if request.param == "folder":
        return {"longform_audio_path": str(tmp_path / "longform")}
    endpoint = request.getfixturevalue("s3_endpoint")
    return {
        "longform_audio_path": f"s3://{BUCKET}/{tmp_path.name}",
        "longform_s3_endpoint_url": endpoint,
    }

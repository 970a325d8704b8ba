"""The ingress app without Ray: the real replicas behind in-process handles."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from deployments.encoding.deployment import AudioEncoderReplica
from deployments.normaliser.deployment import TextNormaliserReplica
from deployments.synthesis.deployment import SynthesiserReplica
from serve_app.routes import create_app
from serve_app.settings import IngressConfig
from serve_app.state import IngressState

DEV_KEY = "sk-proj-unittest01-abcdefghijklmnopqrstuvwxyz012345"


class LocalHandle:
    """The surface of a Serve ``DeploymentHandle`` over an object in this process."""

    def __init__(self, target: Any, stream: bool = False) -> None:
        self._target = target
        self._stream = stream

    def options(self, stream: bool = False) -> LocalHandle:
        return LocalHandle(self._target, stream)

    def __getattr__(self, name: str) -> _LocalMethod:
        return _LocalMethod(getattr(self._target, name), self._stream)


class _LocalMethod:
    def __init__(self, method: Any, stream: bool) -> None:
        self._method = method
        self._stream = stream

    def remote(self, *args: Any, **kwargs: Any) -> Any:
        if self._stream:
            result: AsyncIterator[Any] = self._method(*args, **kwargs)
            return result
        return self._call(*args, **kwargs)

    async def _call(self, *args: Any, **kwargs: Any) -> Any:
        result = self._method(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result


@functools.cache
def _synthesiser() -> SynthesiserReplica:
    """One synthesiser for the whole run: loading the Piper voice takes seconds."""
    return SynthesiserReplica()


def make_state(tmp_path: Path, **settings: Any) -> IngressState:
    synthesiser = LocalHandle(_synthesiser())
    encoder = LocalHandle(AudioEncoderReplica(synthesiser))
    normaliser = LocalHandle(TextNormaliserReplica())
    settings.setdefault("database_url", str(tmp_path / "ledger.sqlite3"))
    config = IngressConfig(dev_api_key=DEV_KEY, **settings)
    return IngressState(config, normaliser, encoder)


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

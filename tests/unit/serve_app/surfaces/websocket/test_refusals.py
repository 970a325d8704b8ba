"""A key refused on the upgrade request, over a real socket: the error message at once,
the close once the client has sent something (LiveKit's ElevenLabs plugin sets its
stream up between opening the socket and its first message, and misses a close that
comes before: it then waits for audio forever), or once the key's wait is over."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.unit.serve_app.conftest import served_app
from tests.unit.serve_app.surfaces.websocket.conftest import MULTI, URL

WRONG = {"xi-api-key": "sk-proj-nobody-wrong"}


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    with served_app(tmp_path, ws_auth_timeout_s=30) as port:
        yield port


@pytest.fixture
def impatient_port(tmp_path: Path) -> Iterator[int]:
    with served_app(tmp_path, ws_auth_timeout_s=0.2) as port:
        yield port


async def refusal(ws: ClientConnection) -> str:
    error: dict[str, str] = json.loads(await ws.recv())["error"]
    return error["code"]


async def closing_code(ws: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed) as closed:
        await ws.recv()
    return closed.value.rcvd.code if closed.value.rcvd else None


@pytest.mark.parametrize("path", [MULTI, URL])
async def test_a_refused_key_is_told_at_once_and_closed_when_the_client_speaks(
    port: int, path: str
) -> None:
    async with connect(f"ws://127.0.0.1:{port}{path}", additional_headers=WRONG) as ws:
        assert await refusal(ws) == "invalid_api_key"  # before the client sends anything
        # open while the client sets up: nothing more comes (the old close came at once)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)
        await ws.send(json.dumps({"text": " ", "context_id": "a"}))
        assert await closing_code(ws) == 1008


async def test_a_silent_client_with_a_refused_key_is_closed_when_the_key_s_wait_ends(
    impatient_port: int,
) -> None:
    url = f"ws://127.0.0.1:{impatient_port}{MULTI}"
    async with connect(url, additional_headers=WRONG) as ws:
        assert await refusal(ws) == "invalid_api_key"
        assert await closing_code(ws) == 1008

"""WebSocket messages are bounded by the server that reads them (http/ws_frames.py):
uvicorn serving the ingress app on a real socket, as Serve starts it in a replica."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from serve_app.http.sockets import free_port
from serve_app.http.ws_frames import OVER_LIMIT, bound_websocket_messages
from serve_app.ingress.api import create_app
from tests.unit.serve_app.conftest import make_state, serving

LIMIT = 4096
PATH = "/v1/audio/speech/stream-input/hi-espeak-aditi"


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    """The app under a uvicorn server built as Serve builds a replica's, bounded."""
    unbounded = uvicorn.Config
    bound_websocket_messages(LIMIT)
    try:
        state = make_state(tmp_path, ws_max_message_bytes=LIMIT)
        port = free_port()
        config = uvicorn.Config(create_app(state), host="127.0.0.1", port=port, log_level="error")
    finally:
        uvicorn.Config = unbounded  # type: ignore[misc]
    with serving(config):
        yield port


def test_bounding_twice_keeps_one_bound() -> None:
    unbounded = uvicorn.Config
    try:
        bound_websocket_messages(1000)
        bound_websocket_messages(LIMIT)
        config = uvicorn.Config(lambda: None)
        assert config.ws_max_size == OVER_LIMIT * LIMIT
        assert config.ws_per_message_deflate is False
        assert uvicorn.Config.__mro__[1] is unbounded
    finally:
        uvicorn.Config = unbounded  # type: ignore[misc]


async def test_compression_is_not_negotiated(port: int) -> None:
    async with connect(f"ws://127.0.0.1:{port}{PATH}", compression="deflate") as ws:
        assert ws.response is not None
        assert "Sec-WebSocket-Extensions" not in ws.response.headers


async def test_a_message_past_the_limit_is_answered_far_past_it_refused_unread(port: int) -> None:
    url = f"ws://127.0.0.1:{port}{PATH}"
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"text": " " * (LIMIT + 10)}))
        error = json.loads(await ws.recv())
        assert error["error"]["code"] == "body_too_large"
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1008
    async with connect(url, max_size=None) as ws:
        with pytest.raises(ConnectionClosed):
            await ws.send(json.dumps({"text": " " * (LIMIT * OVER_LIMIT * 4)}))
            await ws.recv()
        assert ws.close_code == 1009


def test_a_compressed_frame_is_a_protocol_error_never_inflated(port: int) -> None:
    """The memory bomb: 4 MB of spaces deflated to ~4 KB (a frame the bound lets in),
    sent compressed (RSV1) though no compression was agreed: the server closes with
    1002 at once."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 101") and b"permessage-deflate" not in head
        deflater = zlib.compressobj(wbits=-15)
        payload = deflater.compress(b'{"text": "' + b" " * 4_000_000 + b'"}')
        payload += deflater.flush(zlib.Z_SYNC_FLUSH)
        payload = payload[:-4]  # permessage-deflate drops the sync flush's tail
        assert len(payload) < OVER_LIMIT * LIMIT
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        header = struct.pack("!BBQ", 0x80 | 0x40 | 0x1, 0x80 | 127, len(payload))
        sock.sendall(header + mask + masked)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    # an unmasked close frame from the server: 0x88, its length, then the code
    close = answer[answer.index(b"\x88") :]
    assert struct.unpack("!H", close[2:4])[0] == 1002

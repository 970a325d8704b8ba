"""ASGI middleware: a request id and arrival time on every request, the body limit, a
query that names a parameter once, and the deadline a client has to take what it is
sent."""

from __future__ import annotations

import logging
import re
import time
import uuid
from urllib.parse import parse_qsl

import anyio
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve_app.http.errors import BodyTooLarge, InvalidRequest, error_response
from serve_app.http.sockets import limit_send_buffer

logger = logging.getLogger("serve_app")


_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def repeated_parameter(query_string: bytes) -> str | None:
    """A parameter the query names more than once (the first), None if none: no route
    takes a list in its query, and which of two values would be used is a guess."""
    seen: set[str] = set()
    for name, _ in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name in seen:
            return name
        seen.add(name)
    return None


def _incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            return text if _REQUEST_ID.match(text) else None
    return None


class RequestContextMiddleware:
    """Gives each request ``state.request_id`` and ``state.received_at``, refuses
    bodies over ``max_body_bytes`` with 413 (over ``larger_bodies[path]`` on a path
    that takes larger ones) and a query that names a parameter twice with 400.

    Behind Serve's proxy the request already carries an ``x-request-id`` (the proxy
    sets it and echoes it on the response), and that id is used. Served without
    the proxy, a new id is made and sent back as ``x-request-id``.
    """

    def __init__(
        self, app: ASGIApp, max_body_bytes: int, larger_bodies: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.larger_bodies = larger_bodies or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        incoming = _incoming_request_id(scope)
        request_id = incoming or "req_" + uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        state["received_at"] = time.perf_counter()
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        limit = self.larger_bodies.get(scope["path"], self.max_body_bytes)
        too_large = BodyTooLarge("body_too_large", f"The request body exceeds {limit} bytes.")
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                await error_response(too_large, request_id)(scope, receive, send)
                return
        repeated = repeated_parameter(scope.get("query_string", b""))
        if repeated is not None:
            twice = InvalidRequest(
                "invalid_value", f"The query names '{repeated}' more than once.", repeated
            )
            await error_response(twice, request_id)(scope, receive, send)
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise too_large
            return message

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start" and incoming is None:
                MutableHeaders(scope=message)["x-request-id"] = request_id
            await send(message)

        await self.app(scope, limited_receive, send_with_id)


class ReaderPaceMiddleware:
    """Keeps the service from running far ahead of a reader that stops reading.

    Sending waits while a socket's buffers are full, and through flow control at
    every hop so does synthesis: a reader that reads nothing costs no compute once
    its buffers are full. This bounds those buffers and how long such a reader may
    hold its place. The kernel's send buffer of every client socket is
    ``send_buffer_bytes`` (set at the first request, on the listening socket and
    those it has accepted: ``serve_app.http.sockets``). A client that takes none of what
    it is sent for ``send_timeout_s`` is disconnected: the send fails as a lost
    connection does (``TimeoutError`` is an ``OSError``), the response's stream is
    closed, which cancels the pipeline's, the bill settles what was sent, and the
    server closes the socket.
    """

    def __init__(self, app: ASGIApp, send_timeout_s: float, send_buffer_bytes: int) -> None:
        self.app = app
        self.send_timeout_s = send_timeout_s
        self.send_buffer_bytes = send_buffer_bytes
        self._buffers_limited = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if not self._buffers_limited and (server := scope.get("server")) is not None:
            self._buffers_limited = True
            limited = limit_send_buffer(server[1], self.send_buffer_bytes)
            logger.info("send buffers of %d socket(s) on port %d limited", limited, server[1])
        stalled = False

        async def send_within_deadline(message: Message) -> None:
            nonlocal stalled
            try:
                with anyio.fail_after(self.send_timeout_s):
                    await send(message)
            except TimeoutError:
                stalled = True
                logger.warning(
                    "%s took nothing it was sent for %g s; disconnected",
                    scope.get("state", {}).get("request_id", scope["path"]),
                    self.send_timeout_s,
                )
                raise

        try:
            await self.app(scope, receive, send_within_deadline)
        except Exception:
            if not stalled:
                raise

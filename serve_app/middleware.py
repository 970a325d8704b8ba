"""ASGI middleware: a request id and arrival time on every request, and the body limit."""

from __future__ import annotations

import re
import time
import uuid

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve_app.errors import BodyTooLarge, error_response

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def _incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            return text if _REQUEST_ID.match(text) else None
    return None


class RequestContextMiddleware:
    """Gives each request ``state.request_id`` and ``state.received_at`` and refuses
    bodies over ``max_body_bytes`` with 413.

    Behind Serve's proxy the request already carries an ``x-request-id`` (the proxy
    sets it and echoes it on the response), and that id is used. Served without
    the proxy, a new id is made and sent back as ``x-request-id``.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

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

        too_large = BodyTooLarge(
            "body_too_large", f"The request body exceeds {self.max_body_bytes} bytes."
        )
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_body_bytes:
                await error_response(too_large, request_id)(scope, receive, send)
                return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise too_large
            return message

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start" and incoming is None:
                MutableHeaders(scope=message)["x-request-id"] = request_id
            await send(message)

        await self.app(scope, limited_receive, send_with_id)

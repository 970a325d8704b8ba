"""HTTP/1.0 clients get whole bodies: HTTP/1.0 has no chunked transfer coding.

A streamed response has no length, so uvicorn sends it chunked, which RFC 9112
forbids towards an HTTP/1.0 client (its player would take the chunk-size lines
for audio). Behind HAProxy the ingress cannot see the client's version (HAProxy
speaks HTTP/1.1 to it, and passes the chunked body on), so HAProxy names it in
``X-Client-HTTP-Version`` (``serve_app.ingress.haproxy``; a client's own header of
that name is dropped there); served directly, the request's own version says.
Such a response is gathered and sent once, with ``Content-Length``: what a
buffered request gets.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

VERSION_HEADER = b"x-client-http-version"


def client_http_version(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == VERSION_HEADER:
            return str(value.decode("latin-1").strip())
    return str(scope.get("http_version", "1.1"))


class Http10Middleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or client_http_version(scope) != "1.0":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        parts: list[bytes] = []

        async def whole(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if any(name == b"content-length" for name, _ in message.get("headers", ())):
                    await send(message)  # already whole: nothing to gather
                else:
                    start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(parts)
            headers = [
                (name, value)
                for name, value in start.get("headers", ())
                if name not in (b"content-length", b"transfer-encoding")
            ]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, whole)

"""WebSocket messages bounded where the server reads them, before they are whole.

The ingress checks each message against ``ws_max_message_bytes``, but only once
the server has read all of it: uvicorn's defaults let a message grow to 16 MiB and
negotiate permessage-deflate, so a 16 KB compressed frame of spaces, sent before
any key, inflates to 16 MiB in the replica. The server that reads the frames is
Serve's (uvicorn, started by the replica after the deployment is built), which
offers no settings for them, so :func:`bound_websocket_messages` sets them for the
uvicorn servers this process starts from then on:

- no permessage-deflate: a compressed frame is a protocol error (1002), never
  inflated; the audio (base64) would cost the service CPU to compress for little;
- a message longer than :data:`OVER_LIMIT` times the ingress's own limit is refused
  by the protocol as its header arrives (close 1009), before its payload is read;
  between the two, the ingress answers with its JSON ``body_too_large`` error.
"""

from __future__ import annotations

from typing import Any

# How far past ws_max_message_bytes a message is still read, so that the client
# gets the API's error message rather than a bare close code.
OVER_LIMIT = 2


def bound_websocket_messages(max_message_bytes: int) -> int:
    """Make the uvicorn servers this process starts read at most ``OVER_LIMIT *
    max_message_bytes`` of a WebSocket message, uncompressed; the bound set."""
    import uvicorn

    bound = OVER_LIMIT * max_message_bytes
    base = getattr(uvicorn.Config, "unbounded", uvicorn.Config)

    class BoundedConfig(base):  # type: ignore[misc, valid-type]
        unbounded = base

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["ws_max_size"] = bound
            kwargs["ws_per_message_deflate"] = False
            super().__init__(*args, **kwargs)

    uvicorn.Config = BoundedConfig  # type: ignore[misc]
    return bound

"""Stream-input sessions at the service's limits: what is billed, how many contexts a
socket may hold, a revoked key, a session's maximum length."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from serve_app.accounts import split_key
from serve_app.ingress.api import create_app
from tests.unit.serve_app.conftest import make_state
from tests.unit.serve_app.surfaces.websocket.conftest import MULTI, URL, XI, usage

ADITI_MULTI = MULTI.replace("21m00Tcm4TlvDq8ikWAM", "hi-espeak-aditi")


def closing_error(ws: Any) -> tuple[str, int]:
    """The error code of the session's last message and its close code."""
    while "error" not in (message := ws.receive_json()):
        pass
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    return message["error"]["code"], closed.value.code


def test_the_opening_space_is_not_billed(client: TestClient) -> None:
    with client.websocket_connect(URL.replace("/default", "/hi-espeak-aditi"), headers=XI) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": "नमस्ते।", "flush": True})
        ws.send_json({"text": ""})
        while not (message := ws.receive_json()).get("isFinal"):
            pass
    assert message["usage"]["characters"] == len("नमस्ते।")


def test_a_session_may_have_only_a_few_contexts_open(tmp_path: Path) -> None:
    client = TestClient(create_app(make_state(tmp_path, ws_max_contexts=3)))
    with client.websocket_connect(ADITI_MULTI, headers=XI) as ws:
        for context in "abcd":
            ws.send_json({"text": "नमस्ते। ", "context_id": context, "flush": True})
        assert closing_error(ws) == ("rate_limited", 1008)


def test_each_context_past_the_first_takes_an_admission_place(tmp_path: Path) -> None:
    """A replica with room for two: the session and its second context fill it, a
    third context is refused as a third request would be."""
    state = make_state(tmp_path, max_active_requests=2)
    client = TestClient(create_app(state))
    with client.websocket_connect(ADITI_MULTI, headers=XI) as ws:
        for context in "ab":
            ws.send_json({"text": "नमस्ते। ", "context_id": context, "flush": True})
        while ws.receive_json().get("contextId") != "b":
            pass
        assert state.admission.active == 2
        refused = client.post(
            "/v1/audio/speech", headers=XI, json={"input": "नमस्ते", "voice": "hi-espeak-aditi"}
        )
        assert refused.status_code == 503
        ws.send_json({"text": "नमस्ते। ", "context_id": "c", "flush": True})
        assert closing_error(ws) == ("overloaded", 1011)
    assert state.admission.active == 0


def test_a_revoked_key_ends_its_session_at_the_next_text(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    client = TestClient(create_app(state))
    project = state.store.find_project("dev")
    token = state.store.create_key(project)
    headers = {"Authorization": f"Bearer {token}"}
    with client.websocket_connect(
        URL.replace("/default", "/hi-espeak-aditi"), headers=headers
    ) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": "नमस्ते।", "flush": True})
        assert ws.receive_json()["audio"]
        before = usage(client)
        state.store.revoke_key(split_key(token)[0])
        ws.send_json({"text": "आज मौसम अच्छा है।", "flush": True})
        assert closing_error(ws) == ("invalid_api_key", 1008)
    assert usage(client)["characters"] - before["characters"] <= len("नमस्ते।")


def test_a_session_ends_at_its_maximum_length_with_its_text_spoken(tmp_path: Path) -> None:
    client = TestClient(create_app(make_state(tmp_path, ws_max_session_s=1.0)))
    with client.websocket_connect(URL.replace("/default", "/hi-espeak-aditi"), headers=XI) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": "नमस्ते। आज मौसम अच्छा है। "})  # buffered: no flush
        while not (message := ws.receive_json()).get("isFinal"):
            assert "error" not in message
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert message["usage"]["characters"] == len("नमस्ते। आज मौसम अच्छा है।")
    assert (closed.value.code, closed.value.reason) == (1000, "maximum session length")

"""The stream-input session without Ray: Starlette's test client, real replicas in process."""

from __future__ import annotations

import base64
import contextlib
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from serve_app.ingress.api import create_app
from tests.conftest import decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, make_state
from tests.unit.serve_app.surfaces.websocket.conftest import MULTI, URL, XI, usage


def converse(client: TestClient, url: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A session that sends a sentence word by word: the audio messages and the final one."""
    with client.websocket_connect(url, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws:
        ws.send_json({"text": " ", "generation_config": {"chunk_length_schedule": [50]}})
        for word in ["नमस्ते", "दोस्तों,", "आज", "का", "मौसम", "सुहाना", "है।"]:
            ws.send_json({"text": word + " "})
        ws.send_json({"text": ""})
        messages = []
        while not (message := ws.receive_json()).get("isFinal"):
            messages.append(message)
    return messages, message


def test_a_conversation_with_the_neural_default(client: TestClient) -> None:
    messages, final = converse(client, URL)
    pcm = b"".join(base64.b64decode(m["audio"]) for m in messages)
    assert [m["index"] for m in messages] == list(range(len(messages))) and len(messages) >= 2
    assert final["usage"]["audio_ms"] == int(pcm_seconds(pcm, 24000) * 1000)
    chars = [c for m in messages for c in m["alignment"]["chars"]]  # timed from its durations
    assert "".join(chars).replace(" ", "") == "नमस्तेदोस्तों,आजकामौसमसुहानाहै।"


def test_an_espeak_voice_aligns_characters(client: TestClient) -> None:
    messages, final = converse(client, URL.replace("/default", "/hi-espeak-aditi"))
    pcm = b"".join(base64.b64decode(m["audio"]) for m in messages)
    assert final["usage"]["audio_ms"] == int(pcm_seconds(pcm, 24000) * 1000)  # pcm: 24 kHz
    # every message is aligned; a piece's last bytes (the resampler's tail, as pcm is
    # 24 kHz and eSpeak 22.05) carry no new characters
    assert all(m["alignment"] is not None for m in messages)
    spoken = "".join(c for m in messages for c in m["alignment"]["chars"])
    assert len(spoken) > 20 and sum(bool(m["alignment"]["chars"]) for m in messages) >= 2


def test_settings_only_in_the_first_message(client: TestClient) -> None:
    with client.websocket_connect(URL) as ws:
        ws.send_json({"text": " ", "authorization": f"Bearer {DEV_KEY}"})
        ws.send_json({"text": "नमस्ते ", "voice_settings": {"speed": 1.5}})
        error = ws.receive_json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert error["code"] == "invalid_value" and closed.value.code == 1008


def test_a_speech_only_key_is_enough_and_bad_settings_are_refused(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    token = state.store.create_key(state.store.find_project("dev"), scopes=("speech",))
    client = TestClient(create_app(state))
    with client.websocket_connect(URL + "?sample_rate=12345") as ws:
        ws.send_json({"text": " ", "authorization": f"Bearer {token}"})
        assert ws.receive_json()["error"]["param"] == "sample_rate"
    with client.websocket_connect(URL) as ws:
        ws.send_json(
            {"text": " ", "authorization": f"Bearer {token}", "voice_settings": {"speed": 9}}
        )
        assert ws.receive_json()["error"]["param"] == "voice_settings.speed"


def test_an_mp3_session_at_another_rate_is_one_stream_of_what_was_billed(
    client: TestClient,
) -> None:
    """Pieces resampled and gained upstream, encoded here by one encoder: one MP3 at
    the asked rate whose length is what the usage says."""
    messages, final = converse(client, URL + "?response_format=mp3&sample_rate=16000")
    samples, rate = decode(b"".join(base64.b64decode(m["audio"]) for m in messages))
    assert rate == 16000
    # LAME pads the start and end of its one stream by a few frames, no more
    assert abs(samples.size * 1000 / rate - final["usage"]["audio_ms"]) < 150


def test_a_telephony_session_sends_whole_mu_law_frames(client: TestClient) -> None:
    """What a media-stream bridge forwards unchanged: 8 kHz mu-law in 20 ms frames."""
    messages, final = converse(client, URL + "?response_format=ulaw")
    pieces = [base64.b64decode(m["audio"]) for m in messages]
    assert pieces and all(len(p) % 160 == 0 for p in pieces)
    samples, rate = decode(b"".join(pieces), "ulaw")
    assert rate == 8000 and abs(samples.size * 1000 / rate - final["usage"]["audio_ms"]) < 20


@pytest.mark.parametrize("where", ["header", "message"])
def test_a_key_without_the_speech_scope_gets_key_scope_as_over_http(
    tmp_path: Path, where: str
) -> None:
    state = make_state(tmp_path)
    token = state.store.create_key(state.store.find_project("dev"), scopes=("usage",))
    client = TestClient(create_app(state))
    headers = {"Authorization": f"Bearer {token}"} if where == "header" else {}
    with client.websocket_connect(URL, headers=headers) as ws:
        first: dict[str, Any] = {"text": " "}
        if where == "message":
            first["authorization"] = f"Bearer {token}"
        ws.send_json(first)
        error = ws.receive_json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert (error["code"], error["type"]) == ("key_scope", "permission_error")
    assert closed.value.code == 1008


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),  # not a browser
        ("http://testserver", True),  # a page of the service itself
        ("https://app.example.com", True),  # configured
        ("https://evil.example", False),
    ],
)
def test_websocket_origins(tmp_path: Path, origin: str | None, allowed: bool) -> None:
    state = make_state(tmp_path, allowed_origins=["https://app.example.com"])
    client = TestClient(create_app(state))
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    if origin is not None:
        headers["Origin"] = origin
    with client.websocket_connect(URL, headers=headers) as ws:
        ws.send_json({"text": "नमस्ते। "})
        ws.send_json({"text": ""})
        first = ws.receive_json()
        if allowed:
            assert "audio" in first
            return
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert first["error"]["code"] == "origin_not_allowed" and closed.value.code == 1008


def test_a_flood_of_messages_ends_the_session_with_rate_limited(tmp_path: Path) -> None:
    state = make_state(tmp_path, ws_max_messages_per_s=20)
    client = TestClient(create_app(state))
    with client.websocket_connect(URL, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws:
        for _ in range(100):  # far past a burst of 40, in well under a second
            ws.send_json({"text": "क"})
        while "error" not in (message := ws.receive_json()):
            pass
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert message["error"]["code"] == "rate_limited" and closed.value.code == 1008


def test_elevenlabs_multi_stream_input_keeps_contexts_apart(client: TestClient) -> None:
    """Two contexts on one socket, as Pipecat and LiveKit open them: each gets its own
    audio (contextId on every message) and its isFinal after close_context; an empty
    text is a keep-alive; close_socket ends the session."""
    url = MULTI + "?model_id=eleven_flash_v2_5&output_format=pcm_16000&auto_mode=true"
    with client.websocket_connect(url, headers=XI) as ws:
        ws.send_json({"text": " ", "context_id": "a", "voice_settings": {"stability": 0.5}})
        ws.send_json({"text": "नमस्ते, आपका ऑर्डर आ गया है। ", "context_id": "a"})
        ws.send_json({"text": "", "context_id": "a"})  # keep-alive
        ws.send_json({"text": " ", "context_id": "b"})
        ws.send_json({"text": "कल मिलते हैं। ", "context_id": "b", "flush": True})
        ws.send_json({"context_id": "a", "flush": True, "text": ""})
        ws.send_json({"context_id": "a", "close_context": True})
        ws.send_json({"context_id": "b", "close_context": True})
        audio: dict[str, bytes] = {"a": b"", "b": b""}
        finals: list[str] = []
        while len(finals) < 2:
            message = ws.receive_json()
            if message.get("isFinal"):
                finals.append(message["contextId"])
            else:
                audio[message["contextId"]] += base64.b64decode(message["audio"])
        ws.send_json({"close_socket": True})
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert sorted(finals) == ["a", "b"] and closed.value.code == 1000
    assert pcm_seconds(audio["a"], 16000) > pcm_seconds(audio["b"], 16000) > 0.5


def test_a_finished_context_id_may_open_a_new_context(client: TestClient) -> None:
    url = MULTI + "?output_format=pcm_16000"
    with client.websocket_connect(url, headers=XI) as ws:
        for turn in ("नमस्ते। ", "फिर मिलेंगे। "):
            ws.send_json({"text": turn, "context_id": "turn", "flush": True})
            ws.send_json({"context_id": "turn", "close_context": True})
            audio = b""
            while not (message := ws.receive_json()).get("isFinal"):
                audio += base64.b64decode(message["audio"])
            assert message["contextId"] == "turn" and pcm_seconds(audio, 16000) > 0.3
        ws.send_json({"close_socket": True})


def test_a_closed_context_id_reused_at_once_opens_a_new_context(client: TestClient) -> None:
    """close_context, then text with the same id before the first has finished: a new
    context (as ElevenLabs has it) beside the closing one, which still speaks what it
    held; every other context lives on (it closed the whole socket 1008)."""
    url = MULTI + "?output_format=pcm_16000"
    with client.websocket_connect(url, headers=XI) as ws:
        ws.send_json({"text": "नमस्ते। ", "context_id": "turn", "flush": True})
        ws.send_json({"context_id": "turn", "close_context": True})
        ws.send_json({"text": "फिर मिलेंगे। ", "context_id": "turn", "flush": True})
        ws.send_json({"context_id": "turn", "close_context": True})
        audio, finals = b"", 0
        while finals < 2:
            message = ws.receive_json()
            assert "error" not in message, message
            if message.get("isFinal"):
                finals += 1
            else:
                audio += base64.b64decode(message["audio"])
        assert pcm_seconds(audio, 16000) > 1.0  # both turns
        ws.send_json({"close_socket": True})
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1000


def test_elevenlabs_stream_input_ends_with_empty_text(client: TestClient) -> None:
    """The single-context socket: the key may come in the first message as xi_api_key,
    and {"text": ""} ends the input."""
    url = "/v1/text-to-speech/hi-espeak-aditi/stream-input?output_format=ulaw_8000"
    with client.websocket_connect(url) as ws:
        ws.send_json({"text": " ", "xi_api_key": DEV_KEY})
        ws.send_json({"text": "नमस्ते दोस्तों, आज का मौसम सुहाना है। "})
        ws.send_json({"text": ""})
        messages = []
        while not (message := ws.receive_json()).get("isFinal"):
            messages.append(message)
    ulaw = b"".join(base64.b64decode(m["audio"]) for m in messages)
    assert len(ulaw) % 160 == 0 and 1.0 < len(ulaw) / 8000 < 6.0
    assert all("normalizedAlignment" in m for m in messages)
    assert message["usage"]["characters"] > 0


def test_elevenlabs_sockets_refuse_a_bad_key_and_format(client: TestClient) -> None:
    with client.websocket_connect(MULTI, headers={"xi-api-key": "sk-proj-x-y"}) as ws:
        ws.send_json({"text": " ", "context_id": "a"})
        error = ws.receive_json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert error["code"] == "invalid_api_key" and closed.value.code == 1008
    with client.websocket_connect(MULTI + "?output_format=wav_44100", headers=XI) as ws:
        error = ws.receive_json()["error"]
    assert error["param"] == "output_format"


@pytest.mark.parametrize(
    ("url", "frame", "param"),
    [
        (URL, '{"text": " ", "voice_settings": {"speed": ' + "9" * 5000 + "}}",
         "voice_settings.speed"),
        (URL, '{"text": " ", "generation_config": {"chunk_length_schedule": [' + "9" * 5000 + "]}}",
         "generation_config.chunk_length_schedule.0"),
        (URL, '{"text": "a\\ud800"}', "text"),
        (URL, '{"text": " ", "\\udc00": 1}', "\\udc00"),
        (URL + "?sample_rate=" + "9" * 5000, '{"text": " "}', "sample_rate"),
        (URL + "?inactivity_timeout=" + "9" * 5000, '{"text": " "}', "inactivity_timeout"),
        (MULTI, '{"text": " ", "context_id": "\\ud800"}', "context_id"),
        (MULTI, '{"text": " ", "voice_settings": {"speed": -' + "9" * 5000 + "}}",
         "voice_settings.speed"),
    ],
)  # fmt: skip
def test_huge_numbers_and_lone_surrogates_end_a_session_with_1008(
    client: TestClient, url: str, frame: str, param: str
) -> None:
    with client.websocket_connect(url, headers=XI) as ws:
        ws.send_text(frame)
        error = ws.receive_json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert (error["code"], error["param"], closed.value.code) == ("invalid_value", param, 1008)


def test_every_context_is_billed_for_its_own_text(client: TestClient) -> None:
    """Two contexts of one session: the bill is both texts (each context counts its
    own characters), not the longer one."""
    texts = {"a": "नमस्ते, आपका ऑर्डर आ गया है।", "b": "कल मिलते हैं।"}
    before = usage(client)
    with client.websocket_connect(MULTI.replace("21m00Tcm4TlvDq8ikWAM", "hi-espeak-aditi"),
                                  headers=XI) as ws:  # fmt: skip
        for context, text in texts.items():
            ws.send_json({"text": text + " ", "context_id": context, "flush": True})
            ws.send_json({"context_id": context, "close_context": True})
        finals = 0
        while finals < 2:
            finals += bool(ws.receive_json().get("isFinal"))
        ws.send_json({"close_socket": True})
        # The session settles before it closes the socket: wait for the close (leaving
        # the block first would cancel the session mid-settlement).
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    after = usage(client)
    assert after["characters"] - before["characters"] == sum(map(len, texts.values()))


def test_a_word_and_thousands_of_invisible_characters_costs_the_word(
    client: TestClient,
) -> None:
    with client.websocket_connect(URL.replace("/default", "/hi-espeak-aditi"), headers=XI) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": "नमस्ते" + "\u200b\u094d" * 2000, "flush": True})
        ws.send_json({"text": ""})
        while not (message := ws.receive_json()).get("isFinal"):
            pass
    assert len("नमस्ते") <= message["usage"]["characters"] <= len("नमस्ते") + 4


def test_sockets_without_a_key_take_no_place_and_are_closed_soon(tmp_path: Path) -> None:
    """Sockets that never show a key cost no admission place (a paying request is
    served past them) and are closed at the key deadline with missing_api_key."""
    state = make_state(tmp_path, max_active_requests=2, ws_auth_timeout_s=1.0)
    client = TestClient(create_app(state))
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    with contextlib.ExitStack() as idle:
        sockets = [idle.enter_context(client.websocket_connect(URL)) for _ in range(4)]
        body = {"input": "नमस्ते", "voice": "hi-espeak-aditi"}
        assert client.post("/v1/audio/speech", headers=auth, json=body).status_code == 200
        for ws in sockets:
            error = ws.receive_json()["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert (error["code"], closed.value.code) == ("missing_api_key", 1008)
    assert state.admission.active == 0 and len(state.unauthenticated) == 0


def test_an_address_may_have_only_a_few_sockets_waiting_for_their_key(tmp_path: Path) -> None:
    state = make_state(tmp_path, ws_max_unauthenticated_per_address=2, ws_auth_timeout_s=5.0)
    client = TestClient(create_app(state))
    here = {"X-Forwarded-For": "203.0.113.7"}
    with contextlib.ExitStack() as idle:
        for _ in range(2):
            idle.enter_context(client.websocket_connect(URL, headers=here))
        with client.websocket_connect(URL, headers=here) as third:
            error = third.receive_json()["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                third.receive_json()
        assert (error["code"], closed.value.code) == ("rate_limited", 1008)
        # another address, or a key in the upgrade request, is not held up
        elsewhere = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7, 192.0.2.9"}
        for headers in (elsewhere, {**here, **XI}):
            with client.websocket_connect(URL.replace("default", "hi-espeak-aditi"),
                                          headers=headers) as ws:  # fmt: skip
                if "xi-api-key" not in headers:
                    ws.send_json({"text": " ", "authorization": f"Bearer {DEV_KEY}"})
                ws.send_json({"text": "नमस्ते", "flush": True})
                ws.send_json({"text": ""})
                while not ws.receive_json().get("isFinal"):
                    pass

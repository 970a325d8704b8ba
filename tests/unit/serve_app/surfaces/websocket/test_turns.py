"""Turn control on the WebSockets: a named flush acknowledged after its last audio, a
``clear`` that drops what is queued (barge-in) and bills only what was sent, and
auto mode (no chunk schedule)."""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

from serve_app.accounts import split_key
from serve_app.ingress.api import create_app
from tests.conftest import decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, _synthesiser, make_state
from tests.unit.serve_app.surfaces.websocket.conftest import MULTI, URL, XI, usage

AUTH = {"Authorization": f"Bearer {DEV_KEY}"}
LONG = (
    "नमस्ते, आपका ऑर्डर कल शाम तक पहुँच जाएगा। कृपया घर पर रहें। डिलीवरी से पहले हम आपको फ़ोन "
    "करेंगे। भुगतान नकद या कार्ड से हो सकता है। धन्यवाद, आपका दिन शुभ हो। कोई प्रश्न हो तो हमें "
    "लिखें। हम चौबीस घंटे आपकी सेवा में हैं। फिर मिलेंगे।"
)


def until(ws: WebSocketTestSession, key: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Messages until one whose ``key`` is true: the messages before it, and it."""
    audio = []
    while not (message := ws.receive_json()).get(key):
        assert "error" not in message, message
        audio.append(message)
    return audio, message


def settled(client: TestClient, requests: int) -> dict[str, int]:
    """The project's usage once ``requests`` requests are settled: a session settles
    a moment after its final message."""
    for _ in range(100):
        if (current := usage(client))["requests"] >= requests:
            return current
        time.sleep(0.05)
    return current


def test_a_named_flush_is_acknowledged_after_its_last_audio(client: TestClient) -> None:
    with client.websocket_connect(URL + "?response_format=mp3", headers=AUTH) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": "नमस्ते, आप कैसे हैं? ", "flush_id": "turn-1"})
        first, done = until(ws, "flushDone")
        assert done == {"flushDone": True, "flushId": "turn-1"}
        ws.send_json({"text": "मैं ठीक हूँ। "})
        ws.send_json({"text": "", "flush_id": "turn-2"})  # a flush with no text of its own
        second, done = until(ws, "flushDone")
        assert done["flushId"] == "turn-2"
        ws.send_json({"text": ""})
        rest, final = until(ws, "isFinal")
    assert first and second and rest == []
    # each turn's audio is whole: its MP3 stream ends with it
    for turn in (first, second):
        samples, rate = decode(b"".join(base64.b64decode(m["audio"]) for m in turn))
        assert samples.size / rate > 0.5
    indexes = [m["index"] for m in first + second]
    assert indexes == list(range(len(indexes)))
    # billed as two texts: the space between them is neither's
    assert final["usage"]["characters"] == len("नमस्ते, आप कैसे हैं?") + len("मैं ठीक हूँ।")


def test_a_clear_stops_the_audio_and_bills_what_arrived(client: TestClient) -> None:
    """Barge-in: what was queued is dropped, synthesis stops, and the bill is what
    the client received, in characters and in milliseconds."""
    before = usage(client)
    with client.websocket_connect(URL, headers=AUTH) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": LONG + " ", "flush": True})
        heard = [ws.receive_json()]  # the first audio: the agent is speaking
        ws.send_json({"clear": True})
        late, cleared = until(ws, "cleared")
        assert cleared == {"cleared": True}
        heard += late
        # the context goes on with a new turn after the clear
        ws.send_json({"text": "ठीक है। ", "flush_id": "next"})
        after, _ = until(ws, "flushDone")
        ws.send_json({"text": ""})
        _, final = until(ws, "isFinal")
    pcm = b"".join(base64.b64decode(m["audio"]) for m in heard + after)
    # what came after the clear was already on its way: the sentence being spoken,
    # and at most the next one, whose synthesis had begun
    sentences = sorted((len(s) for s in LONG.split("।")), reverse=True)
    late_chars = sum(len(m["alignment"]["chars"]) for m in late if m.get("alignment"))
    assert late_chars <= sentences[0] + sentences[1] + 2
    assert pcm_seconds(pcm, 24000) < 12.0  # LONG says ~20 s
    spent = settled(client, before["requests"] + 1)
    assert final["usage"]["audio_ms"] == int(pcm_seconds(pcm, 24000) * 1000)
    assert spent["audio_ms"] - before["audio_ms"] == final["usage"]["audio_ms"]
    billed = final["usage"]["characters"]
    assert len("ठीक है।") < billed < len(LONG) // 2


def test_a_clear_on_one_context_leaves_the_others(client: TestClient) -> None:
    with client.websocket_connect(MULTI + "?output_format=pcm_24000", headers=XI) as ws:
        ws.send_json({"text": " ", "context_id": "a"})
        ws.send_json({"text": LONG + " ", "context_id": "a", "flush": True})
        ws.send_json({"text": "नमस्ते। ", "context_id": "b", "flush_id": "b1"})
        first = ws.receive_json()
        assert "audio" in first
        ws.send_json({"context_id": "a", "clear": True})
        messages = [first]
        while {"cleared": True, "contextId": "a"} not in messages or not any(
            m.get("flushDone") for m in messages
        ):
            messages.append(ws.receive_json())
        ws.send_json({"close_socket": True})
    assert {"flushDone": True, "flushId": "b1", "contextId": "b"} in messages
    cleared_at = messages.index({"cleared": True, "contextId": "a"})
    assert all(m.get("contextId") != "a" for m in messages[cleared_at + 1 :])
    assert any(m.get("contextId") == "b" and m.get("audio") for m in messages)


def test_auto_mode_waits_for_sentence_ends_not_lengths(client: TestClient) -> None:
    """With a one-character schedule every word would be a piece of its own; auto
    mode cuts at the sentence end (and the first clause) only. Where text is cut does
    not depend on the engine: eSpeak speaks the pieces (Kokoro took 10 s for them)."""
    words = "आज मौसम बहुत अच्छा है और हम घूमने जा रहे हैं।".split()
    espeak = URL.replace("/default", "/hi-espeak-aditi")
    for auto, most in (("true", 2), ("false", len(words))):
        with client.websocket_connect(espeak + f"?auto_mode={auto}", headers=AUTH) as ws:
            ws.send_json({"text": " ", "generation_config": {"chunk_length_schedule": [1]}})
            for word in words:
                ws.send_json({"text": word + " "})
            ws.send_json({"text": ""})
            audio, _ = until(ws, "isFinal")
        pieces = sum(1 for m in audio if m["alignment"] and m["alignment"]["chars"])
        assert 1 <= pieces <= most if auto == "true" else pieces > 2


def test_a_clear_alone_is_no_text_and_text_is_still_required(client: TestClient) -> None:
    with client.websocket_connect(URL, headers=AUTH) as ws:
        ws.send_json({"clear": True})
        assert ws.receive_json() == {"cleared": True}
        ws.send_json({"flush": True})
        assert ws.receive_json()["error"]["code"] == "missing_field"


def test_a_clear_gives_back_the_hold_of_what_it_dropped(tmp_path: Path) -> None:
    """Barge-in frees the balance at once: the hold the session grew for the text it
    dropped is released when the clear is acknowledged, not when the session ends (a
    project of USD 0.10 was refused its next turn, the cleared text still held)."""
    state = make_state(tmp_path)
    client = TestClient(create_app(state))
    key = state.store.authenticate(DEV_KEY)
    assert key is not None

    def held() -> int:
        return state.store.usage(key.project_id).held

    with client, client.websocket_connect(URL, headers=AUTH) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": LONG + " ", "flush": True})
        ws.receive_json()  # the first audio: the whole text is held
        speaking = held()
        price = state.config.price_per_character_deci_micros
        assert speaking >= price * len(LONG) * 0.9
        ws.send_json({"clear": True})
        until(ws, "cleared")
        assert held() < speaking / 2  # what was sent, at most: not the text dropped
        ws.send_json({"text": ""})
        _, final = until(ws, "isFinal")
    assert final["usage"]["characters"] < len(LONG) // 2


def test_the_hold_grows_as_text_arrives_and_a_short_balance_refuses_it_then(
    tmp_path: Path,
) -> None:
    """Text is held for as it arrives, not when it is spoken: what waits for a sentence
    end is covered, and a project that cannot pay for a message is told at that message
    (402), while one whose balance covers the text but not a block ahead is not."""
    state = make_state(tmp_path)
    client = TestClient(create_app(state))
    price = state.config.price_per_character_deci_micros
    poor = state.store.create_project("poor", starting_balance=price * 100)
    token = state.store.create_key(poor)
    waiting = "यह वाक्य अभी पूरा नहीं हुआ"  # no sentence end: nothing is spoken yet
    with client, client.websocket_connect(URL, headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.send_json({"text": " "})
        ws.send_json({"text": waiting})  # 25 characters: within the balance, under a block
        for _ in range(200):
            if state.store.usage(poor).held >= price * len(waiting):
                break
            time.sleep(0.02)
        assert price * len(waiting) <= state.store.usage(poor).held <= price * 100
        ws.send_json({"text": " और" * 40})  # 120 more: past the balance, refused now
        message = ws.receive_json()
    assert message["error"]["code"] == "insufficient_balance", message


def test_a_piece_cut_off_before_its_audio_spends_the_key_s_unproductive_time(
    tmp_path: Path,
) -> None:
    """A session that leaves while a piece is being synthesised, before any of its audio:
    billed nothing for it, and the seconds it ran are spent from the key's budget of
    synthesis that made no audio (as an HTTP request abandoned before its first byte)."""
    state = make_state(tmp_path)
    client = TestClient(create_app(state))
    key_id = split_key(DEV_KEY)[0]
    # unpunctuated: a first piece of ~290 characters, seconds of Kokoro calls
    text = " ".join(["यह एक लंबा पाठ है जिसे बिना रुके पढ़ा जाता है और यह चलता रहता है"] * 6)

    def debt_ms() -> float:
        with state.store._db.transaction() as tx:
            row = tx.one("SELECT debt_ms FROM unproductive_time WHERE key_id = ?", (key_id,))
        return float(row[0]) if row else 0.0

    def until(busy: bool) -> None:
        """Until the shared in-process synthesiser has a call waiting or running (or not)."""
        deadline = time.monotonic() + 60
        while _synthesiser().busy != busy and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _synthesiser().busy == busy

    until(busy=False)  # an earlier test's cut-off call has ended
    with client:
        with client.websocket_connect(URL, headers=AUTH) as ws:
            ws.send_json({"text": " "})
            ws.send_json({"text": text + " ", "flush": True})
            until(busy=True)  # its synthesis is under way (its first audio: seconds away)
            time.sleep(0.3)
        deadline = time.monotonic() + 30
        while debt_ms() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        # (the test client cancels the session's task as it leaves, a server stopping
        # does too: the session settles all the same; it once left its hold open, its
        # unproductive time unrecorded, one run in three)
        assert debt_ms() >= 250
        assert usage(client)["characters"] == 0  # and nothing billed
        key = state.store.authenticate(DEV_KEY)
        assert key is not None and state.store.usage(key.project_id).held == 0

"""A stream session without a socket: text in by context, audio and notices out
through its two callbacks, its one bill settled in the ledger."""

from __future__ import annotations

import itertools
import time

import pytest

from deployments.messages import EncodedChunk
from serve_app.http.errors import RateLimited
from serve_app.ingress.state import IngressState
from serve_app.speech.streams.session import StreamSession, StreamVoice
from serve_app.speech.streams.text_stream import TextStreamSettings
from serve_app.speech.vocabulary import VoiceOptions
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK

HELLO = "नमस्ते, आप कैसे हैं? "
FINE = "मैं ठीक हूँ। "


class Heard:
    """What a session handed its surface, in order."""

    def __init__(self) -> None:
        self.audio: dict[str, list[tuple[int, EncodedChunk]]] = {}
        self.said: list[tuple[str, ...]] = []  # ("audio", context) and notices, in order

    async def send_audio(self, context_id: str, index: int, chunk: EncodedChunk) -> None:
        self.audio.setdefault(context_id, []).append((index, chunk))
        self.said.append(("audio", context_id))

    async def send_notice(self, what: str, context_id: str, flush_id: str | None) -> None:
        self.said.append((what, context_id) if flush_id is None else (what, context_id, flush_id))


def session_of(state: IngressState, heard: Heard, multi: bool = True) -> StreamSession:
    return StreamSession(
        state.speech,
        heard.send_audio,
        heard.send_notice,
        multi=multi,
        max_contexts=2,
        received_at=time.monotonic(),
    )


async def opened(
    state: IngressState, heard: Heard, voice: StreamVoice, multi: bool = True
) -> StreamSession:
    session = session_of(state, heard, multi)
    key = await state.auth.authorise(f"Bearer {DEV_KEY}", "speech")
    await session.open(key, TextStreamSettings(), voice)
    return session


async def test_contexts_speak_in_order_and_the_bill_settles_once(state: IngressState) -> None:
    heard = Heard()
    session = await opened(state, heard, StreamVoice(VoiceOptions(voice=ESPEAK)))
    await session.add("a", HELLO, flush_id="turn-1")
    await session.add("b", FINE)
    await session.close_context("b")
    await session.end()
    assert await session.failure() is None
    usage = await session.close()
    assert usage is not None and usage.characters == len(HELLO.strip()) + len(FINE.strip())
    assert await session.close() == usage  # settled once
    # each context's audio numbered from 0 in order; a's flush told after its audio
    for context in ("a", "b"):
        indexes = [index for index, _ in heard.audio[context]]
        assert indexes == list(range(len(indexes))) and indexes
    # (the two contexts speak at once: each one's own messages, runs of audio as one)
    a_said = [said for said, _ in itertools.groupby(s for s in heard.said if s[1] == "a")]
    assert a_said == [("audio", "a"), ("flush_done", "a", "turn-1"), ("ended", "a")]
    assert heard.said.count(("ended", "b")) == 1
    ledger = await state.speech.meter.account(state.store.find_project("dev"))
    assert ledger.usage.characters == usage.characters and ledger.usage.requests == 1


async def test_a_cleared_context_is_told_and_releases_its_hold(state: IngressState) -> None:
    heard = Heard()
    session = await opened(state, heard, StreamVoice(VoiceOptions(voice=ESPEAK)), multi=False)
    project = state.store.find_project("dev")
    await session.add("", "नमस्ते आप कैसे हैं " * 2)  # no sentence end: buffered
    holding = state.store.usage(project).held
    await session.clear("")
    assert heard.said == [("cleared", "")]
    assert state.store.usage(project).held < holding  # what it held for the text, released
    await session.end()
    usage = await session.close()
    assert usage is not None and usage.characters == 0 and heard.audio == {}
    assert state.store.usage(project).spent == 0


async def test_contexts_past_the_limit_are_refused(state: IngressState) -> None:
    session = await opened(state, Heard(), StreamVoice(VoiceOptions(voice=ESPEAK)))
    await session.add("a", "")
    await session.add("b", "")
    with pytest.raises(RateLimited):
        await session.add("c", "")
    await session.close()


async def test_where_no_language_is_named_the_first_text_s_script_chooses(
    state: IngressState,
) -> None:
    by_script = StreamVoice(VoiceOptions(), by_script=True)
    assert not by_script.known
    session = await opened(state, Heard(), by_script)
    assert (await session.voicing_for("Hello there.")).params.language == "en"
    assert (await session.voicing_for(HELLO)).params.language == "en"  # chosen once
    await session.close()
    named = StreamVoice(VoiceOptions(language="hi"), by_script=True)
    assert named.known
    session = await opened(state, Heard(), named)
    assert (await session.voicing_for("Hello there.")).params.language == "hi"
    await session.close()

"""The cache's key: everything that changes the audio, nothing that does not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from deployments.messages import Prosody, Segment, SynthesisParams, VoiceDesign
from deployments.normaliser import TextNormaliser
from deployments.reading import ReadingOptions
from deployments.synthesis import VoiceRegistry
from serve_app.speech.cache.keys import group_key, groups

ROOT = Path(__file__).resolve().parents[5]
VOICE = VoiceRegistry.from_file(ROOT / "configs" / "voices.yaml").get("hi-espeak-aditi")
assert VOICE is not None
PARAMS = SynthesisParams("hi-espeak-aditi", "hi", tenant="project-a")


def key(segments: tuple[Segment, ...], asked: SynthesisParams = PARAMS, **voice: object) -> str:
    return group_key(asked.tenant, "service-v1", VOICE.model_copy(update=voice), asked, segments)


def test_a_first_clause_is_grouped_with_the_rest_of_its_sentence() -> None:
    clause = Segment(0, "नमस्ते,", 0, 7, joins_next=True)
    rest = Segment(1, "आप कैसे हैं?", 8, 20)
    then = Segment(2, "धन्यवाद।", 21, 29)
    assert groups([clause, rest, then]) == [(clause, rest), (then,)]
    assert groups([clause]) == [(clause,)]


def test_the_same_reading_anywhere_in_any_input_has_one_key() -> None:
    normaliser = TextNormaliser()
    options = ReadingOptions("hi", "balanced")
    written = normaliser.normalise("कुल ₹500 है", options).segments
    in_words = normaliser.normalise("नमस्ते। कुल पाँच सौ रुपये है", options).segments
    assert written[0].text == in_words[-1].text  # both read out the same
    assert written[0].start != in_words[-1].start and written[0].sources != in_words[-1].sources
    assert key((written[0],)) == key((replace(in_words[-1], index=0),))


SAME = Segment(0, "नमस्ते", 0, 6)


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(key((SAME,), replace(PARAMS, tenant="project-b")), id="another project"),
        pytest.param(key((SAME,), replace(PARAMS, speed=1.25)), id="speed"),
        pytest.param(key((SAME,), replace(PARAMS, pitch=0.5)), id="pitch"),
        pytest.param(key((SAME,), replace(PARAMS, quality="high")), id="quality"),
        pytest.param(key((SAME,), replace(PARAMS, language="mr")), id="language"),
        pytest.param(
            key((SAME,), replace(PARAMS, design=VoiceDesign(variant="f3"))), id="a built voice"
        ),
        pytest.param(key((SAME,), params={"variant": "f3"}), id="the voice's parameters"),
        pytest.param(key((SAME,), sample_rate=16000), id="the voice's rate"),
        pytest.param(key((replace(SAME, text="नमस्ते!"),)), id="text"),
        pytest.param(key((replace(SAME, prosody=Prosody(speed=0.8)),)), id="prosody"),
        pytest.param(key((replace(SAME, pause_after_ms=500),)), id="a pause"),
        pytest.param(key((replace(SAME, previous_text="पहले"),)), id="the text before"),
    ],
)
def test_what_changes_the_audio_changes_the_key(other: str) -> None:
    assert other != key((SAME,))


def test_what_does_not_change_the_audio_keeps_the_key() -> None:
    asked = replace(PARAMS, with_alignment=True, with_phonemes=True, background=True)
    moved = replace(SAME, index=4, start=100, end=106, billed_end=110, sources=((0, 6, 100, 106),))
    assert key((moved,), asked) == key((SAME,))

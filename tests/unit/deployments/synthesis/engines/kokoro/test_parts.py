"""A sentence read once and rendered in two parts, on the real export and voices."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest

from deployments.espeak_binding import espeak_library
from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken
from deployments.synthesis.engines.kokoro.assets import (
    default_voices_dir,
    load_model_bytes,
    load_style,
)
from deployments.synthesis.engines.kokoro.backends import (
    SAMPLES_PER_FRAME,
    OnnxKokoro,
    SessionPair,
    split_graph,
)
from deployments.synthesis.engines.kokoro.parts import OVERLAP_FRAMES
from deployments.synthesis.engines.kokoro.passages import SAMPLE_RATE
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer
from deployments.synthesis.registry import load_engine

from .test_engine import VOICES

CLAUSE, REST = "नमस्ते,", "आज मौसम बहुत अच्छा है।"
SENTENCE = f"{CLAUSE} {REST}"
SPLIT_AT = len(CLAUSE) + 1
PARAMS = SynthesisParams("hf_alpha", "hi", with_phonemes=True)
VOICE = VOICES["hf_alpha"]


def level_db(audio: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(audio.astype(np.float64) ** 2)) + 1e-12))


@pytest.fixture(scope="module")
def engine():
    engine = load_engine("kokoro", {"threads": 1})
    engine.add_voice(VOICE)
    return engine


def rendered_s(engine) -> float:
    return float(engine.info().extra["audio_seconds"])


def test_the_graph_cut_in_two_speaks_as_the_whole_graph() -> None:
    """Reader, then renderer: the export's own audio, sample for sample; a run of
    frames renders that many frames' samples."""
    model = load_model_bytes()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    whole = onnxruntime.InferenceSession(model, options)
    halves = (onnxruntime.InferenceSession(half, options) for half in split_graph(model))
    backend = OnnxKokoro(SessionPair(*halves), "cpu")
    tokens = [0, *KokoroPhonemizer(espeak_library()).tokens("nəmˈʌsteː, ˈaːɟ"), 0]
    style = load_style("hf_alpha", default_voices_dir())[len(tokens) - 3]
    feed = {
        "tokens": np.array([tokens]),
        "style": style[None],
        "speed": np.array([1.0], np.float32),
    }
    expected = whole.run(["audio"], feed)[0].reshape(-1)
    (voiced,) = backend.run([(tokens, style, 1.0)])
    np.testing.assert_array_equal(voiced.audio, expected)
    reading = backend.read((tokens, style, 1.0))
    assert voiced.durations is not None and voiced.durations.size == len(tokens)
    assert reading.frames == int(voiced.durations.sum()) == expected.size // SAMPLES_PER_FRAME
    np.testing.assert_array_equal(backend.render(reading, 0, reading.frames), expected)
    assert backend.render(reading, 10, 30).size == 20 * SAMPLES_PER_FRAME


@pytest.mark.parametrize(
    "surrounding",
    [("", ""), ("मैं आपको बताना चाहती हूँ।", "चलिए अब आगे बढ़ते हैं।")],
    ids=["alone", "surrounded"],
)
def test_a_sentence_is_heard_in_two_parts_that_meet_in_its_pause(
    engine, surrounding: tuple[str, str]
) -> None:
    """The clause's audio, then the rest's, each timed from its own start: together
    the sentence as one reading has it (its pause, its words' times, each part's
    level), the cut in near-silence, for the frames of the whole and the overlap.
    Text read around the sentence (previous_text / next_text) is read, not heard."""
    before_text, after_text = surrounding
    segment = Segment(
        0, SENTENCE, 0, len(SENTENCE), previous_text=before_text, next_text=after_text
    )
    before = rendered_s(engine)
    (whole,) = list(engine.synthesise(segment, VOICE, PARAMS))
    whole_s = rendered_s(engine) - before
    parts = engine.synthesise_parts(segment, SPLIT_AT, VOICE, PARAMS)
    assert parts is not None
    head, rest = list(parts)
    parted_s = rendered_s(engine) - before - whole_s
    # each frame rendered once, and the overlap on each side of the cut
    assert parted_s <= whole_s + (2 * OVERLAP_FRAMES + 1) * SAMPLES_PER_FRAME / SAMPLE_RATE

    assert [SENTENCE[w.start : w.end] for w in head.words] == ["नमस्ते"]
    assert [REST[w.start : w.end] for w in rest.words] == REST[:-1].split()
    assert {REST[p.start : p.end] for p in rest.phonemes} == set(REST[:-1].split())
    assert rest.phonemes[0].start_ms < 100 and head.words[0].start_ms == 0
    # the sentence's own timing: its length, and when its second clause starts
    together = head.samples.size + rest.samples.size
    assert abs(together - whole.samples.size) <= 2 * SAMPLES_PER_FRAME
    heard_at = head.samples.size * 1000 // SAMPLE_RATE + rest.words[0].start_ms
    assert abs(heard_at - whole.words[1].start_ms) <= 50
    # they meet in the pause: the last and first 20 ms are near-silence
    edge = SAMPLE_RATE // 50
    assert level_db(head.samples[-edge:]) < -40 and level_db(rest.samples[:edge]) < -40
    # each part as loud as the same span of the whole reading
    cut = head.samples.size
    assert abs(level_db(head.samples) - level_db(whole.samples[:cut])) < 1.5
    assert abs(level_db(rest.samples) - level_db(whole.samples[cut:])) < 1.5


def test_a_reading_that_runs_on_through_the_mark_is_not_cut(engine) -> None:
    """Where the reading makes no pause at the clause's mark (this voice reads
    ``पहला;`` straight into the next word), there is nothing to cut in: None."""
    text = "पहला; दूसरा और तीसरा विकल्प भी है।"
    segment = Segment(0, text, 0, len(text))
    assert engine.synthesise_parts(segment, len("पहला;") + 1, VOICE, PARAMS) is None


def test_a_stream_gone_after_the_first_part_renders_no_more(engine) -> None:
    segment = Segment(0, SENTENCE, 0, len(SENTENCE))
    cancel = CancelToken()
    parts = engine.synthesise_parts(segment, SPLIT_AT, VOICE, PARAMS, cancel)
    assert parts is not None
    next(parts)
    cancel.cancel()
    before = rendered_s(engine)
    assert list(parts) == []
    assert rendered_s(engine) == before


def test_a_split_inside_the_first_word_or_past_the_last_is_not_cut(engine) -> None:
    segment = Segment(0, SENTENCE, 0, len(SENTENCE))
    assert engine.synthesise_parts(segment, 0, VOICE, PARAMS) is None
    assert engine.synthesise_parts(segment, len(SENTENCE), VOICE, PARAMS) is None

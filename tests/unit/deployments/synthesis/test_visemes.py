"""IPA phonemes as Oculus visemes, and a track of them over a stretch of audio."""

from __future__ import annotations

import pytest

from deployments.espeak_binding import espeak_library
from deployments.synthesis.engines.kokoro.phonemes import KOKORO_IPA, vocabulary
from deployments.synthesis.visemes import _LETTERS, VISEMES, _letters, shapes, viseme_track
from deployments.timings import PhonemeTiming


@pytest.mark.parametrize(
    ("phoneme", "expected"),
    [
        ("p", ("PP",)),
        ("m", ("PP",)),
        ("ʋ", ("FF",)),
        ("ð", ("TH",)),
        ("ʈʰ", ("DD",)),
        ("ɡ", ("kk",)),
        ("tʃ", ("CH",)),
        ("ʃ", ("CH",)),
        ("s", ("SS",)),
        ("ɳ", ("nn",)),
        ("ɹ", ("RR",)),
        ("aː", ("aa",)),
        ("ɛ̃", ("E",)),
        ("ə", ("E",)),
        ("iː", ("ih",)),
        ("oː", ("oh",)),
        ("ʊ", ("ou",)),
        ("aɪ", ("aa", "ih")),  # a diphthong: two shapes
        ("oʊ", ("oh", "ou")),
        ("ˈeɪ", ("E", "ih")),  # stress is no letter
        ("", ("sil",)),
    ],
)
def test_a_phoneme_s_shapes(phoneme: str, expected: tuple[str, ...]) -> None:
    assert shapes(phoneme) == expected


def test_every_letter_a_voice_says_has_a_shape_of_its_own() -> None:
    """No phoneme our engines produce falls to the neutral default: each letter of
    Kokoro's vocabulary (as IPA) and of eSpeak's Hindi and English phonemes is mapped."""
    mapped = set("".join(_LETTERS.values()))
    kokoro = {
        ch
        for symbol in vocabulary()
        if symbol.isalpha()
        for ch in _letters(KOKORO_IPA.get(symbol, symbol))
    }
    library = espeak_library()
    sample = "नमस्ते, क्या हाल है? ज़रूर, फ़ोन ऋषि ड़ ढ़ ख़ ग़। The quick brown fox jumps over the lazy dog."
    said = "".join(
        library.text_to_phonemes(sample, "hi") + library.text_to_phonemes(sample, "en-us")
    )
    espeak = set(_letters(said.replace("^", "")))
    assert (kokoro | espeak) - mapped <= set("ʕ")  # Kokoro's vocabulary holds a few rare ones
    assert all(viseme in VISEMES for viseme in _LETTERS)


def test_a_track_covers_the_audio_with_silence_between() -> None:
    phonemes = [
        PhonemeTiming("n", 100, 50),
        PhonemeTiming("ə", 150, 50),
        PhonemeTiming("m", 300, 60),  # a pause before it
        PhonemeTiming("m", 360, 40),  # the same shape again: one
        PhonemeTiming("aɪ", 400, 100),
    ]
    track = [(v.viseme, v.start_ms, v.duration_ms) for v in viseme_track(phonemes, 700)]
    assert track == [
        ("sil", 0, 100),
        ("nn", 100, 50),
        ("E", 150, 50),
        ("sil", 200, 100),
        ("PP", 300, 100),
        ("aa", 400, 50),
        ("ih", 450, 50),
        ("sil", 500, 200),
    ]


def test_overlapping_phonemes_never_go_back_in_time() -> None:
    track = viseme_track([PhonemeTiming("s", 0, 100), PhonemeTiming("a", 50, 100)], 150)
    assert [(v.viseme, v.start_ms, v.duration_ms) for v in track] == [
        ("SS", 0, 100),
        ("aa", 100, 50),
    ]
    assert viseme_track([], 80)[0].viseme == "sil"

"""Kokoro's phonemes through eSpeak NG, and the word of the text each symbol says."""

from __future__ import annotations

from deployments.espeak_binding import espeak_library
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer, Phonemes, _groups


def said(phonemes: Phonemes, text: str) -> dict[str, str]:
    """Each word of ``text`` -> the symbols said for it."""
    return {
        text[a:b]: "".join(s for s, o in zip(phonemes.text, phonemes.owners, strict=True) if o == k)
        for k, (a, b) in enumerate(phonemes.words)
    }


def test_each_hindi_word_owns_its_phonemes() -> None:
    text = "नमस्ते, आप कैसे हैं? मैं ठीक हूँ।"
    phonemes = KokoroPhonemizer(espeak_library()).phonemize(text, "hi")
    assert [text[a:b] for a, b in phonemes.words] == [w.strip(",?।") for w in text.split()]
    words = said(phonemes, text)
    assert words["नमस्ते"] == "nəmˈʌsteː" and words["हूँ"] == "hu\u0303"
    marks = {s for s, o in zip(phonemes.text, phonemes.owners, strict=True) if o < 0}
    assert marks == {" ", ",", "?", "."}  # spaces and marks belong to no word


def test_words_espeak_joins_share_their_phonemes() -> None:
    text = "It is in the box, of the best kind."
    phonemes = KokoroPhonemizer(espeak_library()).phonemize(text, "en-us")
    assert "ɪnðə" in phonemes.text  # eSpeak says "in the" as one word
    words = said(phonemes, text)
    assert (words["in"], words["the"], words["box"], words["kind"]) == (
        "ɪn",
        "ðə",
        "bˈɑks",
        "kˈInd",
    )
    assert all(words.values())  # every word owns some symbol


def test_tokens_of_a_span_keep_their_words() -> None:
    phonemizer = KokoroPhonemizer(espeak_library())
    phonemes = phonemizer.phonemize("नमस्ते दोस्तों", "hi")
    owners = phonemes.token_owners(0, len(phonemes.text))
    assert len(owners) == len(phonemizer.tokens(phonemes.text))
    assert owners[0] == 0 and owners[-1] == 1 and -1 in owners


def test_groups_match_words_to_phoneme_words_in_order() -> None:
    assert _groups([2, 2, 4], [4, 4]) == [((0, 1), (0,)), ((2,), (1,))]
    assert _groups([3, 6], [3, 3, 3]) == [((0,), (0,)), ((1,), (1, 2))]
    assert _groups([5], []) == [((0,), ())]

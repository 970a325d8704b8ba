"""English words inside Hindi sentences, written in Devanagari as Indians say them.

``मेरा order cancel हो गया`` -> ``मेरा ऑर्डर कैंसल हो गया``: a Hindi voice gets every
word in its own script instead of switching to an English voice (eSpeak) or being
given English phonemes mid-sentence (Kokoro). Two sources, in order:

1. The lexicon, ``data/hi_english.tsv``: the words of Indian customer service,
   banking, commerce, travel and tech, each as it is said and written in Hindi
   (``order`` -> ऑर्डर, ``refund`` -> रिफ़ंड), reviewed by hand.
2. Every other word: its American English phonemes from eSpeak NG, written in
   Devanagari by rule (consonant clusters with halant, a nasal before a consonant
   as anusvara, vowels as matras), so that no Latin word reaches a Hindi voice.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

LEXICON_PATH = Path(__file__).with_name("data") / "hi_english.tsv"
LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")

HALANT, ANUSVARA = "\u094d", "\u0902"
CONSONANTS = {
    "p": "प", "b": "ब", "t": "ट", "d": "ड", "k": "क", "ɡ": "ग", "g": "ग", "f": "फ़",
    "v": "व", "θ": "थ", "ð": "द", "s": "स", "z": "ज़", "ʃ": "श", "ʒ": "ज़", "h": "ह",
    "t^ʃ": "च", "d^ʒ": "ज", "m": "म", "n": "न", "ŋ": "ंग", "l": "ल", "ɫ": "ल", "ɹ": "र",
    "r": "र", "w": "व", "j": "य", "ɾ": "ट", "x": "ख़", "ʔ": "",
}  # fmt: skip
# vowel -> (its letter at the start of a syllable, its sign after a consonant)
VOWELS = {
    "iː": ("ई", "ी"), "i": ("ई", "ी"), "ɪ": ("इ", "ि"), "ᵻ": ("इ", "ि"), "e": ("ए", "े"),
    "ɛ": ("ए", "े"), "e^ɪ": ("ए", "े"), "æ": ("ऐ", "ै"), "a": ("आ", "ा"), "ɑː": ("आ", "ा"),
    "ɑ": ("आ", "ा"), "ɒ": ("ऑ", "ॉ"), "ɔ": ("ऑ", "ॉ"), "ɔː": ("ऑ", "ॉ"), "ʊ": ("उ", "ु"),
    "uː": ("ऊ", "ू"), "u": ("ऊ", "ू"), "ʌ": ("अ", ""), "ə": ("अ", ""), "ɐ": ("अ", ""),
    "ɜː": ("अ", ""), "ɜ": ("अ", ""), "o^ʊ": ("ओ", "ो"), "əʊ": ("ओ", "ो"), "o": ("ओ", "ो"),
    "a^ɪ": ("आइ", "ाइ"), "a^ʊ": ("आउ", "ाउ"), "ɔ^ɪ": ("ऑय", "ॉय"), "ɔɪ": ("ऑय", "ॉय"),
}  # fmt: skip
# A nasal before these is written as anusvara (कैंसल, कंप्यूटर, बैंक); before others
# it keeps its letter (ऑनलाइन, डाउनलोड).
STOPS_AND_FRICATIVES = frozenset(
    "p b t d k ɡ g t^ʃ d^ʒ f v θ ð s z ʃ ʒ ɾ".split()
)  # fmt: skip
# r-coloured vowels: the vowel, then r
R_COLOURED = {
    "ɚ": "ə", "ɔː^ɹ": "ɔː", "ɑː^ɹ": "ɑː", "ɛ^ɹ": "ɛ", "ɪ^ɹ": "ɪ", "ʊ^ɹ": "ʊ", "ɜː^ɹ": "ɜː",
}  # fmt: skip
SYLLABIC = {"ə^l": ("ə", "l"), "ə^n": ("ə", "n"), "ə^m": ("ə", "m")}
PHONEME = re.compile(
    "|".join(
        re.escape(p)
        for p in sorted((*CONSONANTS, *VOWELS, *R_COLOURED, *SYLLABIC), key=len, reverse=True)
    )
)


@functools.cache
def lexicon() -> dict[str, str]:
    """``english word -> Devanagari`` from the lexicon file (comments and blanks skipped)."""
    words: dict[str, str] = {}
    for line in LEXICON_PATH.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            english, devanagari = line.split("\t")
            words[english] = devanagari
    return words


def phonemes(word: str) -> list[str]:
    """The word's phonemes (American English, eSpeak NG), r-colouring split off."""
    from deployments.synthesis.espeak_binding import espeak_library

    ipa = "".join(espeak_library().text_to_phonemes(word, "en-us")).replace("ˈ", "")
    found: list[str] = []
    for token in PHONEME.findall(ipa.replace("ˌ", "")):
        if token in R_COLOURED:
            found += [R_COLOURED[token], "ɹ"]
        elif token in SYLLABIC:
            found += list(SYLLABIC[token])
        elif token in ("ɜː", "ɜ"):  # nurse: spelt with an r, said with one in India
            found += ["ə", "ɹ"]
        else:
            found.append(token)
    # an r-coloured vowel before an r: one r (delivery)
    return [s for i, s in enumerate(found) if not (s == "ɹ" and i and found[i - 1] == "ɹ")]


# Reduced vowels of endings that Indian English says as spelt: -ted/-ded (लिमिटेड),
# -age (लगेज), -ment (पेमेंट).
_ENDINGS = (("ed", ("ɪ", "ᵻ"), 2), ("age", ("ɪ", "ᵻ"), 2), ("ment", ("ə",), 3))


def indian_endings(sounds: list[str], spelling: str) -> list[str]:
    """``sounds`` with the reduced vowel of a spelt ending said as e."""
    for ending, reduced, back in _ENDINGS:
        if spelling.endswith(ending) and len(sounds) > back and sounds[-back] in reduced:
            return [*sounds[:-back], "e", *sounds[-back + 1 :]]
    return sounds


def from_phonemes(sounds: list[str], spelling: str) -> str:
    """Devanagari for ``sounds``: clusters with halant, a nasal before a consonant as
    anusvara. American /ɑː/ is ऑ where the word is spelt with an o (online, problem),
    as Indian English says it."""
    sounds = indian_endings(sounds, spelling.lower())
    out: list[str] = []
    after_consonant = False
    o_spelt = "o" in spelling.lower()
    for i, sound in enumerate(sounds):
        if sound in VOWELS:
            letter, sign = VOWELS[sound]
            if sound in ("ɑː", "ɑ") and o_spelt:
                letter, sign = "ऑ", "ॉ"
            out.append(sign if after_consonant else letter)
            after_consonant = False
            continue
        letter = CONSONANTS[sound]
        if not letter:
            continue
        following = sounds[i + 1] if i + 1 < len(sounds) else None
        previous = sounds[i - 1] if i else None
        # After a vowel, a nasal before a stop or fricative is anusvara (कैंसल, बैंक);
        # after a consonant it is a letter of the cluster (रिटर्न्ड).
        if sound in ("n", "m", "ŋ") and following in STOPS_AND_FRICATIVES and not after_consonant:
            nasal = ANUSVARA if sound != "ŋ" or following in ("k", "ɡ", "g") else "ंग"
            out.append(nasal)
            after_consonant = nasal != ANUSVARA  # after ंग a cluster: सॉन्ग्स
            continue
        # A cluster is written with halant, except after n or m (ऑनलाइन, डाउनलोड:
        # Hindi drops that vowel in speech anyway).
        if after_consonant and previous not in ("n", "m"):
            out.append(HALANT)
        out.append(letter)
        after_consonant = True  # ंग too: a vowel after it is a sign (सिंगिंग)
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def to_devanagari(word: str) -> str:
    """``word`` (Latin letters) as it is said in Hindi, in Devanagari."""
    known = lexicon().get(word.lower())
    if known is not None:
        return known
    return from_phonemes(phonemes(word), word) or word


def devanagari_words(text: str) -> str:
    """Every Latin word of ``text`` in Devanagari."""
    return LATIN_WORD.sub(lambda m: to_devanagari(m[0]), text)

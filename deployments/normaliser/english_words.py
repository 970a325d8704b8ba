"""English words inside sentences of Indian languages, written as Indians say them.

``मेरा order cancel हो गया`` -> ``मेरा ऑर्डर कैंसल हो गया``: a voice gets every word
in its language's own script instead of switching to an English voice (eSpeak) or
being given English phonemes mid-sentence (Kokoro). In Devanagari, an Indian name
or a Hindi word typed in Latin letters is Hindi (:mod:`romanised`); every other
word comes from two sources, in order:

1. The language's lexicon, ``data/<language>_english.tsv`` (Hindi's is large; Bengali,
   Tamil, Telugu and Kannada have their units and currencies): the
   words of Indian customer service, banking, commerce, travel and tech, each as
   it is said and written in the language (``order`` -> ऑर्डर, ``refund`` ->
   रिफ़ंड), reviewed by hand.
2. Every other word: its American English phonemes from eSpeak NG, written in the
   language's script by rule (:mod:`indic_scripts`: clusters with the virama, a
   nasal before a stop as the anusvara where the script uses one, vowels as signs),
   so that no Latin word reaches the voice.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from num2words import num2words

import deployments.normaliser.romanised as romanised
from deployments.normaliser.hindi_letters import hindi_in_script
from deployments.normaliser.indic_scripts import DEVANAGARI, SCRIPTS, Script

LEXICON_PATH = Path(__file__).with_name("data") / "hi_english.tsv"
LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")

# A nasal before these, after a vowel, is an anusvara where the script writes one
# (कैंसल, कंप्यूटर, बैंक); before others it keeps its letter (ऑनलाइन, डाउनलोड).
STOPS_AND_FRICATIVES = frozenset(
    "p b t d k ɡ g t^ʃ d^ʒ f v θ ð s z ʃ ʒ ɾ".split()
)  # fmt: skip
VELARS = frozenset({"k", "ɡ", "g"})
_FRONT_HIGH = frozenset({"i", "iː", "ɪ", "ᵻ"})
# r-coloured vowels: the vowel, then r
R_COLOURED = {
    "ɚ": "ə", "ɔː^ɹ": "ɔː", "ɑː^ɹ": "ɑː", "ɛ^ɹ": "ɛ", "ɪ^ɹ": "ɪ", "ʊ^ɹ": "ʊ", "ɜː^ɹ": "ɜː",
}  # fmt: skip
SYLLABIC = {"ə^l": ("ə", "l"), "ə^n": ("ə", "n"), "ə^m": ("ə", "m")}
# British diphthongs, read only to line British vowels up with American ones.
BRITISH = ("ə^ʊ", "e^ə", "ɪ^ə", "ʊ^ə")
PHONEME = re.compile(
    "|".join(
        re.escape(p)
        for p in sorted(
            (*DEVANAGARI.consonants, *DEVANAGARI.vowels, *R_COLOURED, *SYLLABIC, *BRITISH),
            key=len,
            reverse=True,
        )
    )
)


@functools.cache
def _rows(language: str) -> list[list[str]]:
    """The rows of the language's lexicon file, if it has one (comments and blanks
    skipped): the English word, its spelling, and in some (Telugu) the form it takes
    after a number other than one."""
    path = LEXICON_PATH.with_name(f"{language}_english.tsv")
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


@functools.cache
def lexicon(language: str = "hi") -> dict[str, str]:
    """``english word -> spelling`` from the language's lexicon file."""
    return {row[0]: row[1] for row in _rows(language)}


@functools.cache
def plurals(language: str) -> dict[str, str]:
    """``english word -> its form after a number other than one``, where the lexicon
    gives one (Telugu: డాలర్ -> డాలర్లు)."""
    return {row[0]: row[2] for row in _rows(language) if len(row) > 2}


def counted_spelling(word: str, language: str, one: bool) -> str:
    """``word`` after a number: its plural where the lexicon has one and the number
    is not one (ఇరవై డాలర్లు), else its spelling (ఒక డాలర్)."""
    plural = None if one else plurals(language).get(word)
    return plural or native_spelling(word, language)


def _tokens(word: str, voice: str) -> list[str]:
    from deployments.espeak_binding import espeak_library

    ipa = "".join(espeak_library().text_to_phonemes(word, voice))
    return PHONEME.findall(ipa.replace("ˈ", "").replace("ˌ", ""))


_VOWEL_TOKENS = frozenset({*DEVANAGARI.vowels, *R_COLOURED, *SYLLABIC, *BRITISH})
_CENTRING = frozenset({"ɛ^ɹ", "ɪ^ɹ"})  # care, here: said केयर, हियर in India


def phonemes(word: str) -> list[str]:
    """The word's sounds as Indian English says them, from eSpeak NG: American
    consonants (the r of the spelling is said), British LOT vowels (online,
    problem: ɒ, where American has ɑː), r-colouring split off."""
    tokens = _tokens(word, "en-us")
    vowels = [i for i, t in enumerate(tokens) if t in _VOWEL_TOKENS]
    british = [t for t in _tokens(word, "en") if t in _VOWEL_TOKENS]
    if len(british) == len(vowels):
        for i, theirs in zip(vowels, british, strict=True):
            if theirs == "ɒ" and tokens[i] in ("ɑː", "ɑ", "ɔ"):
                tokens[i] = "ɒ"
    found: list[str] = []
    for i, token in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if token in _CENTRING and following not in _VOWEL_TOKENS:
            found += [R_COLOURED[token], "j", "ə", "ɹ"]
        elif token in R_COLOURED:
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
# -es (सर्विसेज़), -age (लगेज), -ent (पेमेंट, स्टूडेंट), -ful (ब्यूटीफ़ुल).
_ENDINGS = (
    ("ed", ("ɪ", "ᵻ"), 2, "e"),
    ("es", ("ɪ", "ᵻ"), 2, "e"),
    ("age", ("ɪ", "ᵻ"), 2, "e"),
    ("ent", ("ə",), 3, "e"),
    ("ful", ("ə",), 2, "ʊ"),
)
_VOICELESS_AFTER = frozenset({"f", "s"})  # the BATH words: after, class, staff


_GLIDES = {"a^ɪ": ["a", "j"], "e^ɪ": ["e", "j"], "a^ʊ": ["a", "w"]}
_GLIDE_AFTER_I = _VOWEL_TOKENS - _FRONT_HIGH  # vowels a y joins to an i before them


def indian_english(sounds: list[str], spelling: str) -> list[str]:
    """``sounds`` (American) as Indian English says the word spelt ``spelling``:
    spelt endings said as spelt (-ed, -es, -age, -ent, -ful; -ed and -s voiced as d
    and s after a consonant: बेस्ड, फ़्रेंड्स; a final -a as a: कैमरा, आइडिया), and
    the British vowel of after, class, staff (आफ़्टर, क्लास, स्टाफ़) where American
    has æ."""
    sounds = list(sounds)
    for ending, reduced, back, vowel in _ENDINGS:
        if spelling.endswith(ending) and len(sounds) > back and sounds[-back] in reduced:
            sounds[-back] = vowel
            break
    last = len(sounds) - 1
    if spelling.endswith("a") and last >= 1 and sounds[last] in ("ə", "ɐ"):
        sounds[last] = "a"
    if last >= 1 and sounds[last - 1] not in _VOWEL_TOKENS:
        if spelling.endswith("ed") and sounds[last] == "t":
            sounds[last] = "d"
        elif spelling.endswith("s") and not spelling.endswith("ss") and sounds[last] == "z":
            sounds[last] = "s"
    said: list[str] = []
    for i, sound in enumerate(sounds):
        after = sounds[i + 1 :]
        if not after:
            said.append(sound)
        elif after[0] in ("ə", "ɐ") and sound in _GLIDES:
            said += _GLIDES[sound]  # फ़ायर, प्लेयर, पावर
        elif sound in ("iː", "i") and after[0] in _GLIDE_AFTER_I:
            said.append("ɪ")  # short before the y of मीडिया, रियल
        elif sound == "æ" and after[0] in _VOICELESS_AFTER and _bath(after, spelling):
            said.append("ɑː")
        else:
            said.append(sound)
    return said


def _bath(after: list[str], spelling: str) -> bool:
    """Whether /æ/ before ``after`` is a BATH vowel: before f or s and then a
    consonant or the end (after, class, staff; not gas, not classic)."""
    if len(after) == 1:
        return after[0] == "f" or spelling.endswith("ss")
    return after[1] not in _VOWEL_TOKENS


def from_phonemes(sounds: list[str], spelling: str, script: Script = DEVANAGARI) -> str:
    """``sounds`` written in ``script``: vowels as letters or signs (a y between an
    i and the vowel after it: रियल, आइडिया), clusters joined with the virama, a
    nasal before a stop as the anusvara where the script writes one (m only before
    p and b: नंबर, but टाइम्स)."""
    sounds = indian_english(sounds, spelling.lower())
    out: list[str] = []
    after_consonant = False  # the last letter written is a consonant without its vowel
    for i, sound in enumerate(sounds):
        previous = sounds[i - 1] if i else None
        if sound in script.vowels:
            letter, sign = script.vowels[sound]
            if i == len(sounds) - 1:
                letter, sign = script.final_vowels.get(sound, (letter, sign))
            if previous in _FRONT_HIGH and sound not in _FRONT_HIGH:
                out.append(script.consonants["j"])
                after_consonant = True
            out.append(sign if after_consonant else letter)
            after_consonant = False
            continue
        if not script.consonants[sound]:
            continue
        following = sounds[i + 1] if i + 1 < len(sounds) else None
        before_stop = following in STOPS_AND_FRICATIVES
        if (
            sound in script.anusvara_nasals
            and before_stop
            and not after_consonant
            and (sound != "ŋ" or following in VELARS)
            and (sound != "m" or following in ("p", "b"))
        ):
            out.append(script.anusvara)  # बैंक, कैंसल; after a consonant a letter: बर्न्ड
            continue
        letter = _consonant(script, sound, following, first=i == 0)
        plain = letter == script.consonants[sound]
        final = script.finals.get(sound) if plain and following not in script.vowels else None
        if after_consonant and _joins(script, sound, previous, letter):
            out.append(script.virama)
        out.append(final or letter)
        after_consonant = final is None
    if after_consonant and script.final_virama:
        out.append(script.virama)
    word = "".join(out)
    return script.tidy(word) if script.tidy else word


def _consonant(script: Script, sound: str, following: str | None, first: bool) -> str:
    """The letter for ``sound`` where it stands."""
    if following is not None and (sound, following) in script.nasal_before:
        return script.nasal_before[sound, following]
    if sound == "ŋ" and following in VELARS and script.velar_nasal:
        return script.velar_nasal
    if first and sound in script.initials:
        return script.initials[sound]
    return script.consonants[sound]


def _joins(script: Script, sound: str, previous: str | None, letter: str) -> bool:
    """Whether ``letter`` joins the consonant before it with the virama: not where the
    script writes that cluster side by side (ऑनलाइन: n or m before a consonant that
    is not a stop; Gurmukhi but for r and h), nor before a letter that begins with a
    vowel (Bengali's ওয় for w)."""
    if script.joined is not None and sound not in script.joined:
        return False
    if (
        script.open_after_nasal
        and previous in ("n", "m")
        and sound not in STOPS_AND_FRICATIVES
        and sound != "j"  # कम्युनिटी
    ):
        return False
    return not _VOWEL_LETTER.match(letter)


_VOWEL_LETTER = re.compile(
    "[\u0904-\u0914\u0985-\u0994\u0a05-\u0a14\u0a85-\u0a94\u0b05-\u0b14"
    "\u0b85-\u0b94\u0c05-\u0c14\u0c85-\u0c94\u0d05-\u0d14]"
)


@functools.lru_cache(maxsize=8192)
def native_spelling(word: str, language: str) -> str:
    """``word`` (Latin letters) as speakers of ``language`` say it, in its script:
    from the language's lexicon, else from the word's sounds. Unchanged for a
    language with no Brahmic script (English, Urdu)."""
    script = SCRIPTS.get(language)
    if script is None:
        return word
    known = lexicon(language).get(word.lower())
    # An Indian name or a Hindi word typed in Latin letters; in the other scripts,
    # a name only (capitalised): their lower-case romanised words are not Hindi.
    # (A single letter is a letter: the P of OTP.)
    if len(word) > 1 and (script.block == DEVANAGARI.block or word.istitle()):
        english = known is not None or word.lower() in lexicon("hi")  # Hindi's is large
        hindi = romanised.hindi_spelling(word, known_english=english)
        spelt = hindi and hindi_in_script(hindi, script)
        if spelt:
            return spelt
    if known is not None:
        return known
    if 2 <= len(word) <= 6 and word.isupper():  # an initialism: O T P
        return " ".join(native_spelling(letter, language) for letter in word)
    return from_phonemes(phonemes(word), word, script) or word


def native_spellings(text: str, language: str) -> str:
    """Every Latin word of ``text`` in ``language``'s script."""
    return LATIN_WORD.sub(lambda m: native_spelling(m[0], language), text)


# An ordinal written the English way: 1st, 22nd, 3rd, 11th.
ENGLISH_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I)


def english_ordinal(n: int, language: str) -> str:
    """``n`` as an English ordinal, in ``language``'s script: Indians say 1st, 2nd
    floor in English whatever language they speak."""
    words = num2words(n, lang="en", to="ordinal").replace("-", " ").replace(",", "")
    return " ".join(native_spelling(word, language) for word in words.split() if word != "and")

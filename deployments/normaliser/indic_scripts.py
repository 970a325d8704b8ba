"""How each Indic script writes the sounds of English words.

One :class:`Script` per writing convention: which letter stands for each English
phoneme, each vowel as a letter (at the start of a syllable) and as a sign (after
a consonant), and the script's habits: whether a nasal before a stop is an
anusvara (बैंक, ব্যাংক) or a letter of the cluster (பேங்க், ബാങ്ക്), whether a
word-final consonant carries the virama (Tamil, Telugu, Kannada, Malayalam, Odia
write one; Hindi, Bengali, Gujarati, Punjabi do not), and how clusters are written.

Devanagari is written out in full. The other Brahmic scripts share Unicode's
ISCII layout, so their letters are Devanagari's moved by a fixed offset; each then
states only where its convention differs: Bengali says English /æ/ as ্যা
(ব্যাংক), Tamil has one letter for p and b, Gurmukhi joins only r under a
consonant, and so on. The spellings follow how each language's newspapers and
signboards write common English loans (order, bank, online, refund).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

NUKTA = "\u093c"


@dataclass(frozen=True)
class Script:
    """A script's letters for English phonemes and its spelling habits."""

    name: str
    block: int  # the first code point of the script's Unicode block
    consonants: Mapping[str, str]
    vowels: Mapping[str, tuple[str, str]]  # phoneme -> (letter, sign after a consonant)
    virama: str
    anusvara: str = ""
    # Nasals written as the anusvara before a stop or fricative (after a vowel);
    # others are letters of the cluster.
    anusvara_nasals: frozenset[str] = frozenset({"n", "m", "ŋ"})
    velar_nasal: str = ""  # ŋ before k/g where it is a letter (ங், ങ്)
    final_virama: bool = False  # a word-final consonant is written with the virama
    # No virama after n or m before another consonant (ऑनलाइन, অনলাইন).
    open_after_nasal: bool = True
    # Consonants joined with the virama before them; None: every one (Gurmukhi joins
    # only r, ह and व).
    joined: frozenset[str] | None = None
    # What a consonant is written as before another consonant or at the end, with
    # no virama after it (Malayalam's chillu letters ൻ ർ ൽ; Bengali's final ং), and
    # nasal letters before particular stops (ண்ட).
    finals: Mapping[str, str] = field(default_factory=dict)
    nasal_before: Mapping[tuple[str, str], str] = field(default_factory=dict)
    initials: Mapping[str, str] = field(default_factory=dict)  # at a word's start (ந)
    final_vowels: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # बाई
    tidy: Callable[[str], str] | None = None  # a last spelling rule over the word

    @functools.cached_property
    def letters(self) -> re.Pattern[str]:
        """The script's vowel and consonant letters."""
        return re.compile(f"[{chr(self.block + 0x04)}-{chr(self.block + 0x39)}]")


DEVANAGARI = Script(
    name="Devanagari",
    block=0x0900,
    consonants={
        "p": "प", "b": "ब", "t": "ट", "d": "ड", "k": "क", "ɡ": "ग", "g": "ग", "f": "फ़",
        "v": "व", "θ": "थ", "ð": "द", "s": "स", "z": "ज़", "ʃ": "श", "ʒ": "ज़", "h": "ह",
        "t^ʃ": "च", "d^ʒ": "ज", "m": "म", "n": "न", "ŋ": "ंग", "l": "ल", "ɫ": "ल", "ɹ": "र",
        "r": "र", "w": "व", "j": "य", "ɾ": "ट", "x": "ख़", "ʔ": "ट",
    },
    vowels={
        "iː": ("ई", "ी"), "i": ("ई", "ी"), "ɪ": ("इ", "ि"), "ᵻ": ("इ", "ि"), "e": ("ए", "े"),
        "ɛ": ("ए", "े"), "e^ɪ": ("ए", "े"), "æ": ("ऐ", "ै"), "a": ("आ", "ा"),
        "ɑː": ("आ", "ा"), "ɑ": ("आ", "ा"), "ɒ": ("ऑ", "ॉ"), "ɔ": ("ऑ", "ॉ"), "ɔː": ("ऑ", "ॉ"),
        "ʊ": ("उ", "ु"), "uː": ("ऊ", "ू"), "u": ("ऊ", "ू"), "ʌ": ("अ", ""), "ə": ("अ", ""),
        "ɐ": ("अ", ""), "ɜː": ("अ", ""), "ɜ": ("अ", ""), "o^ʊ": ("ओ", "ो"), "əʊ": ("ओ", "ो"),
        "o": ("ओ", "ो"), "a^ɪ": ("आइ", "ाइ"), "a^ʊ": ("आउ", "ाउ"), "ɔ^ɪ": ("ऑय", "ॉय"),
        "ɔɪ": ("ऑय", "ॉय"),
    },
    virama="\u094d",
    anusvara="\u0902",
    final_vowels={"a^ɪ": ("आई", "ाई")},  # बाय-बाई: हाई, ट्राई, but लाइन
)  # fmt: skip


def shifted(text: str, offset: int, keep_nukta: bool) -> str:
    """Devanagari ``text`` in the script ``offset`` code points away (ISCII layout), NFC."""
    moved = "".join(
        chr(ord(ch) + offset) if "\u0900" <= ch <= "\u097f" else ch
        for ch in text
        if keep_nukta or ch != NUKTA
    )
    return unicodedata.normalize("NFC", moved)


def derived(
    name: str,
    offset: int,
    *,
    keep_nukta: bool = False,
    consonants: Mapping[str, str] | None = None,
    vowels: Mapping[str, tuple[str, str]] | None = None,
    **habits: object,
) -> Script:
    """A script of the ISCII family: Devanagari's letters moved by ``offset``, then
    the script's own letters for the sounds where its convention differs."""
    base = DEVANAGARI
    return replace(
        base,
        name=name,
        block=base.block + offset,
        consonants={k: shifted(v, offset, keep_nukta) for k, v in base.consonants.items()}
        | dict(consonants or {}),
        vowels={
            k: (shifted(a, offset, keep_nukta), shifted(b, offset, keep_nukta))
            for k, (a, b) in base.vowels.items()
        }
        | dict(vowels or {}),
        virama=shifted(base.virama, offset, keep_nukta),
        anusvara=shifted(base.anusvara, offset, keep_nukta),
        final_vowels={},
        **habits,  # type: ignore[arg-type]
    )


def _each(sounds: str, value: tuple[str, str]) -> dict[str, tuple[str, str]]:
    return dict.fromkeys(sounds.split(), value)


OPEN_O = "ɒ ɔ ɔː"
SCHWAS = "ʌ ə ɐ ɜː ɜ"

# Marathi writes English /æ/ with the candra sign: बॅंक, कॅन्सल.
MARATHI = replace(DEVANAGARI, name="Devanagari (Marathi)", vowels={
    **DEVANAGARI.vowels, "æ": ("ॲ", "ॅ"),
})  # fmt: skip

# Bengali: /æ/ as ্যা (ব্যাংক, অ্যাপ), open o as the inherent vowel (অর্ডার's অ),
# stressed /ʌ/ as া (নাম্বার); y as য় (্য in a cluster), w as ওয়, v as ভ; ং only
# for ŋ.
BENGALI = derived(
    "Bengali",
    0x80,
    consonants={"j": "য়", "w": "ওয়", "v": "ভ"},
    vowels={
        "æ": ("অ্যা", "্যা"), **_each(OPEN_O, ("অ", "")), "ʌ": ("আ", "া"),
        "ɔ^ɪ": ("অয়", "য়"), "ɔɪ": ("অয়", "য়"),
    },
    anusvara_nasals=frozenset({"ŋ"}),
    finals={"ŋ": "ং"},
    tidy=lambda word: word.replace("্য়", "্য"),  # y in a cluster is the য-phala
)  # fmt: skip
# Assamese: Bengali letters, with its own ra and wa.
ASSAMESE = replace(
    BENGALI,
    name="Bengali (Assamese)",
    consonants={**BENGALI.consonants, "ɹ": "ৰ", "r": "ৰ", "w": "ৱ", "v": "ৱ"},
)


def _tippi(word: str) -> str:
    """Gurmukhi writes the nasal as tippi after a short vowel (ਅ ਇ ਉ, or a consonant's
    own a, i, u), bindi after a long one."""
    return re.sub("(?<=[\u0a05\u0a07\u0a09\u0a15-\u0a39\u0a3c\u0a3f\u0a41])\u0a02", "\u0a70", word)


# Gurmukhi: clusters are written side by side, only r, h and v joined under a
# consonant (ਪ੍ਰੋਗਰਾਮ, ਸਟੇਸ਼ਨ); open o as ਆ (ਆਰਡਰ); f, z, sh with the nukta.
GURMUKHI = derived(
    "Gurmukhi",
    0x100,
    keep_nukta=True,
    vowels={**_each(OPEN_O, ("ਆ", "ਾ")), "ɔ^ɪ": ("ਆਏ", "ਾਏ"), "ɔɪ": ("ਆਏ", "ਾਏ")},
    joined=frozenset({"ɹ", "r", "h"}),
    tidy=_tippi,
)
# Gujarati: /æ/ as એ (બેંક), z as ઝ (ઝીરો), f without the nukta (ફોન).
GUJARATI = derived(
    "Gujarati",
    0x180,
    consonants={"z": "ઝ", "ʒ": "ઝ"},
    vowels={"æ": ("એ", "ે")},
)
# Odia: open o as the inherent vowel (ଅର୍ଡର), y as ୟ, w and v as ୱ, a final virama
# on English words (ଫେସବୁକ୍).
ODIA = derived(
    "Odia",
    0x200,
    consonants={"j": "ୟ", "w": "ୱ", "v": "ୱ"},
    vowels={
        "æ": ("ଏ", "େ"), **_each(OPEN_O, ("ଅ", "")), "ɔ^ɪ": ("ଅୟ", "ୟ"), "ɔɪ": ("ଅୟ", "ୟ"),
    },
    final_virama=True,
)  # fmt: skip
# Telugu and Kannada spell English alike: /æ/ as ్యా / ್ಯಾ (బ్యాంక్, ಬ್ಯಾಂಕ್), open o
# as ఆ / ಆ (ఆర్డర్), sh as ష / ಷ (స్టేషన్), the short e of set, and a final virama.
# Written once in Devanagari letters, moved to each script.
_SOUTHERN_CONSONANTS = {"ʃ": "ष"}
_SOUTHERN_VOWELS = {
    "æ": ("या", "्या"), **_each(OPEN_O, ("आ", "ा")), **_each("e ɛ", ("ऎ", "ॆ")),
    "a^ɪ": ("ऐ", "ै"), "a^ʊ": ("औ", "ौ"), **_each("ɔ^ɪ ɔɪ", ("आय्", "ाय्")),
}  # fmt: skip


def _southern(name: str, offset: int) -> Script:
    def move(text: str) -> str:
        return shifted(text, offset, keep_nukta=False)

    return derived(
        name,
        offset,
        consonants={k: move(v) for k, v in _SOUTHERN_CONSONANTS.items()},
        vowels={k: (move(a), move(b)) for k, (a, b) in _SOUTHERN_VOWELS.items()},
        final_virama=True,
        open_after_nasal=False,
    )


TELUGU = _southern("Telugu", 0x300)
KANNADA = _southern("Kannada", 0x380)
# Malayalam: r as റ (്ര after a consonant), chillu letters for n, r, l before a
# consonant or at the end (ഓർഡർ), nasals written out in clusters (ബാങ്ക്, റീഫണ്ട്),
# a final virama elsewhere.
MALAYALAM = derived(
    "Malayalam",
    0x400,
    consonants={"z": "സ", "ʒ": "ഷ", "ʃ": "ഷ", "ɹ": "റ", "r": "റ"},
    vowels={
        "æ": ("ആ", "ാ"), **_each(OPEN_O, ("ഓ", "ോ")), **_each("e ɛ", ("എ", "െ")),
        "a^ɪ": ("ഐ", "ൈ"), "a^ʊ": ("ഔ", "ൗ"),
        "ɔ^ɪ": ("ഓയ്", "ോയ്"), "ɔɪ": ("ഓയ്", "ോയ്"),
    },
    anusvara_nasals=frozenset(),
    velar_nasal="ങ",
    final_virama=True,
    open_after_nasal=False,
    finals={"n": "ൻ", "ɹ": "ർ", "r": "ർ", "l": "ൽ", "ɫ": "ൽ"},
    nasal_before={("n", "t"): "ണ", ("n", "d"): "ണ", ("n", "ɾ"): "ണ"},
    tidy=lambda word: word.replace("്റ", "്ര"),  # r after a consonant: ട്രെയിൻ
)  # fmt: skip

# Tamil: one letter each for p/b, t/d (ட, as Indian English says them), k/g;
# grantha letters for s, sh, j, h; f as ஃப; a pulli on every vowelless consonant.
TAMIL = Script(
    name="Tamil",
    block=0x0B80,
    consonants={
        "p": "ப", "b": "ப", "t": "ட", "d": "ட", "k": "க", "ɡ": "க", "g": "க", "f": "ஃப",
        "v": "வ", "θ": "த", "ð": "த", "s": "ஸ", "z": "ஸ", "ʃ": "ஷ", "ʒ": "ஷ", "h": "ஹ",
        "t^ʃ": "ச", "d^ʒ": "ஜ", "m": "ம", "n": "ன", "ŋ": "ங்க", "l": "ல", "ɫ": "ல",
        "ɹ": "ர", "r": "ர", "w": "வ", "j": "ய", "ɾ": "ட", "x": "க", "ʔ": "ட",
    },
    vowels={
        **_each("iː i", ("ஈ", "ீ")), **_each("ɪ ᵻ", ("இ", "ி")), **_each("e ɛ", ("எ", "ெ")),
        **_each("e^ɪ æ", ("ஏ", "ே")), **_each("a ɑː ɑ", ("ஆ", "ா")),
        **_each(OPEN_O, ("ஆ", "ா")), "ʊ": ("உ", "ு"), **_each("uː u", ("ஊ", "ூ")),
        **_each(SCHWAS, ("அ", "")), **_each("o^ʊ əʊ o", ("ஓ", "ோ")), "a^ɪ": ("ஐ", "ை"),
        "a^ʊ": ("அவு", "வு"), **_each("ɔ^ɪ ɔɪ", ("ஆய்", "ாய்")),
    },
    virama="\u0bcd",
    anusvara_nasals=frozenset(),
    velar_nasal="ங",
    final_virama=True,
    open_after_nasal=False,
    finals={"ŋ": "ங்"},
    nasal_before={("n", "t"): "ண", ("n", "d"): "ண", ("n", "ɾ"): "ண"},
    initials={"n": "ந"},
)  # fmt: skip

# The script English words are written in, by language (Urdu's is not Brahmic:
# its Latin words are left as written).
SCRIPTS: dict[str, Script] = {
    "hi": DEVANAGARI,
    "ne": DEVANAGARI,
    "sa": DEVANAGARI,
    "mr": MARATHI,
    "bn": BENGALI,
    "as": ASSAMESE,
    "pa": GURMUKHI,
    "gu": GUJARATI,
    "or": ODIA,
    "ta": TAMIL,
    "te": TELUGU,
    "kn": KANNADA,
    "ml": MALAYALAM,
}

"""Hindi typed in Latin letters inside Hindi text: Indian names and Hindi words.

``Mayank और Kapil आए`` -> ``मयंक और कपिल आए``, not the English phonemes of
"Mayank" (मेऐंक). A Latin word in a Devanagari sentence is decided one word at a
time, in this order:

1. The lexicon ``data/hi_romanised.tsv`` (Indian first names and surnames, common
   Hindi words), reviewed by hand. A capitalised word looks there before the
   English lexicon (``Harsh`` is a name); a word in lower case after it (``harsh``).
2. A capitalised word in neither lexicon is Hindi if its spelling is: a character model
   (:class:`SpellingModel`, letters one to three at a time) learnt from the two
   lexicons, the Indian spellings against the English words. Then it is written
   in Devanagari by rule (:func:`romanise`), as people spell Hindi in Latin letters.
3. Anything else is English and keeps its English reading
   (:mod:`english_words`).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from indic_transliteration import sanscript

DATA = Path(__file__).with_name("data")
_FINAL_HALANT = re.compile("\u094d(?=\\s|$|[^\u0900-\u097f])")
# How much likelier, per letter, an unknown word must be Indian than English: a
# margin, so that a word the model cannot place keeps its English reading.
MARGIN = 0.15


def read_table(name: str) -> dict[str, str]:
    """``word -> Devanagari`` from a lexicon file of ``data/`` (comments skipped)."""
    words: dict[str, str] = {}
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            latin, spelling = line.split("\t")
            words[latin] = unicodedata.normalize("NFC", spelling)
    return words


@functools.cache
def lexicon() -> dict[str, str]:
    return read_table("hi_romanised.tsv")


class SpellingModel:
    """Which of two kinds of spelling a word is more like: letter trigrams (with
    the bigrams and letters under them, for what the lists do not hold) counted
    over each list, add-one smoothed, compared per letter."""

    def __init__(self, first: Iterable[str], second: Iterable[str]) -> None:
        self._counts = (self._count(first), self._count(second))

    @staticmethod
    def _grams(word: str) -> list[str]:
        padded = f"^{word.lower()}$"
        return [padded[i : i + n] for n in (1, 2, 3) for i in range(len(padded) - n + 1)]

    def _count(self, words: Iterable[str]) -> tuple[Counter[str], int]:
        counts: Counter[str] = Counter()
        for word in words:
            counts.update(self._grams(word))
        return counts, sum(counts.values())

    def _log_likelihood(self, word: str, which: int) -> float:
        counts, total = self._counts[which]
        vocabulary = len(self._counts[0][0] | self._counts[1][0])
        return sum(math.log((counts[g] + 1) / (total + vocabulary)) for g in self._grams(word))

    def score(self, word: str) -> float:
        """Log-likelihood of the first kind over the second, per letter (> 0: first)."""
        difference = self._log_likelihood(word, 0) - self._log_likelihood(word, 1)
        return difference / max(len(word), 1)


@functools.cache
def model() -> SpellingModel:
    indian = lexicon()
    english = [w for w in read_table("hi_english.tsv") if w.isalpha() and w not in indian]
    return SpellingModel(indian, english)


def is_indian(word: str) -> bool:
    """Whether a word in neither lexicon is spelt as Hindi is typed in Latin letters."""
    return model().score(word) > MARGIN


def _itrans(word: str) -> str:
    """Latin spelling as people type Hindi -> ITRANS (lower case first: capitals
    mean other letters in ITRANS)."""
    word = word.lower().replace("aa", "A").replace("ee", "I").replace("oo", "U")
    word = word.replace("w", "v").replace("ksh", "kSh")
    word = re.sub(r"n(?=[kgcjtdpb]|sh)", "M", word)  # Mayank, Sanjay: the anusvara
    word = re.sub(r"(?<=[^aeiouAIU])a$", "A", word)  # Priya, Sharma: said long
    return re.sub(r"(?<=[^aeiouAIU])i$", "I", word)  # Khushi, Lakshmi


def romanise(word: str) -> str:
    """``word`` (Hindi in Latin letters) in Devanagari, by rule."""
    spelled = sanscript.transliterate(_itrans(word), sanscript.ITRANS, sanscript.DEVANAGARI)
    return unicodedata.normalize("NFC", _FINAL_HALANT.sub("", spelled))


def hindi_spelling(word: str, known_english: bool) -> str | None:
    """``word`` in Devanagari if it is Hindi typed in Latin letters (a name, a
    Hindi word), else None: an English word, known (``known_english``) or not,
    keeps its English reading."""
    known = lexicon().get(word.lower())
    if known is not None and (word[:1].isupper() or not known_english):
        return known
    # The model only for a capitalised word (a name: Hindi has no capitals to
    # copy), so that an English word typed in lower case keeps its reading.
    if known_english or known is not None or not word.istitle():
        return None
    return romanise(word) if is_indian(word) else None

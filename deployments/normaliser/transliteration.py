"""Romanised Hindi ("aap kaise hain") to Devanagari, over indic-transliteration's ITRANS.

People type Hindi in Latin letters loosely, not in ITRANS; a few rewrites bring
common spellings close to ITRANS before converting: long vowels written doubled
("ee", "oo"), a word-final "a" that is long in speech ("mera" -> मेरा), a word-final
nasal ("hain" -> हैं), and no halant at the end of a word (Hindi does not write it).
"""

from __future__ import annotations

import re

from indic_transliteration import sanscript

import deployments.normaliser.romanised as romanised
from deployments.normaliser.english_words import lexicon

_WORD = re.compile(r"[A-Za-z]+")
_FINAL_HALANT = re.compile("\u094d(?=\\s|$|[^\u0900-\u097f])")


def _itrans_word(word: str) -> str:
    word = word.lower().replace("ee", "I").replace("oo", "U")
    word = re.sub(r"(?<=[^aeiouAIU])a$", "A", word)  # mera -> merA
    word = re.sub(r"(?<=[aeiouAIU])n$", "M", word)  # hain -> haiM
    return word


def romanised_to_devanagari(text: str) -> str:
    """Names and words of the romanised lexicon (``Mayank`` मयंक) and English loans
    typed among the Hindi words (``order``, ``refund``) as the lexicons write them;
    the rest through ITRANS."""
    loans, names = lexicon(), romanised.lexicon()
    text = _WORD.sub(lambda m: names.get(m[0].lower()) or loans.get(m[0].lower(), m[0]), text)
    itrans = _WORD.sub(lambda m: _itrans_word(m.group()), text)
    devanagari = sanscript.transliterate(itrans, sanscript.ITRANS, sanscript.DEVANAGARI)
    return _FINAL_HALANT.sub("", devanagari)


def is_romanised(text: str) -> bool:
    """Latin letters and no Devanagari: Hindi typed in Latin script."""
    has_latin = any("a" <= ch.lower() <= "z" for ch in text)
    return has_latin and not any("\u0900" <= ch <= "\u097f" for ch in text)

"""Per-language readers: how a native speaker reads numbers, money, dates and the rest.

:func:`reader_for` is the extension point: a language gets a :class:`Reader`
subclass (Hindi, English: every rule with words of their own) or a cardinal
speller and the words of :mod:`indic_words` plugged into the shared rules
(Bengali, Tamil, Telugu, Marathi, Kannada: :class:`indic.IndicReader`). Languages
without one keep their digits, converted to ASCII, for the engine to read.
"""

from __future__ import annotations

import functools

from deployments.normaliser.languages.base import DigitsOnlyReader, Reader


@functools.cache
def reader_for(language: str) -> Reader:
    from deployments.normaliser.languages import english, hindi, indic

    readers: dict[str, type[Reader] | Reader] = {
        "hi": hindi.HindiReader,
        "en": english.EnglishReader,
        **indic.NUMBER_READERS,
    }
    found = readers.get(language)
    if found is None:
        return DigitsOnlyReader()
    return found() if isinstance(found, type) else found


FULL_RULES = ("hi", "en")  # numbers, money, dates, times, units, abbreviations


def number_languages() -> list[str]:
    """Languages whose numbers are read in their own words (the rest keep digits)."""
    from deployments.normaliser.languages import indic

    return sorted({*FULL_RULES, *indic.NUMBER_READERS})


__all__ = ["FULL_RULES", "Reader", "number_languages", "reader_for"]

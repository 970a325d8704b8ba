"""Unicode hygiene applied to every input before anything else reads it."""

from __future__ import annotations

import re
import unicodedata

# Zero-width and bidirectional controls that change nothing a voice should say.
_INVISIBLE = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# C0/C1 controls except the whitespace ones, which become plain spaces.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"[\t\r\n\u00a0\u2000-\u200a\u2028\u2029\u3000]")


class InvalidText(ValueError):
    """The text cannot be read as Unicode (for example it holds a lone surrogate)."""


def clean_text(text: str) -> str:
    """NFC-normalise ``text`` and remove what no voice should see.

    ZWJ and ZWNJ (U+200C/D) are kept: they change how Indic conjuncts are written.
    Raises :class:`InvalidText` for lone surrogates.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidText("input holds a lone surrogate code point") from e
    text = unicodedata.normalize("NFC", text)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub("", text)
    return _SPACES.sub(" ", text)

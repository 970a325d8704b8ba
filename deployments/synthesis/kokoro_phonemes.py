"""Text to Kokoro's phonemes: eSpeak NG's IPA, post-processed as Kokoro's own pipeline does.

Kokoro-82M reads a string over a 114-symbol vocabulary: IPA with stress marks,
a few single letters for diphthongs and affricates (``I`` for ``aɪ``, ``ʧ`` for
``tʃ``, ...) and punctuation, which shapes its prosody. eSpeak NG gives the IPA
(its ``hi`` voice for Hindi, ``en-us``/``en-gb`` for English) but drops
punctuation, so text is cut at punctuation first, each run between marks is
phonemised, and the marks are put back. The danda becomes a full stop (eSpeak
and Kokoro know no danda).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from deployments.synthesis.espeak_binding import EspeakLibrary

TIE = "^"
# Marks Kokoro's vocabulary holds, and what other scripts' marks become.
_MARKS = ';:,.!?—…"()“”'
_MARK_MAP = str.maketrans({"।": ".", "॥": ".", "؟": "?", "،": ",", "–": "—", "‘": "'", "’": "'"})
_OPENING = "(“"
_MARK_RUN = re.compile(f"([{re.escape(_MARKS)}]+)")
# eSpeak marks words it read in another language's voice: "(en)ˈɔːdə(hi)".
_LANGUAGE_SWITCH = re.compile(r"\([a-z^-]+\)")
_SPACES = re.compile(r"\s+")

# Multi-letter phonemes (joined by the tie) that Kokoro writes as one symbol,
# as Kokoro's espeak-based pipelines map them.
_COMMON = {
    "a^ɪ": "I",
    "a^ʊ": "W",
    "d^z": "ʣ",
    "d^ʒ": "ʤ",
    "e^ɪ": "A",
    "o^ʊ": "O",
    "ə^ʊ": "Q",
    "s^s": "S",
    "t^s": "ʦ",
    "t^ʃ": "ʧ",
    "ɔ^ɪ": "Y",
}
# English also maps eSpeak symbols onto the ones Kokoro's English voices learnt.
_ENGLISH = {
    "ə^l": "ᵊl",
    "ɚ": "əɹ",
    "r": "ɹ",
    "ɐ": "ə",
    "x": "k",
    "ç": "k",
    "ɬ": "l",
    "ʔ": "t",
    "ʲ": "",
    "\u0303": "",
}
_GENERAL_BRITISH = {"e^ə": "ɛː", "iə": "ɪə"}
_AMERICAN = {"ɜː": "ɜɹ", "ɪə": "iə", "ː": ""}


def _ordered(*tables: dict[str, str]) -> tuple[tuple[str, str], ...]:
    merged: dict[str, str] = {}
    for table in tables:
        merged.update(table)
    return tuple(sorted(merged.items(), key=lambda kv: -len(kv[0])))


# Our names for the phoneme sets -> eSpeak NG's voice for each.
ESPEAK_VOICES = {"hi": "hi", "en-us": "en-us", "en-gb": "en"}
REPLACEMENTS = {
    "hi": _ordered(_COMMON),
    "en-us": _ordered(_COMMON, _ENGLISH, _AMERICAN),
    "en-gb": _ordered(_COMMON, _ENGLISH, _GENERAL_BRITISH),
}


@cache
def vocabulary() -> dict[str, int]:
    """Kokoro-82M's symbol -> token id table (the model's ``config.json`` vocab)."""
    path = Path(__file__).resolve().parent / "data" / "kokoro_vocab.json"
    table: dict[str, int] = json.loads(path.read_text(encoding="utf-8"))["vocab"]
    return table


class KokoroPhonemizer:
    """Kokoro phoneme strings for text, through eSpeak NG."""

    def __init__(self, library: EspeakLibrary) -> None:
        self._library = library
        self._vocab = vocabulary()

    def phonemes(self, text: str, phoneme_set: str) -> str:
        """``text`` as Kokoro phonemes, its punctuation kept. ``phoneme_set`` is one of
        :data:`ESPEAK_VOICES` (another eSpeak voice name is used as it is)."""
        replacements = REPLACEMENTS.get(phoneme_set, ())
        espeak_voice = ESPEAK_VOICES.get(phoneme_set, phoneme_set)
        pieces = []
        for i, run in enumerate(_MARK_RUN.split(text.translate(_MARK_MAP))):
            if i % 2:  # a run of marks: opening ones lean on the next word, others on the last
                pieces.append(f" {run}" if run[-1] in _OPENING else f"{run} ")
                continue
            if not run.strip():
                continue
            ipa = " ".join(self._library.text_to_phonemes(run, espeak_voice, TIE))
            ipa = _LANGUAGE_SWITCH.sub("", ipa)
            for old, new in replacements:
                ipa = ipa.replace(old, new)
            pieces.append(ipa.replace(TIE, "").replace("-", ""))
        return _SPACES.sub(" ", "".join(pieces)).strip()

    def tokens(self, phonemes: str) -> list[int]:
        """Token ids of ``phonemes``; symbols outside the vocabulary are dropped."""
        return [self._vocab[symbol] for symbol in phonemes if symbol in self._vocab]

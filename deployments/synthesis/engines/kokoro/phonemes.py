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

import bisect
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from deployments.espeak_binding import EspeakLibrary
from deployments.messages import PhonemeSpan

TIE = "^"
# Marks Kokoro's vocabulary holds, and what other scripts' marks become.
_MARKS = ';:,.!?—…"()“”'
_MARK_MAP = str.maketrans({"।": ".", "॥": ".", "؟": "?", "،": ",", "–": "—", "‘": "'", "’": "'"})
_OPENING = "(“"
_MARK_RUN = re.compile(f"([{re.escape(_MARKS)}]+)")
# eSpeak marks words it read in another language's voice: "(en)ˈɔːdə(hi)".
_LANGUAGE_SWITCH = re.compile(r"\([a-z^-]+\)")
_WORD = re.compile(r"\S+")

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
# Kokoro's one-letter symbols back to the IPA they stand for (phoneme timings speak IPA).
KOKORO_IPA = {new: old.replace(TIE, "") for old, new in _COMMON.items()} | {
    "ʨ": "tɕ",
    "ʥ": "dʑ",
    "ᵊ": "ə",
    "ᵻ": "ɨ",
    "S": "s",
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


@dataclass(frozen=True)
class Phonemes:
    """A text as Kokoro phonemes, and which word of the text each symbol says:
    ``owners[i]`` indexes ``words`` (each word's span in the text) for ``text[i]``,
    -1 for spaces and marks."""

    text: str
    owners: tuple[int, ...]
    words: tuple[tuple[int, int], ...]

    def token_owners(self, start: int, end: int) -> list[int]:
        """The word of each token of ``text[start:end]`` (symbols outside the
        vocabulary are no tokens, as in :meth:`KokoroPhonemizer.tokens`)."""
        return [owner for _, owner in self.token_symbols(start, end)]

    def token_symbols(self, start: int, end: int) -> list[tuple[str, int]]:
        """Each token of ``text[start:end]``: its symbol and the word it says."""
        vocab = vocabulary()
        return [(self.text[i], self.owners[i]) for i in range(start, end) if self.text[i] in vocab]


class KokoroPhonemizer:
    """Kokoro phoneme strings for text, through eSpeak NG."""

    def __init__(self, library: EspeakLibrary) -> None:
        self._library = library
        self._vocab = vocabulary()

    def phonemes(self, text: str, phoneme_set: str) -> str:
        """``text`` as Kokoro phonemes, its punctuation kept. ``phoneme_set`` is one of
        :data:`ESPEAK_VOICES` (another eSpeak voice name is used as it is)."""
        return self.phonemize(text, phoneme_set).text

    def phonemize(self, text: str, phoneme_set: str, given: Sequence[PhonemeSpan] = ()) -> Phonemes:
        """``text`` as Kokoro phonemes with the word of the text each symbol says. The
        parts of ``text`` that ``given`` gives IPA for are said with it (one word each);
        eSpeak's own notation cannot reach this model, so those parts are read."""
        symbols: list[tuple[str, int]] = []
        words: list[tuple[int, int]] = []
        cursor = 0
        for span in sorted(given, key=lambda s: s.start):
            if span.alphabet != "ipa" or span.start < cursor:
                continue
            self._read(text, cursor, span.start, phoneme_set, symbols, words)
            owner = len(words)
            said = f" {self.given(span.phonemes, phoneme_set)} "
            symbols.extend((symbol, -1 if symbol.isspace() else owner) for symbol in said)
            words.append((span.start, span.end))
            cursor = span.end
        self._read(text, cursor, len(text), phoneme_set, symbols, words)
        kept: list[tuple[str, int]] = []
        for symbol, owner in symbols:  # spaces collapsed, none at either end
            if symbol.isspace():
                if kept and kept[-1][0] != " ":
                    kept.append((" ", -1))
            else:
                kept.append((symbol, owner))
        if kept and kept[-1][0] == " ":
            kept.pop()
        return Phonemes("".join(s for s, _ in kept), tuple(o for _, o in kept), tuple(words))

    def _read(
        self,
        text: str,
        begin: int,
        end: int,
        phoneme_set: str,
        symbols: list[tuple[str, int]],
        words: list[tuple[int, int]],
    ) -> None:
        """``text[begin:end]`` through eSpeak: its symbols and words appended."""
        offset = begin
        for i, run in enumerate(_MARK_RUN.split(text[begin:end].translate(_MARK_MAP))):
            start, offset = offset, offset + len(run)
            if i % 2:  # a run of marks: opening ones lean on the next word, others on the last
                glued = f" {run}" if run[-1] in _OPENING else f"{run} "
                symbols.extend((symbol, -1) for symbol in glued)
                continue
            spans = [(start + m.start(), start + m.end()) for m in _WORD.finditer(run)]
            if not spans:
                continue
            spoken = self._ipa(run, phoneme_set)
            owners = self._owners(spoken, [text[a:b] for a, b in spans], phoneme_set)
            symbols.extend((symbol, len(words) + o if o >= 0 else -1) for symbol, o in owners)
            words.extend(spans)

    def given(self, ipa: str, phoneme_set: str) -> str:
        """A rule's IPA in Kokoro's symbols: ties dropped, the phoneme set's joined
        symbols (``aɪ`` -> ``I``, ``tʃ`` -> ``ʧ``, ...), nothing outside the vocabulary."""
        ipa = ipa.replace("\u0361", "").replace("\u035c", "").replace(TIE, "")
        for old, new in REPLACEMENTS.get(phoneme_set, ()):
            ipa = ipa.replace(old.replace(TIE, ""), new)
        return "".join(s for s in ipa if s in self._vocab or s.isspace()).strip()

    def _ipa(self, run: str, phoneme_set: str) -> str:
        replacements = REPLACEMENTS.get(phoneme_set, ())
        espeak_voice = ESPEAK_VOICES.get(phoneme_set, phoneme_set)
        ipa = " ".join(self._library.text_to_phonemes(run, espeak_voice, TIE))
        ipa = _LANGUAGE_SWITCH.sub("", ipa)
        for old, new in replacements:
            ipa = ipa.replace(old, new)
        return ipa.replace(TIE, "").replace("-", "")

    def _owners(self, spoken: str, words: list[str], phoneme_set: str) -> list[tuple[str, int]]:
        """Each symbol of ``spoken`` (the phonemes of ``words``) with the index of the word
        it says. eSpeak mostly gives a phoneme word per word; where it joins or splits
        words ("in the" -> ``ɪnðə``), see :func:`_groups`."""
        spans = [(m.start(), m.end()) for m in _WORD.finditer(spoken)]
        owners = [-1] * len(spoken)
        groups: list[tuple[tuple[int, ...], tuple[int, ...]]]
        if len(spans) == len(words):
            groups = [((k,), (k,)) for k in range(len(words))]
            alone = [1] * len(words)
        else:
            alone = [_size(self._ipa(word, phoneme_set)) for word in words]
            groups = _groups(alone, [_size(spoken[a:b]) for a, b in spans])
        for said, heard in groups:
            symbols = [i for k in heard for i in range(*spans[k])]
            ends = list(itertools.accumulate(alone[k] for k in said))
            for n, i in enumerate(symbols):  # shared out in proportion to each alone
                at = (n + 0.5) / len(symbols) * ends[-1]
                owners[i] = said[min(bisect.bisect_right(ends, at), len(said) - 1)]
        return list(zip(spoken, owners, strict=True))

    def tokens(self, phonemes: str) -> list[int]:
        """Token ids of ``phonemes``; symbols outside the vocabulary are dropped."""
        return [self._vocab[symbol] for symbol in phonemes if symbol in self._vocab]


def _size(phonemes: str) -> int:
    """Symbols of ``phonemes`` that take time (no spaces, no stress marks)."""
    return max(1, sum(1 for s in phonemes if not s.isspace() and s not in "ˈˌ"))


# How words may meet phoneme words: (words, phoneme words) per step.
_STEPS = ((1, 1), (2, 1), (3, 1), (1, 2), (1, 3))


def _groups(alone: list[int], spoken: list[int]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Words (the size of each one's phonemes alone) matched in order to the phoneme
    words eSpeak gave for all of them together, a few to one or one to a few, at the
    least total difference in size: ``[(word indices, phoneme word indices)]``."""
    inf = float("inf")
    cost = [[inf] * (len(spoken) + 1) for _ in range(len(alone) + 1)]
    step: dict[tuple[int, int], tuple[int, int]] = {}
    cost[0][0] = 0.0
    for i in range(len(alone) + 1):
        for j in range(len(spoken) + 1):
            if cost[i][j] == inf:
                continue
            for a, b in _STEPS:
                if i + a > len(alone) or j + b > len(spoken):
                    continue
                joined = 0.0 if a == b == 1 else 1.0
                c = cost[i][j] + joined + abs(sum(alone[i : i + a]) - sum(spoken[j : j + b]))
                if c < cost[i + a][j + b]:
                    cost[i + a][j + b] = c
                    step[(i + a, j + b)] = (a, b)
    i, j = len(alone), len(spoken)
    if cost[i][j] == inf:  # no way through the steps: all words share all phonemes
        return [(tuple(range(i)), tuple(range(j)))]
    groups = []
    while i or j:
        a, b = step[(i, j)]
        groups.append((tuple(range(i - a, i)), tuple(range(j - b, j))))
        i, j = i - a, j - b
    return groups[::-1]

"""Phonemes as IPA and as visemes: the mouth shapes an avatar shows while they sound.

The viseme set is the 15 of Meta's Oculus LipSync (``sil PP FF TH DD kk CH SS nn RR
aa E ih oh ou``): the set avatar toolkits ship blend shapes for (Ready Player Me's
``viseme_*`` morph targets, Unity's and three.js's lip-sync kits), so a track of them
drives a face without a table of the client's own. Each IPA phoneme maps to one
shape by its base letter; a diphthong (``aɪ``) is two shapes, each half its time.
Silence, pauses and breath are ``sil``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from deployments.timings import PhonemeTiming, VisemeTiming

VISEMES = ("sil", "PP", "FF", "TH", "DD", "kk", "CH", "SS", "nn", "RR", "aa", "E", "ih", "oh", "ou")

# Multi-letter phonemes first (an affricate is its fricative's shape), then letters.
_CLUSTERS = {"tʃ": "CH", "dʒ": "CH", "tɕ": "CH", "dʑ": "CH", "ts": "SS", "dz": "SS"}
_LETTERS = {
    "PP": "pbmɸβʙ",
    "FF": "fvʋɱ",
    "TH": "θð",
    "DD": "tdʈɖɾɗT",
    "kk": "kgɡŋqɢxɣχʁhɦʔɴɰç",
    "CH": "ʃʒɕʑʂʐʝcɟ",  # palatal stops: Hindi's च and ज, said as affricates
    "SS": "sz",
    "nn": "nɲɳlɭʎɫɬɮ",
    "RR": "rɹɻɽʀɚɝꭧ",
    "aa": "aɑɐæʌ",
    "E": "eɛəɜɘœᵊ",
    "ih": "iɪyʏɨjᵻ",
    "oh": "oɔɒɤø",
    "ou": "uʊɯwʉɥ",
}
_SHAPE = {letter: viseme for viseme, letters in _LETTERS.items() for letter in letters}
_VOWELS = frozenset("aɑɐæʌeɛəɜɘœᵊiɪyʏɨᵻoɔɒɤøuʊɯʉ")


def _letters(phoneme: str) -> str:
    """``phoneme``'s base letters: without length, stress, aspiration or nasal marks
    (``ᵊ``, a schwa written small, is a letter)."""
    kept = []
    for ch in unicodedata.normalize("NFD", phoneme):
        category = unicodedata.category(ch)
        if (category[0] == "L" and category != "Lm") or ch == "ᵊ":
            kept.append(ch)
    return "".join(kept)


def shapes(phoneme: str) -> tuple[str, ...]:
    """The visemes of one IPA phoneme: one, or two for a diphthong (its first and
    last vowel's). Unknown letters take the neutral ``E``; no letter at all, ``sil``."""
    letters = _letters(phoneme)
    if not letters:
        return ("sil",)
    for cluster, viseme in _CLUSTERS.items():
        if letters.startswith(cluster):
            return (viseme,)
    first = _SHAPE.get(letters[0], "E")
    vowels = [ch for ch in letters if ch in _VOWELS]
    if len(vowels) >= 2:
        last = _SHAPE.get(vowels[-1], "E")
        if last != first:
            return (first, last)
    return (first,)


def viseme_track(phonemes: Iterable[PhonemeTiming], duration_ms: int) -> tuple[VisemeTiming, ...]:
    """The visemes of ``phonemes`` over ``duration_ms`` of audio: at every moment one
    shape, ``sil`` where no phoneme sounds, a shape that repeats merged into one."""
    spans: list[tuple[str, int, int]] = []
    clock = 0
    for phoneme in sorted(phonemes, key=lambda p: p.start_ms):
        start = max(phoneme.start_ms, clock)
        end = max(start, phoneme.start_ms + phoneme.duration_ms)
        if start > clock:
            spans.append(("sil", clock, start))
        parts = shapes(phoneme.phoneme)
        edges = [start + (end - start) * k // len(parts) for k in range(len(parts) + 1)]
        spans += [(viseme, edges[k], edges[k + 1]) for k, viseme in enumerate(parts)]
        clock = end
    if clock < duration_ms:
        spans.append(("sil", clock, duration_ms))
    merged: list[tuple[str, int, int]] = []
    for viseme, start, end in spans:
        if end <= start:
            continue
        if merged and merged[-1][0] == viseme:
            merged[-1] = (viseme, merged[-1][1], end)
        else:
            merged.append((viseme, start, end))
    return tuple(VisemeTiming(viseme, start, end - start) for viseme, start, end in merged)

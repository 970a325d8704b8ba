"""A Hindi word in the other Indian scripts: an Indian name typed in Latin letters
inside Tamil or Bengali is read as the name it is (:mod:`romanised` writes it in
Devanagari first), not from its English sounds.

The Brahmic scripts share Unicode's ISCII layout, so a Devanagari letter moves to
the same place in the other block; what each script does differently is stated
here: Tamil has one letter per place of articulation (க for क ख ग घ) and its two
n's, Gurmukhi writes ष as ਸ਼, Bengali and Odia their own y, the nasal before a stop
is a letter of the cluster where the script does not write an anusvara for it
(அஞ்சலி, অঞ্জলি; Telugu and Kannada keep ం), and the southern scripts and Odia
end a consonant-final name with the virama (కపిల్), Malayalam with a chillu (കപിൽ).
"""

from __future__ import annotations

import unicodedata

from deployments.normaliser.indic_scripts import (
    ASSAMESE,
    BENGALI,
    DEVANAGARI,
    GURMUKHI,
    MALAYALAM,
    NUKTA,
    ODIA,
    TAMIL,
    Script,
    shifted,
)

ANUSVARA = "\u0902"
CANDRABINDU = "\u0901"
VIRAMA = "\u094d"
YA = "य"
# The nasal of each class of stops, by the first and last code point of the class.
CLASS_NASALS = (("क", "ङ", "ङ"), ("च", "ञ", "ञ"), ("ट", "ण", "ण"), ("त", "न", "न"), ("प", "म", "म"))
# Hindi letters as Tamil writes them (the rest move as in every script).
TAMIL_LETTERS = {
    **dict.fromkeys("खगघ", "க"), **dict.fromkeys("छ", "ச"), **dict.fromkeys("झ", "ஜ"),
    **dict.fromkeys("ठडढ", "ட"), **dict.fromkeys("थदध", "த"), **dict.fromkeys("फबभ", "ப"),
    **dict.fromkeys("शष", "ஷ"), "ऋ": "ரு", "ृ": "ிரு", "ॉ": "ா", "ऑ": "ஆ",
}  # fmt: skip
OWN_LETTERS: dict[str, dict[str, str]] = {
    TAMIL.name: TAMIL_LETTERS,
    GURMUKHI.name: {"ष": "ਸ਼", "ऋ": "ਰਿ", "ृ": "੍ਰਿ", "ॉ": "ਾ", "ऑ": "ਆ"},
    BENGALI.name: {"व": "ব", "ॉ": "া", "ऑ": "আ"},
    ASSAMESE.name: {"व": "ব", "र": "ৰ", "ॉ": "া", "ऑ": "আ"},
    ODIA.name: {"व": "ବ", "ॉ": "ା", "ऑ": "ଆ"},
}
# Gurmukhi joins only r and h under a consonant; its other clusters sit side by side.
GURMUKHI_JOINED = "रह"
# A name's last consonant where Malayalam writes it as a chillu letter.
CHILLU = {"न": "ൻ", "र": "ർ", "ल": "ൽ", "ण": "ൺ"}


def _is_consonant(ch: str) -> bool:
    return "\u0915" <= ch <= "\u0939"


def _nasal_before(consonant: str) -> str | None:
    """The nasal of ``consonant``'s class of stops (ञ before ज), None for others."""
    return next((n for first, last, n in CLASS_NASALS if first <= consonant <= last), None)


def _spell_nasals(word: str, script: Script) -> str:
    """Where ``script`` writes no anusvara for n and m, the nasal before a stop as a
    letter of the cluster (अंजलि -> अञ्जलि); elsewhere its anusvara (Bengali ং) or m."""
    if "n" in script.anusvara_nasals:
        return word.replace(CANDRABINDU, ANUSVARA)
    out = []
    for i, ch in enumerate(word):
        if ch not in (ANUSVARA, CANDRABINDU):
            out.append(ch)
            continue
        following = word[i + 1] if i + 1 < len(word) else ""
        nasal = _nasal_before(following)
        if nasal:
            out.append(nasal + VIRAMA)
        else:
            out.append(ANUSVARA if script.anusvara_nasals else "म" + VIRAMA)
    return "".join(out)


def _tamil_n(word: str) -> str:
    """Tamil's two n's: ந at a word's start and before த, ன elsewhere."""
    out = []
    for i, ch in enumerate(word):
        after = word[i + 1 : i + 3]
        if ch == "ந" and i > 0 and after not in ("்த", "்ந"):
            ch = "ன"
        out.append(ch)
    return "".join(out)


def hindi_in_script(hindi: str, script: Script) -> str | None:
    """``hindi`` (Devanagari) as ``script`` writes it, None if a letter has no place
    there."""
    if script.block == DEVANAGARI.block:
        return hindi
    offset = script.block - DEVANAGARI.block
    word = _spell_nasals(unicodedata.normalize("NFD", hindi).replace(NUKTA, ""), script)
    if script is GURMUKHI:  # ਐਸ਼ਵਰਿਆ's clusters, but ਪ੍ਰਿਯੰਕਾ's r
        word = "".join(
            ch
            for i, ch in enumerate(word)
            if ch != VIRAMA or word[i + 1 : i + 2] in tuple(GURMUKHI_JOINED)
        )
    own = OWN_LETTERS.get(script.name, {})
    y = script.consonants["j"]  # Bengali য়, Odia ୟ (after the word's first letter)
    letters = []
    for i, ch in enumerate(word):
        if ch in own:
            letters.append(own[ch])
        elif ch == YA and i > 0 and word[i - 1] != VIRAMA:
            letters.append(y)
        else:
            letters.append(shifted(ch, offset, keep_nukta=False))
    spelt = "".join(letters)
    if script is TAMIL:
        spelt = _tamil_n(spelt)
    last = word[-1]
    if _is_consonant(last) and script is MALAYALAM and last in CHILLU:
        spelt = spelt[:-1] + CHILLU[last]
    elif _is_consonant(last) and script.final_virama:
        spelt += script.virama
    if script.tidy:
        spelt = script.tidy(spelt)
    spelt = unicodedata.normalize("NFC", spelt)
    if not all(unicodedata.name(ch, "") for ch in spelt):
        return None  # a letter the script does not have
    return spelt

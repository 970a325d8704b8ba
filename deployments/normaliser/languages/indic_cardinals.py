"""Cardinal numbers in the other Indian languages, as words: each language's speller
for :class:`indic.IndicReader`.

Marathi, Tamil, Telugu and Kannada are our own tables (checked by hand; 0-99 in
Marathi are irregular like Hindi's, Tamil and Telugu compose tens and units with
oblique forms, Kannada joins them by sandhi). Bengali uses num2words, which spells
it correctly (its Kannada does not: ಮೂವತ್ಏಳು for 37). Gujarati, Malayalam, Punjabi
and Odia use AI4Bharat's indic-numtowords (num2words has none of them).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from indic_numtowords import num2words as indic_num2words
from num2words import num2words

MARATHI_ONES = (
    "शून्य एक दोन तीन चार पाच सहा सात आठ नऊ "
    "दहा अकरा बारा तेरा चौदा पंधरा सोळा सतरा अठरा एकोणीस "
    "वीस एकवीस बावीस तेवीस चोवीस पंचवीस सव्वीस सत्तावीस अठ्ठावीस एकोणतीस "
    "तीस एकतीस बत्तीस तेहतीस चौतीस पस्तीस छत्तीस सदतीस अडतीस एकोणचाळीस "
    "चाळीस एक्केचाळीस बेचाळीस त्रेचाळीस चव्वेचाळीस पंचेचाळीस सेहेचाळीस सत्तेचाळीस अठ्ठेचाळीस एकोणपन्नास "
    "पन्नास एक्कावन्न बावन्न त्रेपन्न चोपन्न पंचावन्न छप्पन्न सत्तावन्न अठ्ठावन्न एकोणसाठ "
    "साठ एकसष्ट बासष्ट त्रेसष्ट चौसष्ट पासष्ट सहासष्ट सदुसष्ट अडुसष्ट एकोणसत्तर "
    "सत्तर एक्काहत्तर बाहत्तर त्र्याहत्तर चौऱ्याहत्तर पंच्याहत्तर शहात्तर सत्याहत्तर अठ्ठ्याहत्तर एकोणऐंशी "
    "ऐंशी एक्क्याऐंशी ब्याऐंशी त्र्याऐंशी चौऱ्याऐंशी पंच्याऐंशी शहाऐंशी सत्त्याऐंशी अठ्ठ्याऐंशी एकोणनव्वद "
    "नव्वद एक्क्याण्णव ब्याण्णव त्र्याण्णव चौऱ्याण्णव पंच्याण्णव शहाण्णव सत्त्याण्णव अठ्ठ्याण्णव नव्व्याण्णव"
).split()
assert len(MARATHI_ONES) == 100


def marathi(n: int) -> str:
    if n < 100:
        return MARATHI_ONES[n]
    parts = []
    for value, name in ((10**7, "कोटी"), (10**5, "लाख"), (1000, "हजार")):
        if n >= value:
            count, n = divmod(n, value)
            parts.append(f"{marathi(count)} {name}")
    if n >= 100:
        count, n = divmod(n, 100)
        if count == 1:
            parts.append("एकशे" if n else "शंभर")
        else:
            parts.append(f"{MARATHI_ONES[count]}शे")
    if n:
        parts.append(MARATHI_ONES[n])
    return " ".join(parts)


TAMIL_UNITS = ("பூஜ்ஜியம் ஒன்று இரண்டு மூன்று நான்கு ஐந்து ஆறு ஏழு எட்டு ஒன்பது").split()
TAMIL_TEENS = (
    "பத்து பதினொன்று பன்னிரண்டு பதின்மூன்று பதினான்கு பதினைந்து பதினாறு பதினேழு பதினெட்டு பத்தொன்பது"
).split()
# (alone, before more): இருபது / இருபத்து ...
TAMIL_TENS = {
    2: ("இருபது", "இருபத்து"),
    3: ("முப்பது", "முப்பத்து"),
    4: ("நாற்பது", "நாற்பத்து"),
    5: ("ஐம்பது", "ஐம்பத்து"),
    6: ("அறுபது", "அறுபத்து"),
    7: ("எழுபது", "எழுபத்து"),
    8: ("எண்பது", "எண்பத்து"),
    9: ("தொண்ணூறு", "தொண்ணூற்று"),
}
TAMIL_HUNDREDS = {
    1: ("நூறு", "நூற்று"),
    2: ("இருநூறு", "இருநூற்று"),
    3: ("முந்நூறு", "முந்நூற்று"),
    4: ("நானூறு", "நானூற்று"),
    5: ("ஐந்நூறு", "ஐந்நூற்று"),
    6: ("அறுநூறு", "அறுநூற்று"),
    7: ("எழுநூறு", "எழுநூற்று"),
    8: ("எண்ணூறு", "எண்ணூற்று"),
    9: ("தொள்ளாயிரம்", "தொள்ளாயிரத்து"),
}
TAMIL_SCALES = ((10**7, "கோடி", "கோடியே"), (10**5, "லட்சம்", "லட்சத்து"))
# Thousands join their count: இரண்டாயிரம், மூவாயிரம், ஐயாயிரத்து ...
TAMIL_THOUSANDS = {1: "ஆயிரம்", 3: "மூவாயிரம்", 5: "ஐயாயிரம்"}


def _tamil_thousands(count: int, joined: bool) -> str:
    """``count`` thousand, the count's last vowel merged into ஆயிரம் (இரண்டு ->
    இரண்டாயிரம்); ஆயிரத்து before more."""
    spoken = TAMIL_THOUSANDS.get(count)
    if spoken is None:
        words = tamil(count)  # else it ends in -ம் (நூறாயிரம் is said as லட்சம் anyway)
        spoken = words[:-1] + "ாயிரம்" if words.endswith("ு") else f"{words} ஆயிரம்"
    return spoken[: -len("ம்")] + "த்து" if joined else spoken


def tamil(n: int) -> str:
    if n < 10:
        return TAMIL_UNITS[n]
    if n < 20:
        return TAMIL_TEENS[n - 10]
    parts = []
    for value, alone, joined in TAMIL_SCALES:
        if n >= value:
            count, n = divmod(n, value)
            scale = joined if n else alone
            parts.append(f"{'ஒரு' if count == 1 else tamil(count)} {scale}")
    if n >= 1000:
        count, n = divmod(n, 1000)
        parts.append(_tamil_thousands(count, joined=bool(n)))
    if n >= 100:
        count, n = divmod(n, 100)
        parts.append(TAMIL_HUNDREDS[count][1 if n else 0])
    if n >= 20:
        tens, n = divmod(n, 10)
        parts.append(TAMIL_TENS[tens][1 if n else 0])
    if n:
        parts.append(TAMIL_UNITS[n] if n < 10 else TAMIL_TEENS[n - 10])
    return " ".join(parts)


TELUGU_UNITS = ("సున్నా ఒకటి రెండు మూడు నాలుగు ఐదు ఆరు ఏడు ఎనిమిది తొమ్మిది").split()
TELUGU_TEENS = ("పది పదకొండు పన్నెండు పదమూడు పద్నాలుగు పదిహేను పదహారు పదిహేడు పద్దెనిమిది పందొమ్మిది").split()
TELUGU_TENS = ("_ _ ఇరవై ముప్పై నలభై యాభై అరవై డెబ్బై ఎనభై తొంభై").split()
# Counts before a scale word take their adjective form: ఒక లక్ష, రెండు లక్షలు.
TELUGU_SCALES = (
    (10**7, "కోటి", "కోట్లు", "కోట్ల"),
    (10**5, "లక్ష", "లక్షలు", "లక్షల"),
    (1000, "వెయ్యి", "వేలు", "వేల"),
)


def _telugu_below_100(n: int) -> str:
    if n < 10:
        return TELUGU_UNITS[n]
    if n < 20:
        return TELUGU_TEENS[n - 10]
    tens, units = divmod(n, 10)
    return TELUGU_TENS[tens] + (f" {TELUGU_UNITS[units]}" if units else "")


def telugu(n: int) -> str:
    if n < 100:
        return _telugu_below_100(n)
    parts = []
    for value, one, many, joined in TELUGU_SCALES:
        if n >= value:
            count, n = divmod(n, value)
            if count == 1:
                parts.append(one)
            else:
                parts.append(f"{telugu(count)} {joined if n else many}")
    if n >= 100:
        count, n = divmod(n, 100)
        if count == 1:
            parts.append("నూట" if n else "వంద")
        else:
            parts.append(f"{TELUGU_UNITS[count]} {'వందల' if n else 'వందలు'}")
    if n:
        parts.append(_telugu_below_100(n))
    return " ".join(parts)


KANNADA_UNITS = "ಸೊನ್ನೆ ಒಂದು ಎರಡು ಮೂರು ನಾಲ್ಕು ಐದು ಆರು ಏಳು ಎಂಟು ಒಂಬತ್ತು".split()
KANNADA_TEENS = "ಹತ್ತು ಹನ್ನೊಂದು ಹನ್ನೆರಡು ಹದಿಮೂರು ಹದಿನಾಲ್ಕು ಹದಿನೈದು ಹದಿನಾರು ಹದಿನೇಳು ಹದಿನೆಂಟು ಹತ್ತೊಂಬತ್ತು".split()
KANNADA_TENS = "_ _ ಇಪ್ಪತ್ತು ಮೂವತ್ತು ನಲವತ್ತು ಐವತ್ತು ಅರವತ್ತು ಎಪ್ಪತ್ತು ಎಂಬತ್ತು ತೊಂಬತ್ತು".split()
KANNADA_HUNDREDS = "_ ನೂರು ಇನ್ನೂರು ಮುನ್ನೂರು ನಾನೂರು ಐನೂರು ಆರುನೂರು ಏಳುನೂರು ಎಂಟುನೂರು ಒಂಬೈನೂರು".split()
# A unit's first vowel as the sign it becomes after the tens: ಇಪ್ಪತ್ತು + ಏಳು -> ಇಪ್ಪತ್ತೇಳು.
KANNADA_VOWEL_SIGNS = {"ಒ": "ೊ", "ಎ": "ೆ", "ಐ": "ೈ", "ಆ": "ಾ", "ಏ": "ೇ"}
# (alone, before more): ಎರಡು ಸಾವಿರ, ಎರಡು ಸಾವಿರದ ಐನೂರು.
KANNADA_SCALES = ((10**7, "ಕೋಟಿ", "ಕೋಟಿಯ"), (10**5, "ಲಕ್ಷ", "ಲಕ್ಷದ"), (1000, "ಸಾವಿರ", "ಸಾವಿರದ"))


def _kannada_below_100(n: int) -> str:
    if n < 10:
        return KANNADA_UNITS[n]
    if n < 20:
        return KANNADA_TEENS[n - 10]
    tens, units = divmod(n, 10)
    if not units:
        return KANNADA_TENS[tens]
    unit = KANNADA_UNITS[units]
    if unit[0] in KANNADA_VOWEL_SIGNS:  # ಇಪ್ಪತ್ತೊಂದು, ಮೂವತ್ತೇಳು
        return KANNADA_TENS[tens][:-1] + KANNADA_VOWEL_SIGNS[unit[0]] + unit[1:]
    return KANNADA_TENS[tens][:-2] + unit  # ಇಪ್ಪತ್ಮೂರು, ನಲವತ್ನಾಲ್ಕು


def kannada(n: int) -> str:
    if n < 100:
        return _kannada_below_100(n)
    parts = []
    for value, alone, joined in KANNADA_SCALES:
        if n >= value:
            count, n = divmod(n, value)
            parts.append(f"{kannada(count)} {joined if n else alone}")
    if n >= 100:
        count, n = divmod(n, 100)
        hundreds = KANNADA_HUNDREDS[count]
        parts.append(hundreds[:-1] if n else hundreds)  # ಐನೂರ ಐವತ್ತು
    if n:
        parts.append(_kannada_below_100(n))
    return " ".join(parts)


def bengali(n: int) -> str:
    return str(num2words(n, lang="bn")).replace(",", "").strip()


# AI4Bharat's indic-numtowords spells numbers below a hundred crore
AI4BHARAT_BELOW = 10**9

# Malayalam's numbers before a unit end in a joining form (ഇരുപത്തി, നൂറ്റി,
# ആയിരത്തി: -ത്തി, -റ്റി), which the unit joins as one word. indic-numtowords joins
# some (ഇരുപത്തിയഞ്ച്) and leaves a space in others (ഇരുപത്തി ആറ്, നൂറ്റി ഒന്ന്), with
# three spellings of nine; written Malayalam joins them all, a vowel through the
# glide യ (ഇരുപത്തിയാറ്, നൂറ്റിയൊന്ന്), a consonant directly (ഇരുപത്തിമൂന്ന്).
MALAYALAM_JOINING = ("ത്തി", "റ്റി")
MALAYALAM_UNITS = {
    "ഒന്ന്": "ഒന്ന്", "രണ്ട്": "രണ്ട്", "രണ്ടു": "രണ്ട്", "മൂന്ന്": "മൂന്ന്",
    "നാല്": "നാല്", "അഞ്ച്": "അഞ്ച്", "അഞ്ചു": "അഞ്ച്", "ആറ്": "ആറ്", "ഏഴ്": "ഏഴ്",
    "എട്ട്": "എട്ട്", "ഒമ്പത്": "ഒമ്പത്", "ഒന്പത്": "ഒമ്പത്", "ഒൻപതു": "ഒമ്പത്",
}  # fmt: skip
# a vowel letter after the joining ി becomes യ with the vowel's sign
MALAYALAM_GLIDE = {"അ": "യ", "ആ": "യാ", "എ": "യെ", "ഏ": "യേ", "ഒ": "യൊ", "ഓ": "യോ"}


def malayalam_joined(spoken: str) -> str:
    """``spoken`` (in NFC: the package writes some vowel signs in two parts) with each
    unit joined to the number before it."""
    words: list[str] = []
    for word in unicodedata.normalize("NFC", spoken).split():
        unit = MALAYALAM_UNITS.get(word)
        if unit and words and words[-1].endswith(MALAYALAM_JOINING):
            glide = MALAYALAM_GLIDE.get(unit[0])
            words[-1] += glide + unit[1:] if glide else unit
        else:
            words.append(word)
    return " ".join(words)


def ai4bharat(language: str) -> Callable[[int], str]:
    """Gujarati, Malayalam, Punjabi and Odia as AI4Bharat's ``indic-numtowords`` spells
    them (Malayalam's units joined to the number before them: ആയിരത്തി തൊള്ളായിരത്തി
    നാല്പത്തിയേഴ്, ഇരുപത്തിയാറ്, നൂറ്റിയൊന്ന്); from a hundred crore up, the crores counted as a
    number of their own."""

    def cardinal(n: int) -> str:
        if n < AI4BHARAT_BELOW:
            spoken = str(indic_num2words(n, lang=language)).strip()
            return malayalam_joined(spoken) if language == "ml" else spoken
        crores, rest = divmod(n, 10**7)
        crore = str(indic_num2words(10**7, lang=language)).split()[-1]
        spoken = f"{cardinal(crores)} {crore}"
        return f"{spoken} {cardinal(rest)}" if rest else spoken

    return cardinal

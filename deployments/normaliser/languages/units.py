"""Units written after a number, and what each is called in Hindi and in English.

One table for both languages: a unit's written forms (matched without regard to
case unless ``exact_case``), its Hindi name (the same after any number, पाँच
किलोमीटर, but for the Hindi nouns among them: एक घंटा, दो घंटे) and its English
name for one and for more (one kilometre, five kilometres). A unit whose written
form is also a common word (``in``, ``mi``) is a unit only where no Latin word
follows it: ``34 in`` is inches, ``5 in the morning`` is not; one that is also an
ordinal's ending or a letter (``st``, ``t``, ``pt``) only after a space: ``88 st`` is
stone, ``1st`` is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    written: tuple[str, ...]
    hindi: str
    english: str
    english_plural: str
    exact_case: bool = False  # AC is air conditioning, ac an acre
    also_a_word: bool = False  # in, mi: not before a Latin word
    hindi_one: str = ""  # after 1, where Hindi says it otherwise (घंटा)
    spaced: bool = False  # st, t, pt: only after a space (1st is an ordinal)


def _unit(
    written: str,
    hindi: str,
    english: str,
    plural: str | None = None,
    *,
    hindi_one: str = "",
    exact_case: bool = False,
    also_a_word: bool = False,
    spaced: bool = False,
) -> Unit:
    forms = tuple(written.split("|"))
    return Unit(
        forms, hindi, english, plural or english + "s", exact_case, also_a_word, hindi_one, spaced
    )


UNITS = (
    # speed, length, area
    _unit("km/h|km/hr|kmph|kph", "किलोमीटर प्रति घंटा", "kilometre per hour", "kilometres per hour"),
    _unit("mph|mi/hr|mi/h", "मील प्रति घंटा", "mile per hour", "miles per hour"),
    _unit("km", "किलोमीटर", "kilometre"),
    _unit("m", "मीटर", "metre", exact_case=True),  # 5M is five million
    _unit("cm", "सेंटीमीटर", "centimetre"),
    _unit("mm", "मिलीमीटर", "millimetre"),
    _unit("ft|feet", "फ़ुट", "foot", "feet"),
    _unit("in|inch|inches", "इंच", "inch", "inches", also_a_word=True),
    _unit("mi", "मील", "mile", also_a_word=True),
    _unit("yd|yds", "यार्ड", "yard"),
    _unit("µm|μm", "माइक्रोमीटर", "micrometre"),
    _unit("km²|km2|sq km|sq. km|sq.km", "वर्ग किलोमीटर", "square kilometre"),
    _unit("m²|m2|sq m|sq. m|sqm", "वर्ग मीटर", "square metre"),
    _unit("ft²|sq ft|sq. ft|sq.ft|sqft|sq. ft.|sq.ft.", "वर्ग फ़ुट", "square foot", "square feet"),
    _unit("sq yd|sq. yd|sq yds|sq. yds", "वर्ग गज़", "square yard"),
    _unit("ha", "हेक्टेयर", "hectare"),
    _unit("ac", "एकड़", "acre", exact_case=True),  # 2 AC is air conditioning
    _unit("acre|acres", "एकड़", "acre"),
    # weight, volume
    _unit("kg|kgs", "किलोग्राम", "kilogram"),
    _unit("g|gm|gms", "ग्राम", "gram"),
    _unit("mg", "मिलीग्राम", "milligram"),
    _unit("l|L", "लीटर", "litre", exact_case=True),
    _unit("ltr|ltrs|litre|litres", "लीटर", "litre"),
    _unit("ml", "मिलीलीटर", "millilitre"),
    _unit("q|qtl", "क्विंटल", "quintal"),
    _unit("cg", "सेंटीग्राम", "centigram"),
    _unit("dg", "डेसीग्राम", "decigram"),
    _unit("t", "टन", "tonne", exact_case=True, spaced=True, also_a_word=True),
    _unit("lb|lbs", "पाउंड", "pound"),
    _unit("oz", "आउंस", "ounce"),
    _unit("st", "स्टोन", "stone", "stone", exact_case=True, spaced=True, also_a_word=True),
    _unit("gal", "गैलन", "gallon"),
    _unit("qt", "क्वार्ट", "quart"),
    _unit("pt", "पिंट", "pint", spaced=True, also_a_word=True),
    # temperature, energy, data
    _unit("°C|℃", "डिग्री सेल्सियस", "degree Celsius", "degrees Celsius"),
    _unit("°F|℉", "डिग्री फ़ारेनहाइट", "degree Fahrenheit", "degrees Fahrenheit"),
    _unit("°", "डिग्री", "degree"),
    _unit("kW", "किलोवाट", "kilowatt"),
    _unit("kWh", "किलोवाट घंटा", "kilowatt hour"),
    _unit("mAh", "मिलीएम्पियर घंटा", "milliamp hour"),
    _unit("GB", "जीबी", "gigabyte"),
    _unit("MB", "एमबी", "megabyte"),
    _unit("TB", "टीबी", "terabyte"),
    _unit("KB", "केबी", "kilobyte", exact_case=True),
    _unit("Mbps", "एमबीपीएस", "megabit per second", "megabits per second"),
    _unit("Gbps", "जीबीपीएस", "gigabit per second", "gigabits per second"),
    _unit("kbps", "केबीपीएस", "kilobit per second", "kilobits per second"),
    # time
    _unit("hr|hrs", "घंटे", "hour", hindi_one="घंटा"),
    _unit("yr|yrs", "साल", "year"),
    _unit("min|mins", "मिनट", "minute"),
    _unit("sec|secs", "सेकंड", "second"),
    # homes
    _unit("BHK", "बी एच के", "B H K", "B H K", exact_case=True),
)


def by_written(units: tuple[Unit, ...]) -> dict[str, Unit]:
    """Each written form (lower-cased unless the unit keeps its case) -> its unit."""
    return {
        (form if unit.exact_case else form.lower()): unit for unit in units for form in unit.written
    }


_LATIN_WORD_NEXT = re.compile(r"\s*[A-Za-z]")


def found(table: dict[str, Unit], match: re.Match[str], group: int) -> Unit | None:
    """The unit written in ``match``'s ``group`` (matched without case), or None where
    it is not one here: a unit that keeps its case written otherwise (``AC``), a
    word-like unit before a Latin word."""
    written = match[group]
    unit = table.get(written) or table.get(written.lower())
    if unit is None or (unit.exact_case and written not in unit.written):
        return None
    if unit.also_a_word and _LATIN_WORD_NEXT.match(match.string, match.end()):
        return None
    if unit.spaced and not match.string[match.start(group) - 1 : match.start(group)].isspace():
        return None
    return unit
